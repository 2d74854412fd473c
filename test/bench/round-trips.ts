import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/connection.ts';
import { insertEvent, insertTicket } from '../helpers/tickets-fixture.ts';
import { childServer, freePort } from '../reliability/child-server.ts';
import { buyOne, createDatabase, pgCluster, pgUnavailable, requestFrom, seedPgSite } from '../reliability/pg-site.ts';
import { roundTripsPer, startPgProxy } from './bench-util.ts';

/**
 * `npx tsx test/bench/round-trips.ts`: the PostgreSQL round trips of single requests, without bench:scale's load
 * runs: one server process (response cache off) through the delay proxy at RTT 0, requests one at a time, counted
 * as bench:scale counts them (roundTripsPer). Kinds: a checkout of a free ticket (its cart write before it not
 * counted), a checkout of a paid ticket (an order that stays pending), an attendee page of 100, a single event
 * read, the first read of an event no process has read yet, a page of the events archive. BENCH_ROUND_TRIPS (10 requests of each kind); RT_ONLY=checkout,paid,page,event,first,archive (the kinds to count, all by default); BENCH_PG_TRACE=<file> writes each round trip's statements.
 */

const COUNTED = Number(process.env.BENCH_ROUND_TRIPS ?? 10);
const ONLY = process.env.RT_ONLY;
const say = (s: string) => process.stdout.write(`${s}\n`);

async function main(): Promise<void> {
  const missing = pgUnavailable();
  if (missing) throw new Error(missing);
  const cluster = await pgCluster();
  const proxy = await startPgProxy(cluster.url, 0);
  const db = createDatabase(cluster.url, 'roundtrips');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-rt-'));
  try {
    const site = await seedPgSite(db.url, 100 * (COUNTED + 2));
    const setup = await openDatabase(db.url);
    let free: number;
    let paid: number;
    const fresh: number[] = [];
    try {
      const sale = await insertEvent(setup, { title: 'On sale' });
      free = await insertTicket(setup, sale, { provider: 'rsvp', capacity: 1_000_000, title: 'Free place' });
      paid = await insertTicket(setup, sale, { provider: 'tc', capacity: 1_000_000, priceMinor: 1000, title: 'Paid place' });
      // Events no process has read yet, each with a ticket: the first read of an event builds what later reads keep
      // (roundTripsPer makes two reads before it counts).
      for (let i = 0; i < COUNTED + 2; i++) {
        const e = await insertEvent(setup, { title: `Not read yet ${i}` });
        await insertTicket(setup, e, { provider: 'tc', capacity: 100, priceMinor: 500, title: 'Entry' });
        fresh.push(e);
      }
    } finally {
      await setup.close();
    }
    const server = childServer({ dbFile: proxy.through(db.url), port: await freePort(), env: { EVT_DATA_DIR: dataDir, EVT_CACHE: 'off' } });
    await server.start();
    try {
      let n = 0;
      const cartWrite = async (ticket: number, provider: string) => {
        const i = n++;
        const r = await requestFrom(server.base, '/wp-json/evt/tickets/v1/cart', {
          method: 'POST',
          localAddress: `127.9.${Math.floor(i / 250)}.${1 + (i % 250)}`,
          body: { provider, tickets: [{ ticket_id: ticket, quantity: 1 }] },
        });
        if (r.status !== 200) throw new Error(`cart: ${r.status} ${r.body?.code}`);
      };
      const want = (kind: string) => !ONLY || ONLY.split(',').includes(kind);
      const cartFree = !want('checkout') ? NaN : await roundTripsPer(proxy, 'cart write (free)', COUNTED, () => cartWrite(free, 'rsvp'));
      const buyFree = !want('checkout')
        ? NaN
        : await roundTripsPer(proxy, 'cart write and checkout (free)', COUNTED, async () => {
            const r = await buyOne(server.base, server.base, free, 5000 + n++);
            if (r.status !== 201) throw new Error(`checkout: ${r.status} ${r.code}`);
          });
      const cartPaid = !want('paid') ? NaN : await roundTripsPer(proxy, 'cart write (paid)', COUNTED, () => cartWrite(paid, 'tc'));
      const buyPaid = !want('paid')
        ? NaN
        : await roundTripsPer(proxy, 'cart write and checkout (paid)', COUNTED, async () => {
            const i = 10_000 + n++;
            const localAddress = `127.10.${Math.floor(i / 250) % 250}.${1 + (i % 250)}`;
            const cart = await requestFrom(server.base, '/wp-json/evt/tickets/v1/cart', {
              method: 'POST',
              localAddress,
              body: { provider: 'tc', tickets: [{ ticket_id: paid, quantity: 1 }] },
            });
            const cookie = cart.cookies.find((c) => c.startsWith('evt_cart='));
            const r = await requestFrom(server.base, '/wp-json/evt/tickets/v1/cart/checkout', {
              method: 'POST',
              localAddress,
              cookie,
              body: { purchaser_name: `Buyer ${i}`, purchaser_email: `buyer${i}@example.test` },
            });
            if (r.status !== 201) throw new Error(`paid checkout: ${r.status} ${r.body?.code}`);
          });
      const page = !want('page')
        ? NaN
        : await roundTripsPer(proxy, 'attendee page of 100', COUNTED, async (i) => {
            const r = await requestFrom(
              server.base,
              `/wp-json/evt/tickets/v1/attendees?post_id=${site.eventId}&per_page=100&page=${i + 1}&changed_since=0`,
              {
                auth: site.auth.doorKey,
              },
            );
            if (r.status !== 200 || (r.body as { attendees?: unknown[] } | null)?.attendees?.length !== 100) throw new Error(`page: ${r.status}`);
          });
      const event = !want('event')
        ? NaN
        : await roundTripsPer(proxy, 'single event read', COUNTED, async () => {
            const r = await requestFrom(server.base, `/wp-json/evt/events/v1/events/${site.eventId}`);
            if (r.status !== 200) throw new Error(`event: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          });
      const first = !want('first')
        ? NaN
        : await roundTripsPer(proxy, 'first read of an event', COUNTED, async (i) => {
            const r = await requestFrom(server.base, `/wp-json/evt/events/v1/events/${fresh[i]}`);
            if (r.status !== 200) throw new Error(`event: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          });
      const archive = !want('archive')
        ? NaN
        : await roundTripsPer(proxy, 'archive page', COUNTED, async () => {
            const r = await requestFrom(server.base, '/wp-json/evt/events/v1/events?per_page=50');
            if (r.status !== 200) throw new Error(`archive: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          });
      say(`round trips per request (${COUNTED} each, one at a time, PostgreSQL through the proxy at RTT 0, response cache off):`);
      say(`  checkout, free ticket (completed order)  ${(buyFree - cartFree).toFixed(1)}   (its cart write ${cartFree.toFixed(1)})`);
      say(`  checkout, paid ticket (pending order)    ${(buyPaid - cartPaid).toFixed(1)}   (its cart write ${cartPaid.toFixed(1)})`);
      say(`  attendee page of 100                     ${page.toFixed(1)}`);
      say(`  single event read                        ${event.toFixed(1)}`);
      say(`  first read of an event (none kept yet)   ${first.toFixed(1)}`);
      say(`  events archive page                      ${archive.toFixed(1)}`);
    } finally {
      await server.stop();
    }
  } finally {
    db.drop();
    await proxy.stop();
    cluster.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`round-trips failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
