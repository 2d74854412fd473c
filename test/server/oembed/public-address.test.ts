import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { isPublicAddress } from '../../../server/net/public-address.ts';

describe('isPublicAddress (what the oEmbed proxy may connect to)', () => {
  test('refuses loopback, private, link-local, CGNAT, reserved, multicast and wrapped IPv4 forms', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '192.0.0.8',
      '192.0.2.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:7f00:1::',
      '2001:0:4136::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      'fec0::1',
      'localhost',
      'example.org',
      '',
      '1.2.3',
      '999.1.1.1',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });

  test('allows ordinary public addresses', () => {
    for (const ip of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      assert.equal(isPublicAddress(ip), true, ip);
    }
  });
});
