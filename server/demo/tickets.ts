import crypto from 'node:crypto';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Config } from '../config.ts';
import type { Db } from '../db/connection.ts';
import type { Ctx } from '../kernel/context.ts';
import { nowDates, utcString } from '../content/site-time.ts';
import { createTicket } from '../db/repos/tickets.ts';
import { createOrder } from '../db/repos/orders.ts';
import { insertCheckin } from '../db/repos/checkins.ts';
import { busiestEventFrom, setAttendeeFullName, setCheckedIn, uncheckedAttendeeCodes } from '../db/repos/attendees.ts';
import { setPostTitle } from '../db/repos/posts.ts';
import { createApiKey } from '../auth/credentials.ts';
import { pairingLink, writePairingQr } from '../pairing.ts';
import { privateDir, writePrivateFile } from '../auth/private-files.ts';
import { ensureSigningKey, signedTicketUrl } from '../security/ticket-signing.ts';
import { resolveSiteSecret } from '../db/repos/site-options.ts';

const FIRST = [
  'Mari',
  'Jaan',
  'Liis',
  'Kristjan',
  'Kadri',
  'Andres',
  'Triin',
  'Martin',
  'Anna',
  'Peeter',
  'Eva',
  'Karl',
  'Laura',
  'Mihkel',
  'Sofia',
  'Rasmus',
  'Emma',
  'Oliver',
  'Hanna',
  'Robin',
];
const LAST = [
  'Tamm',
  'Saar',
  'Sepp',
  'Mägi',
  'Kask',
  'Kukk',
  'Rebane',
  'Ilves',
  'Pärn',
  'Koppel',
  'Lepik',
  'Kuusk',
  'Oja',
  'Mets',
  'Lill',
  'Smith',
  'Nilsson',
  'Virtanen',
];

/**
 * Tickets (an RSVP or a paid general admission per event), orders and attendees spread over the first events,
 * some checked in, then a door key for the busiest upcoming event: its pairing link and the QR images of a few
 * of its attendees, so a newcomer can scan at once.
 */
export async function demoTickets(
  db: Db,
  config: Config,
  _ctx: Ctx,
  eventIds: number[],
  attendees: number,
  random: () => number,
  out: (line: string) => void,
): Promise<void> {
  if (!eventIds.length || attendees === 0) return;
  const tz = config.timezone;
  const pick = <T>(l: readonly T[]) => l[Math.floor(random() * l.length)];
  const now = new Date();
  const ticketed = eventIds.slice(0, Math.min(eventIds.length, 40));
  const stats = await db.transaction(async () => {
    const d = nowDates(tz, now);
    const tickets: { id: number; event: number; paid: boolean; capacity: number }[] = [];
    for (const event of ticketed) {
      const paid = random() < 0.7;
      const capacity = pick([50, 100, 150, 200, 300]);
      const id = await createTicket(db, {
        eventId: event,
        provider: paid ? 'tc' : 'rsvp',
        name: paid ? 'General admission' : 'Free RSVP',
        description: paid ? 'Standing and seating, first come first served.' : 'Reserve a free place.',
        priceMinor: paid ? pick([1000, 1500, 2000, 2500]) : 0,
        currency: 'EUR',
        capacity,
        date: d.date,
        dateGmt: d.date_gmt,
      });
      tickets.push({ id, event, paid, capacity });
    }
    const sold = new Map<number, number>();
    let made = 0;
    let checkedIn = 0;
    for (let guard = 0; made < attendees && guard < attendees * 4; guard++) {
      const t = pick(tickets);
      const qty = Math.min(1 + Math.floor(random() * 4), attendees - made, t.capacity - (sold.get(t.id) ?? 0));
      if (qty <= 0) continue;
      const first = pick(FIRST);
      const last = pick(LAST);
      const email = `${first}.${last}${Math.floor(random() * 1000)}@example.test`.toLowerCase().replace(/[^a-z0-9.@]/g, '');
      const status = t.paid && random() < 0.06 ? 'pending' : 'completed';
      const order = await createOrder(db, {
        purchaserName: `${first} ${last}`,
        purchaserEmail: email,
        items: [{ ticketId: t.id, quantity: qty }],
        date: d.date,
        dateGmt: d.date_gmt,
        status,
      });
      for (const [i, aid] of order.attendeeIds.entries()) {
        if (i > 0) {
          // Companions of the purchaser get names of their own.
          const name = `${pick(FIRST)} ${last}`;
          await setAttendeeFullName(db, aid, name);
          await setPostTitle(db, aid, name);
        }
        if (status === 'completed' && random() < 0.25) {
          const at = new Date(now.getTime() - Math.floor(random() * 3 * 3600_000)).toISOString();
          const checkin = await insertCheckin(db, {
            attendee_id: aid,
            event_id: t.event,
            result: 'accepted',
            reason: null,
            scanned_at: at,
            received_at: at,
            device_id: 'demo-door-1',
            nonce: crypto.randomUUID(),
            source: 'demo',
            user_id: 0,
            api_key_id: null,
          });
          await setCheckedIn(db, aid, checkin);
          checkedIn++;
        }
      }
      sold.set(t.id, (sold.get(t.id) ?? 0) + qty);
      made += qty;
    }
    return { tickets: tickets.length, made, checkedIn };
  });
  out(`Created ${stats.tickets} tickets and ${stats.made} attendees (${stats.checkedIn} already checked in).`);
  const busiest = await busiestEventFrom(db, utcString(now));
  if (!busiest) return;
  const { key, row } = await createApiKey(db, 'Demo door', busiest.id, null);
  const secret = await resolveSiteSecret(db, config.secret);
  const signing = await ensureSigningKey(db, secret, busiest.id);
  const link = pairingLink(config, key, busiest.id, { kid: signing.kid, key: signing.public_key });
  const files = await writePairingQr(config, row.id, link);
  out(`Door key "Demo door" for event ${busiest.id} (${busiest.n} attendees): ${key}`);
  out(`Pair a kiosk by opening ${link}`);
  out(`  or by scanning ${files.png} (also ${files.svg}).`);
  const dir = path.join(config.dataDir, 'demo-qr');
  // Ticket QR images carry security codes: 0600 in a 0700 folder.
  privateDir(config.dataDir, { existing: false });
  privateDir(dir, { existing: true });
  const sample = await uncheckedAttendeeCodes(db, busiest.id, 'completed');
  for (const a of sample) {
    const url = await signedTicketUrl(db, secret, config.publicUrl, {
      id: a.post_id,
      event_id: busiest.id,
      ticket_id: a.ticket_id,
      security_code: a.security_code,
      status: 'publish',
      order_status: 'completed',
    });
    writePrivateFile(path.join(dir, `attendee-${a.post_id}.png`), await QRCode.toBuffer(url, { type: 'png', width: 400, margin: 4 }));
  }
  out(`Ticket QR codes of ${sample.length} attendees to scan: ${dir}/attendee-*.png`);
}
