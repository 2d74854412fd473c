import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './public-address.ts';

/**
 * An outgoing HTTP GET that cannot be turned against the server's own network (SSRF): every hop (the first URL
 * and each redirect) must be http(s) on an allowed port with an allowed host name, its name is resolved here and
 * refused if ANY address is not public, and the connection goes to the vetted address itself, so a DNS answer
 * that changes between check and connect (rebinding) cannot swap it. A total timeout and a body size cap apply.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface PinnedRequest {
  url: URL;
  /** The vetted address the connection must go to. */
  address: ResolvedAddress;
  headers: Record<string, string>;
  maxBytes: number;
  signal: AbortSignal;
}

export interface FetchedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
export type Transport = (req: PinnedRequest) => Promise<FetchedResponse>;

export interface FetchPolicy {
  resolve: Resolver;
  isAllowedAddress: (ip: string) => boolean;
  /** Whether this host (a hop's URL) may be contacted at all: the provider allow-list. */
  isAllowedHost: (url: URL) => boolean;
  allowedPorts: readonly number[];
  transport: Transport;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export class FetchRefused extends Error {}

export const dnsResolve: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Connects to `req.address` whatever the name resolves to now; the name still serves Host and TLS SNI. */
export const pinnedTransport: Transport = (req) =>
  new Promise<FetchedResponse>((resolve, reject) => {
    const { address, family } = req.address;
    const lookup: LookupFunction = (_host, opts, cb) => {
      if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [{ address, family }]);
      else cb(null, address, family);
    };
    const mod = req.url.protocol === 'https:' ? https : http;
    const hostname = req.url.hostname.replace(/^\[|\]$/g, '');
    const r = mod.request(
      {
        protocol: req.url.protocol,
        hostname: net.isIP(hostname) ? address : hostname,
        port: req.url.port || undefined,
        path: `${req.url.pathname}${req.url.search}`,
        method: 'GET',
        headers: req.headers,
        lookup,
        agent: false,
        signal: req.signal,
      },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > req.maxBytes) {
          res.destroy();
          reject(new FetchRefused('response too large'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > req.maxBytes) {
            res.destroy();
            reject(new FetchRefused('response too large'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end();
  });

export const DEFAULT_POLICY: Omit<FetchPolicy, 'isAllowedHost'> = {
  resolve: dnsResolve,
  isAllowedAddress: isPublicAddress,
  // WordPress `wp_safe_remote_get` allows these ports only.
  allowedPorts: [80, 443, 8080],
  transport: pinnedTransport,
  timeoutMs: 5000,
  maxBytes: 512 * 1024,
  maxRedirects: 3,
};

function withTimeout<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new FetchRefused('timed out'));
    const onAbort = () => reject(new FetchRefused('timed out'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Checks one hop and returns the address to connect to; throws FetchRefused before any connection otherwise. */
export async function vetHop(url: URL, policy: FetchPolicy, signal: AbortSignal): Promise<ResolvedAddress> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefused('scheme not allowed');
  if (url.username || url.password) throw new FetchRefused('credentials in URL');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!policy.allowedPorts.includes(port)) throw new FetchRefused('port not allowed');
  if (!policy.isAllowedHost(url)) throw new FetchRefused('host not on the allow-list');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  const addresses: ResolvedAddress[] = family ? [{ address: host, family: family === 6 ? 6 : 4 }] : await withTimeout(policy.resolve(host), signal);
  if (!addresses.length) throw new FetchRefused('host does not resolve');
  if (addresses.some((a) => !policy.isAllowedAddress(a.address))) throw new FetchRefused('address not public');
  return addresses[0];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** GET `url` under `policy`, following redirects (each hop vetted). Throws FetchRefused or a network error. */
export async function guardedFetch(url: string, policy: FetchPolicy, headers: Record<string, string> = {}): Promise<FetchedResponse & { url: URL }> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new FetchRefused('invalid URL');
  }
  for (let hop = 0; ; hop++) {
    const address = await vetHop(current, policy, signal);
    const res = await withTimeout(
      policy.transport({ url: current, address, headers: { 'user-agent': 'Doorstep-oEmbed/1.0', ...headers }, maxBytes: policy.maxBytes, signal }),
      signal,
    );
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || typeof location !== 'string') return { ...res, url: current };
    if (hop >= policy.maxRedirects) throw new FetchRefused('too many redirects');
    try {
      current = new URL(location, current);
    } catch {
      throw new FetchRefused('invalid redirect');
    }
  }
}
