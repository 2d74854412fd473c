import net from 'node:net';

/**
 * Addresses a server-side fetch must never reach: private, loopback, link-local (cloud metadata lives at
 * 169.254.169.254), CGNAT, multicast, reserved and documentation ranges, and IPv6 forms that wrap or translate
 * an IPv4 address (mapped, NAT64, 6to4, Teredo), since the wrapped address could be any of the above.
 */
const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const BLOCKED_V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

// Two lists: a BlockList holding ::ffff:0:0/96 would match every IPv4 address checked against it.
const blockedV4 = new net.BlockList();
for (const [a, p] of BLOCKED_V4) blockedV4.addSubnet(a, p, 'ipv4');
const blockedV6 = new net.BlockList();
for (const [a, p] of BLOCKED_V6) blockedV6.addSubnet(a, p, 'ipv6');

/** True only for a well-formed IP address on the public internet. */
export function isPublicAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    // An IPv4-mapped address in dotted form is judged by its IPv4 part as well.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return false;
    return !blockedV6.check(ip, 'ipv6');
  }
  return !blockedV4.check(ip, 'ipv4');
}
