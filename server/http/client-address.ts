import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { createRequire } from 'node:module';

/** proxy-addr's compiled trust test: is `addr`, the `i`-th hop from the socket (0), a trusted proxy? */
export type TrustFn = (addr: string, i: number) => boolean;

interface ProxyAddr {
  (req: IncomingMessage, trust: TrustFn): string;
  compile(list: string[]): TrustFn;
}

/**
 * proxy-addr, the module Express's `trust proxy` setting is made of: the same walk of `X-Forwarded-For` from the
 * right, stopping at the first address that is not a trusted proxy. Required (not imported) since it ships no types.
 */
const proxyaddr = createRequire(import.meta.url)('proxy-addr') as ProxyAddr;

/** The names proxy-addr (and so Express) gives to address ranges. */
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Values of `trust proxy` that trust every sender, so any client could write its own address. */
const EVERYONE = /^(true|\*|all|any|everyone|\d+)$/i;

/**
 * What is wrong with one `EVT_TRUST_PROXY` entry, or null when it is a proxy address, a CIDR range
 * (`10.0.0.0/8`, `fd00::/8`, `10.0.0.0/255.0.0.0`) or one of proxy-addr's names (`loopback`, `linklocal`,
 * `uniquelocal`). Trusting everyone (`true`, `*`, a hop count, `0.0.0.0/0`, `::/0`) is refused: any client could
 * then set its own address with `X-Forwarded-For` and walk past every per-address limit.
 */
export function trustProxyEntryProblem(entry: string): string | null {
  const why =
    'trusting every address lets any client choose its own address with X-Forwarded-For (and so escape every per-address limit): list the addresses or CIDR ranges of your proxies';
  if (EVERYONE.test(entry)) return `"${entry}" is refused: ${why}`;
  if (NAMED.has(entry.toLowerCase())) return null;
  const [address, prefix, ...more] = entry.split('/');
  const bad = `"${entry}" is not an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal`;
  if (more.length || !isIP(address) || (prefix !== undefined && !/^\d{1,3}$/.test(prefix) && isIP(prefix) !== 4)) return bad;
  if (prefix !== undefined && /^0+$|^0+\.0+\.0+\.0+$/.test(prefix)) return `"${entry}" covers every address: ${why}`;
  let trust: TrustFn;
  try {
    trust = proxyaddr.compile([entry]);
  } catch {
    return bad;
  }
  // A range holding both ends of a family's address space is the whole family (a prefix of 0, or ::ffff:0:0/96).
  if ((trust('0.0.0.0', 0) && trust('255.255.255.255', 0)) || (trust('::', 0) && trust('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 0)))
    return `"${entry}" covers every address: ${why}`;
  return null;
}

/** The trust test of a checked `EVT_TRUST_PROXY` list (empty: nobody is trusted). */
export function compileTrust(list: readonly string[]): TrustFn {
  return proxyaddr.compile(list.map((e) => e.toLowerCase()));
}

/**
 * The client's address: the socket's, or with trusted proxies (`EVT_TRUST_PROXY`) the rightmost address of
 * `X-Forwarded-For` that is not one of them. Express's `req.ip` gives the same answer; this is for the places that
 * see the request before Express does (the access log).
 */
export function clientAddress(req: IncomingMessage, trust: TrustFn): string {
  return proxyaddr(req, trust) ?? '';
}
