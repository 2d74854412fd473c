import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { createAppPassword } from '../../server/auth/credentials.ts';

/**
 * Password hashes are checked off the request thread (CONTRACT section 3): while wrong passwords are being
 * verified, other callers are answered. The assertion is about order, not time: an anonymous read sent after
 * 20 wrong-password requests completes while most of them are still in flight. Before the change every
 * verification ran `scryptSync` on the event loop, so the read waited behind them and finished last.
 *
 * Each wrong password comes from its own loopback address and names its own login, so neither sign-in
 * limit (10 per address, 10 per login) is reached.
 */

function getFrom(from: string, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress: from, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
  });
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (let i = 0; i < 20; i++) {
    const u = await insertUser(s.db, { login: `user${i}`, email: `user${i}@example.test`, role: 'organizer' });
    await createAppPassword(s.db, u.id, 'test');
  }
});
afterAll(() => s.close());

describe('scrypt off the request thread', () => {
  test('an anonymous GET completes while 20 wrong-password requests are still being verified', async () => {
    const done: string[] = [];
    const wrong = Array.from({ length: 20 }, (_, i) =>
      getFrom(`127.0.5.${i + 1}`, `${s.root}evt/events/v1/events`, { authorization: basic(`user${i}`, `wrong password number ${i}`) }).then(
        (status) => {
          done.push(`wrong${i}`);
          return status;
        },
      ),
    );
    // Let the 20 reach the server before the read is sent (ordering only; nothing is asserted on time).
    await new Promise((r) => setTimeout(r, 20));
    const anonymous = getFrom('127.0.5.100', `${s.root}evt/events/v1/events?per_page=1`).then((status) => {
      done.push('anonymous');
      return status;
    });
    const statuses = await Promise.all(wrong);
    assert.equal(await anonymous, 200);
    assert.deepEqual([...new Set(statuses)], [401]);
    const before = done.indexOf('anonymous');
    assert.ok(before < 10, `the anonymous read finished after ${before} of the 20 wrong-password requests: ${done.join(' ')}`);
  });
});

describe('verification work', async () => {
  // Imported here so the ordering test above also runs against a tree without these.
  const { verifyApiKeyAsync, verifyBasic } = await import('../../server/auth/credentials.ts');
  const { slowHashVerifications } = await import('../../server/auth/hash.ts');
  const counted = async (f: () => Promise<unknown>) => {
    const before = slowHashVerifications();
    await f();
    return slowHashVerifications() - before;
  };

  test('concurrent identical credentials share one verification', async () => {
    const before = slowHashVerifications();
    // All five are started before any can finish.
    const results = await Promise.all(Array.from({ length: 5 }, () => verifyBasic(s.db, 'user1', 'the same wrong password', '127.0.0.1')));
    assert.deepEqual(
      results.map((r) => r.ok),
      [false, false, false, false, false],
    );
    assert.equal(slowHashVerifications() - before, 1);
  });

  test('an unknown login, a user without passwords and a wrong password cost one slow verification; keys none', async () => {
    const lonely = await insertUser(s.db, { login: 'lonely', email: 'lonely@example.test', role: 'door' });
    assert.ok(lonely.id);
    const key = await s.apiKey('Door');
    assert.equal(await counted(() => verifyBasic(s.db, 'user2', 'wrong password a', '127.0.0.1')), 1, 'wrong password');
    assert.equal(await counted(() => verifyBasic(s.db, 'no-such-user', 'wrong password b', '127.0.0.1')), 1, 'unknown login');
    assert.equal(await counted(() => verifyBasic(s.db, 'lonely', 'wrong password c', '127.0.0.1')), 1, 'no application passwords');
    // Door keys are random: their fast hash is checked, never a slow one (CONTRACT section 3).
    assert.equal(await counted(() => verifyApiKeyAsync(s.db, `dsk_${key.id}_${'q'.repeat(32)}`)), 0, 'wrong key secret');
    assert.equal(await counted(() => verifyApiKeyAsync(s.db, `dsk_987654_${'q'.repeat(32)}`)), 0, 'unknown key ID');
    assert.equal((await verifyApiKeyAsync(s.db, key.key)).ok, true);
  });
});
