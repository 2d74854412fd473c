import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { openDatabase } from '../../server/db/connection.ts';
import { insertEvent, insertTicket } from '../helpers/tickets-fixture.ts';
import { createApiKey } from '../../server/auth/credentials.ts';
import { Agent } from 'undici';
import { cpuSeconds, runBench, startTarget, stopTargets } from './bench-util.ts';

/**
 * `npx tsx test/bench/issue21-measure.ts`: the figures issue 21 asks for, against the server in a child process
 * (server-target.ts, as the other benches) on a fresh SQLite file:
 *
 * 1. a flood of 300 door keys in JSON bodies (`POST /qr` with `X-HTTP-Method-Override: GET`), 8 at a time from
 *    one address: the statuses (429 after 10 expected), and `GET /health` timed one after another meanwhile
 *    (median and p90; under 20 ms expected);
 * 2. the rows `analytics_hits` holds after 20,000 anonymous reads of one event (8 at a time);
 * 3. the places one address can hold in pending orders by anonymous carts of 50 and checkouts, until refused.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-issue21-'));
const dbFile = path.join(dir, 'measure.sqlite');
const say = (line: string) => process.stdout.write(`${line}\n`);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** Runs `task(i)` for i < n, `width` at a time. */
async function pool(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

async function main(): Promise<void> {
  const db = await openDatabase(dbFile);

  const eventId = await insertEvent(db, { title: 'Measured night' });
  const ticket = await insertTicket(db, eventId, { provider: 'tc', priceMinor: 1000, currency: 'EUR', capacity: 10_000 });
  // Key 1 exists, as on the attacked site: the flood's keys name it with wrong secrets.
  await createApiKey(db, 'Door 1', null, null);
  await db.close();
  const target = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
  const base = `http://127.0.0.1:${target.port}`;
  try {
    // 0. /health alone, as the baseline of this machine's load at this moment.
    const quiet: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      await fetch(`${base}/health`).then((r) => r.text());
      quiet.push(performance.now() - t);
    }
    say(`0. /health alone: ${quiet.length} probes, median ${pct(quiet, 50).toFixed(1)} ms, p90 ${pct(quiet, 90).toFixed(1)} ms`);

    // 1. The flood, with /health timed beside it; then the same flood with the keys in the query string (the
    // path that was already limited), from another address, as the yardstick on this machine.
    const flood = async (name: string, from: string, request: () => Promise<Response>) => {
      const cpu0 = cpuSeconds(target.proc.pid!);
      const statuses = new Map<number, number>();
      let first429 = 0;
      let done = false;
      const health: number[] = [];
      const probe = (async () => {
        while (!done) {
          const t = performance.now();
          await fetch(`${base}/health`).then((r) => r.text());
          health.push(performance.now() - t);
        }
      })();
      let n = 0;
      await pool(300, 8, async () => {
        const r = await request();
        await r.text();
        n++;
        if (r.status === 429 && !first429) first429 = n;
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      });
      done = true;
      await probe;
      const cpu = cpuSeconds(target.proc.pid!) - cpu0;
      say(
        `1. ${name} (${from}), 8 at a time: ${[...statuses].map(([st, c]) => `${c} x ${st}`).join(', ')}; first 429 at request ${first429}; ` +
          `/health during it: ${health.length} probes, median ${pct(health, 50).toFixed(1)} ms, p90 ${pct(health, 90).toFixed(1)} ms; ` +
          `server CPU ${((cpu * 1000) / (300 + health.length)).toFixed(2)} ms per request`,
      );
    };
    const key = () => `dsk_1_${crypto.randomBytes(16).toString('hex')}`;
    // Each flood from its own loopback address (all of 127.0.0.0/8 is this machine), so each meets a fresh limit.
    const dispatcher = (from: string) => new Agent({ localAddress: from });
    const a = dispatcher('127.0.0.2');
    await flood('300 JSON-body keys through a method override', '127.0.0.2', () =>
      fetch(`${base}/wp-json/evt/tickets/v1/qr`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-http-method-override': 'GET' },
        body: JSON.stringify({ api_key: key(), ticket_id: 582, security_code: '00' }),
        dispatcher: a,
      } as RequestInit),
    );
    const b = dispatcher('127.0.0.3');
    await flood('300 query-string keys', '127.0.0.3', () =>
      fetch(`${base}/wp-json/evt/tickets/v1/qr?api_key=${key()}&ticket_id=582&security_code=00`, { dispatcher: b } as RequestInit),
    );

    // 2. Analytics rows after 20,000 anonymous reads.
    const reads = Number(process.env.READS ?? 20_000);
    let bad = 0;
    await pool(reads, 8, async () => {
      const r = await fetch(`${base}/wp-json/evt/events/v1/events/${eventId}`);
      await r.arrayBuffer();
      if (r.status !== 200) bad++;
    });
    // The recorder writes within a second.
    await new Promise((r) => setTimeout(r, 1500));
    const check = await openDatabase(dbFile);
    const rows = ((await check.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(views), 0) AS views FROM analytics_hits').get()) as {
      n: number;
      views: number;
    }) ?? {
      n: 0,
      views: 0,
    };
    say(
      `2. ${reads.toLocaleString('en-US')} anonymous reads of one event (${bad} not 200): analytics_hits holds ${rows.n} row(s), counting ${rows.views} views`,
    );

    // 3. Places one address holds: carts of 50 and checkouts until one is refused.
    let held = 0;
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) {
      const cart = await fetch(`${base}/wp-json/evt/tickets/v1/cart`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'tc', tickets: [{ ticket_id: ticket, quantity: 50 }] }),
      });
      const cookie = /evt_cart=[^;]+/.exec(cart.headers.get('set-cookie') ?? '')?.[0] ?? '';
      await cart.text();
      const out = await fetch(`${base}/wp-json/evt/tickets/v1/cart/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ purchaser_name: 'Hoarder', purchaser_email: 'hoarder@example.test' }),
      });
      const body = (await out.json()) as { status?: string };
      answers.push(out.status);
      if (out.status === 201 && body.status === 'pending') held += 50;
      if (out.status !== 201) break;
    }
    const pending = (
      (await check
        .prepare("SELECT COALESCE(SUM(oi.quantity), 0) AS n FROM orders o JOIN order_items oi ON oi.order_id = o.post_id WHERE o.status = 'pending'")
        .get()) as {
        n: number;
      }
    ).n;
    await check.close();
    say(`3. carts of 50 and checkouts from one address: answers ${answers.join(' ')}; places held pending: ${held} (in the database: ${pending})`);
  } finally {
    stopTargets(dir, target);
  }
}

runBench(main);
