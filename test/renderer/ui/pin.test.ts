import 'fake-indexeddb/auto';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { checkPin, derivePin, hasPin, pbkdf2Sha256Js, PIN_LOCK_MS, pinLockedUntil, setPin, validPin } from '../../../renderer/ui/pin.ts';

let n = 0;
const freshDb = () => openKioskDb(`pin-test-${process.pid}-${n++}`);

describe('supervisor PIN', () => {
  test('stored only as a salted PBKDF2 hash; the right PIN opens, a wrong one does not', async () => {
    const db = freshDb();
    assert.equal(await hasPin(db), false);
    assert.deepEqual(await checkPin(db, '2468'), { ok: false, reason: 'unset' });
    await setPin(db, '2468', 2000);
    const stored = JSON.stringify((await db.meta.get('supervisorPin'))?.value);
    assert.doesNotMatch(stored, /2468/);
    assert.match(stored, /"salt":"[0-9a-f]{32}"/);
    assert.deepEqual(await checkPin(db, '2468'), { ok: true });
    assert.deepEqual(await checkPin(db, '2469'), { ok: false, reason: 'wrong', left: 4 });
    // Same PIN twice, different salts: different hashes.
    const other = freshDb();
    await setPin(other, '2468', 2000);
    // (Compared as text: two records read back are never the same object, so comparing them could not fail.)
    const hashOf = async (d: typeof db) => ((await d.meta.get('supervisorPin'))?.value as { hash?: string } | undefined)?.hash;
    assert.match((await hashOf(db)) ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(await hashOf(other), await hashOf(db));
  });

  test('5 wrong PINs lock the pad for 60 s (the right PIN included), then it opens; the next lock is longer', async () => {
    const db = freshDb();
    await setPin(db, '135790', 2000);
    const t0 = 1_000_000;
    for (let i = 1; i <= 4; i++) assert.deepEqual(await checkPin(db, '000000', t0), { ok: false, reason: 'wrong', left: 5 - i });
    assert.deepEqual(await checkPin(db, '000000', t0), { ok: false, reason: 'locked', until: t0 + PIN_LOCK_MS });
    assert.deepEqual(await checkPin(db, '135790', t0 + 59_000), { ok: false, reason: 'locked', until: t0 + PIN_LOCK_MS });
    assert.equal(await pinLockedUntil(db, t0 + 1000), t0 + PIN_LOCK_MS);
    const t1 = t0 + PIN_LOCK_MS;
    for (let i = 0; i < 5; i++) await checkPin(db, '000000', t1);
    assert.equal(await pinLockedUntil(db, t1), t1 + 2 * PIN_LOCK_MS, 'the second lock is twice as long');
    assert.deepEqual(await checkPin(db, '135790', t1 + 2 * PIN_LOCK_MS), { ok: true });
    assert.deepEqual(await checkPin(db, '000000', t1 + 2 * PIN_LOCK_MS), { ok: false, reason: 'wrong', left: 4 }, 'the right PIN reset the count');
  });

  test('a PIN being set is waited for: checks made meanwhile answer from it, never from the PIN it replaces or none', async () => {
    const db = freshDb();
    // Not awaited, as a pairing stores its PIN while its first download starts (app.ts paired).
    const first = setPin(db, '1111', 2000);
    const [set, right, locked] = await Promise.all([hasPin(db), checkPin(db, '1111'), pinLockedUntil(db)]);
    assert.deepEqual([set, right, locked], [true, { ok: true }, null]);
    await first;
    const replacing = setPin(db, '2222', 2000);
    assert.deepEqual(await checkPin(db, '1111'), { ok: false, reason: 'wrong', left: 4 }, 'the PIN replaced no longer opens');
    await replacing;
    // Two set one after another without waiting: the last one is the one stored.
    void setPin(db, '3333', 2000);
    await setPin(db, '4444', 2000);
    assert.deepEqual(await checkPin(db, '4444'), { ok: true });
    assert.deepEqual(await checkPin(db, '3333'), { ok: false, reason: 'wrong', left: 4 });
    await assert.rejects(setPin(db, '12'), /4 to 12 digits/);
    assert.deepEqual(await checkPin(db, '4444'), { ok: true }, 'a refused PIN changes nothing');
  });

  test('PINs are 4 to 12 digits', () => {
    assert.deepEqual(['123', '1234', '123456789012', '1234567890123', '12a4', ' 1234'].map(validPin), [false, true, true, false, false, false]);
  });

  test('the plain-JavaScript PBKDF2 (pages without WebCrypto) matches WebCrypto', async () => {
    const salt = '00112233445566778899aabbccddeeff';
    const viaSubtle = await derivePin('2468', salt, 3000);
    assert.equal(await derivePin('2468', salt, 3000, false), viaSubtle);
    // RFC 7914 section 11 test vector (PBKDF2-HMAC-SHA-256, P="passwd", S="salt", c=1), first 32 bytes.
    const hex = Buffer.from(pbkdf2Sha256Js(new TextEncoder().encode('passwd'), new TextEncoder().encode('salt'), 1)).toString('hex');
    assert.equal(hex, '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc');
    assert.ok(webcrypto.subtle);
  });
});
