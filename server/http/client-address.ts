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

// ---- what a list covers, as ranges of integers per family ----

const V4_MAPPED = 0xffff_0000_0000n;
const V4_LAST = 0xffff_ffffn;
const V6_LAST = (1n << 128n) - 1n;

function v4Int(a: string): bigint {
  return a.split('.').reduce((n, p) => (n << 8n) | BigInt(Number(p)), 0n);
}

function v6Int(a: string): bigint {
  let s = a.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const n = v4Int(v4[1]);
    s = `${s.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

interface Span {
  v6: boolean;
  lo: bigint;
  hi: bigint;
}

/** proxy-addr's named ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** The addresses one checked entry covers. */
function spansOf(entry: string): Span[] {
  const named = NAMED_RANGES[entry.toLowerCase()];
  if (named) return named.flatMap(spansOf);
  const [address, prefix] = entry.split('/');
  const v6 = isIP(address) === 6;
  const bits = v6 ? 128 : 32;
  const len = prefix === undefined ? bits : isIP(prefix) === 4 ? v4Int(prefix).toString(2).replace(/0+$/, '').length : Number(prefix);
  const size = 1n << BigInt(bits - len);
  const lo = (v6 ? v6Int(address) : v4Int(address)) & ~(size - 1n);
  return [{ v6, lo, hi: lo + size - 1n }];
}

/** Whether the spans leave no gap between 0 and `last`. */
function coverAll(spans: { lo: bigint; hi: bigint }[], last: bigint): boolean {
  let next = 0n;
  for (const s of [...spans].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0))) {
    if (s.lo > next) return false;
    if (s.hi + 1n > next) next = s.hi + 1n;
    if (next > last) return true;
  }
  return next > last;
}

/**
 * What is wrong with a whole `EVT_TRUST_PROXY` list of entries each of which passed `trustProxyEntryProblem`:
 * entries that together cover every IPv4 or every IPv6 address (`0.0.0.0/1,128.0.0.0/1`) are refused as one
 * covering everything is. IPv4 ranges count for the IPv4-mapped IPv6 addresses, and such IPv6 ranges for IPv4.
 */
export function trustProxyListProblem(list: readonly string[]): string | null {
  const spans = list.flatMap(spansOf);
  const v4 = spans.filter((s) => !s.v6);
  const v6 = spans.filter((s) => s.v6);
  const mappedDown = v6
    .filter((s) => s.hi >= V4_MAPPED && s.lo <= V4_MAPPED + V4_LAST)
    .map((s) => ({
      lo: (s.lo > V4_MAPPED ? s.lo : V4_MAPPED) - V4_MAPPED,
      hi: (s.hi < V4_MAPPED + V4_LAST ? s.hi : V4_MAPPED + V4_LAST) - V4_MAPPED,
    }));
  const mappedUp = v4.map((s) => ({ lo: s.lo + V4_MAPPED, hi: s.hi + V4_MAPPED }));
  if (coverAll([...v4, ...mappedDown], V4_LAST) || coverAll([...v6, ...mappedUp], V6_LAST))
    return `"${list.join(',')}" covers every address: trusting every address lets any client choose its own address with X-Forwarded-For (and so escape every per-address limit): list the addresses or CIDR ranges of your proxies`;
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
