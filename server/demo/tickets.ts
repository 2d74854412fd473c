import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Config } from '../config.ts';
import type { Db } from '../db/connection.ts';
import { stmt } from '../db/connection.ts';
import type { Ctx } from '../http/context.ts';
import { insertPost } from '../db/repos/posts.ts';
import { nowDates, utcString } from '../content/site-time.ts';
import { createApiKey } from '../auth/credentials.ts';
import { pairingLink, writePairingQr } from '../pairing.ts';
import { ticketCodeUrl } from '../../shared/checkin/ticket-code.ts';

const FIRST = ['Mari', 'Jaan', 'Liis', 'Kristjan', 'Kadri', 'Andres', 'Triin', 'Martin', 'Anna', 'Peeter', 'Eva', 'Karl', 'Laura', 'Mihkel', 'Sofia', 'Rasmus', 'Emma', 'Oliver', 'Hanna', 'Robin'];
const LAST = ['Tamm', 'Saar', 'Sepp', 'Mägi', 'Kask', 'Kukk', 'Rebane', 'Ilves', 'Pärn', 'Koppel', 'Lepik', 'Kuusk', 'Oja', 'Mets', 'Lill', 'Smith', 'Nilsson', 'Virtanen'];

/**
 * Tickets (an RSVP or a paid general admission per event), orders and attendees spread over the first events,
 * some checked in, then a door key for the busiest upcoming event: its pairing link and the QR images of a few
 * of its attendees, so a newcomer can scan at once.
 */
export async function demoTickets(db: Db, config: Config, ctx: Ctx, eventIds: number[], attendees: number, random: () => number, out: (line: string) => void): Promise<void> {
  if (!eventIds.length || attendees === 0) return;
  const tz = config.timezone;
  const pick = <T>(l: readonly T[]) => l[Math.floor(random() * l.length)];
  const now = new Date();
  const ticketed = eventIds.slice(0, Math.min(eventIds.length, 40));
  const stats = db.transaction(() => {
    const tickets: { id: number; event: number; provider: 'rsvp' | 'tc'; price: number; capacity: number }[] = [];
    for (const event of ticketed) {
      const paid = random() < 0.7;
      const capacity = pick([50, 100, 150, 200, 300]);
      const d = nowDates(tz, now);
      const id = insertPost(db, 'ticket', { ...d, title: paid ? 'General admission' : 'Free RSVP', content: paid ? 'Standing and seating, first come first served.' : 'Reserve a free place.', slug: `ticket-${event}`, author: ctx.caller.kind === 'user' ? ctx.caller.userId : 0 });
      const price = paid ? pick([1000, 1500, 2000, 2500]) : 0;
      stmt(db, "INSERT INTO tickets (post_id, event_id, provider, price_minor, currency, capacity) VALUES (?, ?, ?, ?, 'EUR', ?)").run(id, event, paid ? 'tc' : 'rsvp', price, capacity);
      tickets.push({ id, event, provider: paid ? 'tc' : 'rsvp', price, capacity });
    }
    const sold = new Map<number, number>();
    let made = 0;
    let checkedIn = 0;
    let guard = 0;
    while (made < attendees && guard++ < attendees * 4) {
      const t = pick(tickets);
      const qty = Math.min(1 + Math.floor(random() * 4), attendees - made, t.capacity - (sold.get(t.id) ?? 0));
      if (qty <= 0) continue;
      const first = pick(FIRST);
      const last = pick(LAST);
      const email = `${first}.${last}${Math.floor(random() * 1000)}@example.test`.toLowerCase().replace(/[^a-z0-9.@]/g, '');
      const status = t.provider === 'tc' && random() < 0.06 ? 'pending' : 'completed';
      const d = nowDates(tz, now);
      const orderId = insertPost(db, 'order', { ...d, title: `Order for ${first} ${last}`, status: 'publish' });
      stmt(db, 'INSERT INTO orders (post_id, provider, status, purchaser_name, purchaser_email, total_minor, currency, created_utc, completed_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
        orderId, t.provider, status, `${first} ${last}`, email, t.price * qty, 'EUR', d.date_gmt, status === 'completed' ? d.date_gmt : null,
      );
      stmt(db, 'INSERT INTO order_items (order_id, ticket_id, quantity, price_minor) VALUES (?, ?, ?, ?)').run(orderId, t.id, qty, t.price);
      for (let i = 0; i < qty; i++) {
        const name = i === 0 ? `${first} ${last}` : `${pick(FIRST)} ${last}`;
        const aid = insertPost(db, 'attendee', { ...d, title: name, status: 'publish' });
        stmt(db, 'INSERT INTO attendees (post_id, ticket_id, event_id, order_id, provider, full_name, email, security_code, price_minor, rsvp_status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
          aid, t.id, t.event, orderId, t.provider, name, email, crypto.randomBytes(6).toString('hex'), t.price, t.provider === 'rsvp' ? 'yes' : null,
        );
        if (status === 'completed' && random() < 0.25) {
          const at = utcString(new Date(now.getTime() - Math.floor(random() * 3 * 3600_000)));
          const iso = at.replace(' ', 'T') + 'Z';
          const c = stmt(db, "INSERT INTO checkins (attendee_id, event_id, result, scanned_at, received_at, device_id, nonce, source, user_id) VALUES (?, ?, 'accepted', ?, ?, 'demo-door-1', ?, 'demo', 0)").run(aid, t.event, iso, iso, crypto.randomUUID());
          stmt(db, 'UPDATE attendees SET checked_in = 1, checkin_id = ? WHERE post_id = ?').run(Number(c.lastInsertRowid), aid);
          checkedIn++;
        }
      }
      sold.set(t.id, (sold.get(t.id) ?? 0) + qty);
      made += qty;
    }
    return { tickets: tickets.length, made, checkedIn };
  })();
  out(`Created ${stats.tickets} tickets and ${stats.made} attendees (${stats.checkedIn} already checked in).`);
  const busiest = stmt(db, "SELECT a.event_id AS id, COUNT(*) AS n FROM attendees a JOIN events e ON e.post_id = a.event_id WHERE e.end_utc >= ? GROUP BY a.event_id ORDER BY n DESC LIMIT 1").get(utcString(now)) as { id: number; n: number } | undefined;
  if (!busiest) return;
  const { key, row } = createApiKey(db, 'Demo door', busiest.id, null);
  const link = pairingLink(config, key, busiest.id);
  const files = await writePairingQr(config, row.id, link);
  out(`Door key "Demo door" for event ${busiest.id} (${busiest.n} attendees): ${key}`);
  out(`Pair a kiosk by opening ${link}`);
  out(`  or by scanning ${files.png} (also ${files.svg}).`);
  const dir = path.join(config.dataDir, 'demo-qr');
  fs.mkdirSync(dir, { recursive: true });
  const sample = stmt(db, 'SELECT a.post_id, a.security_code FROM attendees a JOIN orders o ON o.post_id = a.order_id WHERE a.event_id = ? AND a.checked_in = 0 AND o.status = ? ORDER BY a.post_id LIMIT 5').all(busiest.id, 'completed') as { post_id: number; security_code: string }[];
  for (const a of sample) {
    const url = ticketCodeUrl(config.publicUrl, { attendeeId: a.post_id, eventId: busiest.id, securityCode: a.security_code });
    await QRCode.toFile(path.join(dir, `attendee-${a.post_id}.png`), url, { width: 400, margin: 4 });
  }
  out(`Ticket QR codes of ${sample.length} attendees to scan: ${dir}/attendee-*.png`);
}
