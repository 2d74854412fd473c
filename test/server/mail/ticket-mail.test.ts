import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import jsQR from 'jsqr';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, insertTicket, insertEvent } from '../../helpers/tickets-fixture.ts';
import { mailIdle } from '../../../server/mail/index.ts';
import { parseTicketCode, ticketCodeUrl } from '../../../shared/checkin/ticket-code.ts';
import { signedText, verifySignature } from '../../../shared/checkin/signature.ts';
import { leaves, parseMime, type MimePart } from './mime.ts';

/**
 * Ticket e-mails: completing an order over HTTP logs one message to the purchaser, delivered after the
 * commit (here as an .eml file), with one inline QR image per attendee that decodes to the check-in URL.
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

interface LogRow {
  id: number;
  to_header: string;
  subject: string;
  source: string;
  related_id: number;
  eml_file: string;
  status: string;
}
const mailFor = async (orderId: number) =>
  (await s.db.prepare("SELECT * FROM mail_log WHERE source = 'tickets' AND related_id = ?").all(orderId)) as LogRow[];

function decodeQr(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

function readEml(row: LogRow): MimePart {
  return parseMime(fs.readFileSync(path.join(s.dir, 'mail', row.eml_file)));
}

const complete = (lang: string, orderId: number) =>
  call(`${s.base}/${lang}/wp-json/evt/tickets/v1/orders/${orderId}`, { method: 'PATCH', auth: s.admin, body: { status: 'completed' } });

describe('ticket e-mail when an order completes', () => {
  test('one message to the purchaser, text and escaped HTML, one QR per attendee decoding to its check-in URL', async () => {
    const f = await seedTicketsFixture(s.db, {
      attendees: 2,
      orderStatus: 'pending',
      eventTitle: 'Jazz <Night> & more',
      ticketTitle: 'VIP',
      name: (i) => (i === 0 ? 'Ann "A" <b>Bold</b>' : `Guest ${i + 1}`),
    });
    assert.deepEqual(await mailFor(f.orderId), [], 'nothing is sent for a pending order');
    const r = await complete('en', f.orderId);
    assert.equal(r.status, 200, r.text);
    await mailIdle(s.app.state);
    const rows = await mailFor(f.orderId);
    assert.equal(rows.length, 1);
    const row = rows[0];
    assert.equal(row.status, 'sent');
    assert.match(row.to_header, /<buyer@example\.test>$/);
    assert.equal(row.subject, 'Your tickets for Jazz <Night> & more');

    const mail = readEml(row);
    assert.equal(mail.headers.subject, 'Your tickets for Jazz <Night> & more');
    assert.match(mail.headers.to, /buyer@example\.test/);
    const parts = leaves(mail);
    const text = parts.find((p) => p.type === 'text/plain')!.body.toString('utf8');
    const html = parts.find((p) => p.type === 'text/html')!.body.toString('utf8');
    assert.match(text, /^Hello Ann "A" <b>Bold<\/b>,/);
    assert.match(text, /Event: Jazz <Night> & more/);
    assert.match(html, /Hello Ann &quot;A&quot; &lt;b&gt;Bold&lt;\/b&gt;,/);
    assert.match(html, /Jazz &lt;Night&gt; &amp; more/);
    assert.doesNotMatch(html, /<Night>|<b>Bold/);

    const images = parts.filter((p) => p.type === 'image/png');
    assert.equal(images.length, 2);
    const signing = await call(`${s.root}evt/events/v1/events/${f.eventId}`, { auth: s.admin });
    for (const attendeeId of f.attendeeIds) {
      const img = images.find((p) => p.headers['content-id'] === `<ticket-${attendeeId}@doorstep>`);
      assert.ok(img, `inline image of attendee ${attendeeId}`);
      assert.match(img.headers['content-disposition'], /^inline/);
      assert.ok(html.includes(`src="cid:ticket-${attendeeId}@doorstep"`));
      const decoded = decodeQr(img.body);
      // Signed by the event's key (CONTRACT section 8): the original's URL with `sig` and `kid` after it.
      const signature = parseTicketCode(decoded!)?.signature;
      assert.ok(signature, 'the e-mailed ticket is signed');
      assert.equal(signature.kid, signing.body.signing_key_id);
      const signed = signedText({ eventId: f.eventId, attendeeId, ticketId: f.ticketId, securityCode: f.codes.get(attendeeId)! });
      assert.equal(await verifySignature(signing.body.signing_key, signed, signature.sig), true);
      const expected = ticketCodeUrl(`${s.base}/en/`, { attendeeId, eventId: f.eventId, securityCode: f.codes.get(attendeeId)!, signature });
      assert.equal(decoded, expected);
      assert.deepEqual(parseTicketCode(decoded!), { attendeeId, eventId: f.eventId, securityCode: f.codes.get(attendeeId)!, signature });
      assert.ok(text.includes(`Check-in link: ${expected}`));
    }
    // The log shows the images (drawn after commit) and a resend carries the same bytes.
    const det = await call(`${s.root}mail-log/v1/get-details?id=${row.id}`, { auth: s.admin });
    assert.deepEqual(
      det.body.details.attachments.map((a: { filename: string; content_type: string; inline: boolean }) => [a.filename, a.content_type, a.inline]),
      f.attendeeIds.map((id) => [`ticket-${id}.png`, 'image/png', true]),
    );
    for (const a of det.body.details.attachments) assert.ok(a.size > 0);
    const re = await call(`${s.root}mail-log/v1/resend-email`, { method: 'POST', auth: s.admin, body: { id: row.id } });
    assert.equal(re.body.success, true);
    const resent = leaves(parseMime(fs.readFileSync(path.join(s.dir, 'mail', (await mailFor(f.orderId))[0].eml_file)))).filter(
      (p) => p.type === 'image/png',
    );
    assert.notEqual((await mailFor(f.orderId))[0].eml_file, row.eml_file);
    assert.deepEqual(
      resent.map((p) => p.body),
      images.map((p) => p.body),
    );
    // Only a completion sends: the same order saved again, or another status, adds nothing.
    await complete('en', f.orderId);
    await mailIdle(s.app.state);
    assert.equal((await mailFor(f.orderId)).length, 1);
  });

  test('in the language of the request that completed the order, with the translated event title', async () => {
    const f = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending', eventTitle: 'Jazz evening', name: () => 'Mari' });
    await s.db.prepare('UPDATE posts SET title_et = ? WHERE id = ?').run('Džässiõhtu', f.eventId);
    assert.equal((await complete('et', f.orderId)).status, 200);
    await mailIdle(s.app.state);
    const [row] = await mailFor(f.orderId);
    const mail = readEml(row);
    assert.equal(mail.headers.subject, 'Teie piletid: Džässiõhtu');
    const text = leaves(mail)
      .find((p) => p.type === 'text/plain')!
      .body.toString('utf8');
    assert.match(text, /^Tere, Mari!/);
    assert.match(text, /Üritus: Džässiõhtu/);
    const img = leaves(mail).find((p) => p.type === 'image/png')!;
    const id = f.attendeeIds[0];
    const decoded = decodeQr(img.body)!;
    const signature = parseTicketCode(decoded)?.signature;
    assert.ok(signature);
    assert.equal(decoded, ticketCodeUrl(`${s.base}/et/`, { attendeeId: id, eventId: f.eventId, securityCode: f.codes.get(id)!, signature }));
  });

  test('a cancelled order sends nothing', async () => {
    const f = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const r = await call(`${s.root}evt/tickets/v1/orders/${f.orderId}`, { method: 'PATCH', auth: s.admin, body: { status: 'cancelled' } });
    assert.equal(r.status, 200, r.text);
    await mailIdle(s.app.state);
    assert.deepEqual(await mailFor(f.orderId), []);
  });

  test('a free checkout completes at once and mails the tickets (anonymous cart)', async () => {
    const eventId = await insertEvent(s.db, { title: 'Open day' });
    const ticketId = await insertTicket(s.db, eventId, { provider: 'rsvp', title: 'Free entry' });
    const cart = await call(`${s.root}evt/tickets/v1/cart`, {
      method: 'POST',
      body: { provider: 'rsvp', tickets: [{ ticket_id: ticketId, quantity: 2 }] },
    });
    assert.ok(cart.status < 300, cart.text);
    const cookie = (cart.headers.get('set-cookie') ?? '').split(';')[0];
    const out = await call(`${s.root}evt/tickets/v1/cart/checkout`, {
      method: 'POST',
      headers: { cookie },
      body: { purchaser_name: 'Kai Kask', purchaser_email: 'kai@example.test' },
    });
    assert.equal(out.status, 201, out.text);
    await mailIdle(s.app.state);
    const [row] = (await s.db.prepare("SELECT * FROM mail_log WHERE source = 'tickets' AND to_header LIKE '%kai@example.test%'").all()) as LogRow[];
    assert.ok(row, 'the ticket e-mail was logged');
    assert.equal(row.status, 'sent');
    const mail = readEml(row);
    const images = leaves(mail).filter((p) => p.type === 'image/png');
    assert.equal(images.length, 2);
    const codes = images.map((p) => parseTicketCode(decodeQr(p.body) ?? ''));
    for (const c of codes) {
      assert.ok(c);
      assert.equal(c.eventId, eventId);
      const a = (await s.db.prepare('SELECT security_code, order_id FROM attendees WHERE post_id = ?').get(c.attendeeId)) as {
        security_code: string;
        order_id: number;
      };
      assert.equal(a.security_code, c.securityCode);
      assert.equal(a.order_id, row.related_id);
    }
  });
});
