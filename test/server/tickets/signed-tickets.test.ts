import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import jsQR from 'jsqr';
import QRCode from 'qrcode';
import { PNG } from 'pngjs';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { runCli } from '../../../server/cli.ts';
import { parseTicketCode } from '../../../shared/checkin/ticket-code.ts';
import { parsePairing } from '../../../shared/checkin/pairing.ts';
import { checkTicketSignature, signedText, verifySignature } from '../../../shared/checkin/signature.ts';
import { open } from '../../../server/marketing/secret-box.ts';

let s: TestServer;
let f: TicketsFixture;
let door: { key: string; id: number };
const bearer = (k: string) => `Bearer ${k}`;
const tix = () => `${s.root}evt/tickets/v1`;
const event = (id: number, auth?: string) => call(`${s.root}evt/events/v1/events/${id}`, { auth });

/** The check-in URL a QR image carries, decoded from the PNG the server draws (as a phone or a kiosk camera would). */
async function qrUrl(attendeeId: number, auth: string): Promise<string> {
  const r = await fetch(`${tix()}/qr/${attendeeId}?format=png&size=400`, { headers: { authorization: auth } });
  assert.equal(r.status, 200);
  const png = PNG.sync.read(Buffer.from(await r.arrayBuffer()));
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  assert.ok(decoded, 'the QR image decodes');
  return decoded.data;
}

async function cli(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runCli(argv, { EVT_DB: s.dbSpec, EVT_DATA_DIR: s.dir, EVT_PUBLIC_URL: s.base }, (l) => lines.push(l));
  return lines;
}

beforeAll(async () => {
  s = await startTestServer();
  f = await seedTicketsFixture(s.db, { attendees: 4 });
  door = await s.apiKey('Door signed', f.eventId);
});
afterAll(() => s.close());

describe('signed tickets (CONTRACT section 8)', () => {
  test("the QR URL keeps the original's form and adds sig and kid, a signature that verifies under the event's key", async () => {
    const id = f.attendeeIds[0];
    const url = await qrUrl(id, bearer(door.key));
    const u = new URL(url);
    // The original's parameters first, in their order; the signature's after them.
    assert.deepEqual([...u.searchParams.keys()], ['event_qr_code', 'ticket_id', 'event_id', 'security_code', 'path', 'sig', 'kid']);
    const code = parseTicketCode(url);
    assert.ok(code?.signature);
    assert.deepEqual(
      { attendeeId: code.attendeeId, eventId: code.eventId, securityCode: code.securityCode },
      {
        attendeeId: id,
        eventId: f.eventId,
        securityCode: f.codes.get(id),
      },
    );
    const ev = await event(f.eventId, bearer(door.key));
    assert.equal(ev.status, 200);
    assert.match(ev.body.signing_key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(ev.body.signing_key_id, code.signature.kid);
    assert.deepEqual(ev.body.signing_keys, [{ signing_key_id: ev.body.signing_key_id, signing_key: ev.body.signing_key }]);
    // The keys come after the Event Tickets decorations.
    const keys = Object.keys(ev.body);
    assert.deepEqual(keys.slice(keys.indexOf('ticketed')), ['ticketed', 'signing_key', 'signing_key_id', 'signing_keys']);
    const text = signedText({ eventId: f.eventId, attendeeId: id, ticketId: f.ticketId, securityCode: f.codes.get(id)! });
    assert.equal(await verifySignature(ev.body.signing_key, text, code.signature.sig), true);
    // Over exactly that text: another ticket ID, attendee or code does not verify.
    assert.equal(await verifySignature(ev.body.signing_key, text.replace(`:${f.ticketId}:`, `:${f.ticketId + 1}:`), code.signature.sig), false);
    assert.equal(await verifySignature(ev.body.signing_key, `${f.eventId}:${id + 1}:${f.ticketId}:${f.codes.get(id)}`, code.signature.sig), false);
    // The original's QR check-in reads the signed URL's parameters as before (the extra ones are ignored).
    const checkin = await call(`${tix()}/qr?${u.searchParams.toString()}&api_key=${encodeURIComponent(door.key)}`);
    assert.equal(checkin.status, 201);
    assert.equal(checkin.body.msg, 'Checked In!');
  });

  test('the SVG image carries the same signed URL as the PNG, and the signature is the same on every draw', async () => {
    const id = f.attendeeIds[1];
    const png = await qrUrl(id, s.admin);
    const svg = await call(`${tix()}/qr/${id}?format=svg`, { auth: s.admin });
    assert.equal(svg.status, 200);
    assert.equal(svg.text, await QRCode.toString(png, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    const ev = await event(f.eventId, s.admin);
    const code = parseTicketCode(png);
    assert.ok(code?.signature);
    assert.equal(code.signature.kid, ev.body.signing_key_id);
    // Ed25519 signatures are deterministic: the same attendee and key sign alike for every caller.
    assert.equal(await qrUrl(id, bearer(door.key)), png);
  });

  test('who sees the key: the door key and managers of the event; a door key of another event and anonymous callers see nothing new', async () => {
    const other = await seedTicketsFixture(s.db, { attendees: 1 });
    const otherDoor = await s.apiKey('Door other', other.eventId);
    const mine = await event(f.eventId, bearer(door.key));
    assert.ok(mine.body.signing_key);
    const foreign = await event(f.eventId, bearer(otherDoor.key));
    assert.equal(foreign.status, 200);
    for (const k of ['signing_key', 'signing_key_id', 'signing_keys', 'attendance']) assert.equal(k in foreign.body, false, k);
    const anon = await event(f.eventId);
    assert.equal(anon.status, 200);
    for (const k of ['signing_key', 'signing_key_id', 'signing_keys']) assert.equal(k in anon.body, false, k);
    assert.deepEqual(Object.keys(anon.body), Object.keys(foreign.body));
    const archive = await call(`${s.root}evt/events/v1/events?per_page=50`);
    for (const e of archive.body.events) assert.equal('signing_key' in e, false);
    // An organizer who did not author the event reads it as the public does.
    const org = await s.userAuth('organizer', 'org-signed');
    const asOrg = await event(f.eventId, org);
    assert.equal('signing_key' in asOrg.body, false);
    // The other event's own key is another key.
    const theirs = await event(other.eventId, bearer(otherDoor.key));
    assert.ok(theirs.body.signing_key);
    assert.notEqual(theirs.body.signing_key, mine.body.signing_key);
    // A door key cannot draw another event's QR image, so it never sees another event's signature either.
    const r = await fetch(`${tix()}/qr/${f.attendeeIds[0]}?format=png`, { headers: { authorization: bearer(otherDoor.key) } });
    assert.equal(r.status, 403);
  });

  test('the pairing code made by the CLI carries the event key for the kiosk to pin', async () => {
    const lines = await cli('api-key', 'create', '--label', 'Door pairing', '--event', String(f.eventId));
    const link = lines.find((l) => l.startsWith('Pairing link: '))!.slice('Pairing link: '.length);
    const payload = parsePairing(link);
    assert.ok(payload);
    const ev = await event(f.eventId, s.admin);
    assert.equal(payload.signing_key, ev.body.signing_key);
    assert.equal(payload.signing_key_id, ev.body.signing_key_id);
  });

  test('rotation: new tickets are signed with the new key, the old key stays valid until revoked', async () => {
    const id = f.attendeeIds[2];
    const before = await event(f.eventId, bearer(door.key));
    const oldUrl = await qrUrl(id, bearer(door.key));
    const lines = await cli('signing-key', 'rotate', '--event', String(f.eventId));
    const newKid = lines[lines.length - 1];
    assert.notEqual(newKid, before.body.signing_key_id);
    const after = await event(f.eventId, bearer(door.key));
    assert.equal(after.body.signing_key_id, newKid);
    assert.notEqual(after.body.signing_key, before.body.signing_key);
    assert.deepEqual(after.body.signing_keys, [
      { signing_key_id: before.body.signing_key_id, signing_key: before.body.signing_key },
      { signing_key_id: newKid, signing_key: after.body.signing_key },
    ]);
    const newUrl = await qrUrl(id, bearer(door.key));
    const trusted = (e: typeof after) =>
      e.body.signing_keys.map((k: { signing_key_id: string; signing_key: string }) => ({ kid: k.signing_key_id, key: k.signing_key }));
    const check = async (url: string, e: typeof after) => {
      const c = parseTicketCode(url)!;
      return (await checkTicketSignature({ ...c, eventId: c.eventId!, ...c.signature! }, trusted(e), [f.ticketId])).kind;
    };
    assert.equal(parseTicketCode(newUrl)!.signature!.kid, newKid);
    assert.equal(await check(newUrl, after), 'valid');
    assert.equal(await check(oldUrl, after), 'valid');
    // Revoked: the key is no longer handed out, so a device that downloads again no longer trusts what it signed.
    const revoked = await cli('signing-key', 'revoke', '--event', String(f.eventId), `--kid=${before.body.signing_key_id}`);
    assert.match(revoked[0], /^Revoked signing key /);
    const later = await event(f.eventId, bearer(door.key));
    assert.deepEqual(later.body.signing_keys, [{ signing_key_id: newKid, signing_key: after.body.signing_key }]);
    assert.equal(await check(oldUrl, later), 'unproven');
    assert.equal(await check(newUrl, later), 'valid');
    const list = await cli('signing-key', 'list', '--event', String(f.eventId));
    assert.match(list.join('\n'), new RegExp(`${before.body.signing_key_id}.*revoked`));
    assert.match(list.join('\n'), new RegExp(`${newKid}.*current`));
  });

  test('the CLI refuses bad input with a plain message', async () => {
    await assert.rejects(cli('signing-key', 'rotate'), /--event N is required/);
    await assert.rejects(cli('signing-key', 'rotate', '--event', String(f.ticketId)), /is not an event ID/);
    await assert.rejects(cli('signing-key', 'revoke', '--event', String(f.eventId), '--kid', 'nosuchkey'), /has no signing key nosuchkey/);
    await assert.rejects(cli('signing-key', 'revoke', '--event', String(f.eventId)), /needs --kid/);
  });

  test('an attendee whose order is not complete gets an unsigned code: it must never pass a door offline', async () => {
    const pending = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const url = await qrUrl(pending.attendeeIds[0], s.admin);
    assert.equal(parseTicketCode(url)?.signature, undefined);
    assert.equal(new URL(url).searchParams.has('sig'), false);
  });

  test('revoked attendees reach kiosks through the delta download: refunded and cancelled with their status, trashed as trash', async () => {
    const fx = await seedTicketsFixture(s.db, { attendees: 2 });
    const fx2 = await seedTicketsFixture(s.db, { attendees: 1 });
    const admin = s.admin;
    const list = (event: number, q: string) => call(`${tix()}/attendees?post_id=${event}&per_page=100${q}`, { auth: admin });
    const cursor = (await list(fx.eventId, '')).headers.get('x-evt-cursor');
    const cursor2 = (await list(fx2.eventId, '')).headers.get('x-evt-cursor');
    const refund = await call(`${tix()}/orders/${fx.orderId}`, { method: 'PATCH', auth: admin, body: { status: 'refunded' } });
    assert.equal(refund.status, 200);
    const cancel = await call(`${tix()}/orders/${fx2.orderId}`, { method: 'PATCH', auth: admin, body: { status: 'cancelled' } });
    assert.equal(cancel.status, 200);
    const delta = await list(fx.eventId, `&changed_since=${cursor}`);
    assert.deepEqual(
      delta.body.attendees.map((a: { id: number; order_status: string }) => [a.id, a.order_status]),
      fx.attendeeIds.map((id) => [id, 'refunded']),
    );
    const delta2 = await list(fx2.eventId, `&changed_since=${cursor2}`);
    assert.deepEqual(
      delta2.body.attendees.map((a: { id: number; order_status: string }) => [a.id, a.order_status]),
      [[fx2.attendeeIds[0], 'cancelled']],
    );
    const c3 = delta.headers.get('x-evt-cursor');
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(fx.attendeeIds[1]);
    const trashed = await list(fx.eventId, `&changed_since=${c3}`);
    assert.deepEqual(
      trashed.body.attendees.map((a: { id: number; status: string }) => [a.id, a.status]),
      [[fx.attendeeIds[1], 'trash']],
    );
    // And such an attendee's QR code is no longer signed.
    assert.equal(parseTicketCode(await qrUrl(fx.attendeeIds[0], admin))?.signature, undefined);
  });

  test('the private key is kept sealed under the site secret, in the database file written 0600', async () => {
    const row = (await s.db
      .prepare('SELECT kid, public_key, private_box FROM evt_signing_keys WHERE event_id = ? AND retired_ms IS NULL')
      .get(f.eventId)) as {
      kid: string;
      public_key: string;
      private_box: string;
    };
    assert.match(row.private_box, /^v1\./);
    // Opened with the site secret, it is the PKCS#8 key whose public half is handed out.
    const secret = s.app.state.secret;
    const pkcs8 = open(secret, 'event-signing-key', row.private_box);
    assert.ok(pkcs8);
    const crypto = await import('node:crypto');
    const pub = crypto.createPublicKey(crypto.createPrivateKey({ key: Buffer.from(pkcs8, 'base64url'), format: 'der', type: 'pkcs8' }));
    assert.equal(pub.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64url'), row.public_key);
    assert.equal(open('another secret', 'event-signing-key', row.private_box), null);
    if (!s.dbSpec.startsWith('postgres')) {
      assert.equal((fs.statSync(s.dbSpec).mode & 0o777).toString(8), '600');
      const bytes = fs.readFileSync(s.dbSpec);
      assert.equal(bytes.includes(Buffer.from(pkcs8)), false, 'the private key is never stored in the clear');
    }
  });
});
