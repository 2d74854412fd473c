import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import pg from 'pg';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { testDbWanted } from '../../helpers/pg-cluster.ts';
import { insertTicket } from '../../helpers/tickets-fixture.ts';
import { createEvent, createLinked } from '../site/fixtures.ts';

/**
 * Issue 20: the first read of an event no process has read yet (nothing of it kept) was eight round trips on
 * PostgreSQL, its reads one after another. It now sends its reads on one connection before any answer
 * (Db.together): the change log's (the version of what is kept), then the event's row, its ticket prices, venue
 * and organizer links, terms and ticket stock. The change log's goes FIRST and is the request's own: PostgreSQL
 * runs one connection's statements in order, so the row kept under that version is no older than it. A log read
 * shared with another request (sent later, elsewhere) could run after the row read, and a change committed in
 * between would be kept as if seen (checked: with the shared read, the second of two concurrent reads fails the
 * order below; without the early reads, the one-flight assertion fails).
 */

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ EVT_CACHE: 'off' });
});
afterAll(async () => await s?.close());

interface Sent {
  text: string;
  /** Answers the connection had given when this was sent. */
  answered: number;
}

/** What each connection of the pool is sent while `fn` runs, in order. */
async function watchConnections(fn: () => Promise<void>): Promise<Sent[][]> {
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const orig = proto.query;
  const byClient = new Map<unknown, Sent[]>();
  const answers = new Map<unknown, number>();
  proto.query = function (this: unknown, ...a: unknown[]) {
    const q = a[0] as { text?: string } | string;
    const list = byClient.get(this) ?? [];
    byClient.set(this, list);
    list.push({ text: String(typeof q === 'string' ? q : q?.text), answered: answers.get(this) ?? 0 });
    const r = orig.apply(this, a) as Promise<unknown> | undefined;
    const done = () => answers.set(this, (answers.get(this) ?? 0) + 1);
    if (r && typeof r.then === 'function') r.then(done, done);
    else (q as unknown as { once?: (e: string, f: () => void) => void }).once?.('end', done);
    return r;
  };
  try {
    await fn();
  } finally {
    proto.query = orig;
  }
  return [...byClient.values()];
}

describe.skipIf(!testDbWanted())('the first read of an event on PostgreSQL', () => {
  test('sends its reads on one connection before any answer, its own change-log read first', async () => {
    const venue = await createLinked(s, 'venue', { venue: 'Hall', city: 'Ghent' });
    const organizer = await createLinked(s, 'organizer', { organizer: 'Crew' });
    const linked = await createEvent(s, { title: 'Linked', venue: venue.id, organizer: [organizer.id] });
    const plain = await createEvent(s, { title: 'Plain' });
    await insertTicket(s.db, linked.id, { title: 'Entry', priceMinor: 1500, capacity: 10 });
    await insertTicket(s.db, plain.id, { title: 'Entry', priceMinor: 700, capacity: 10 });
    let answers: Awaited<ReturnType<typeof call<any>>>[] = [];
    // Two first reads at once: each with its own log read (a shared one would serve the second from the first's).
    const connections = await watchConnections(async () => {
      answers = await Promise.all([call(`${s.root}evt/events/v1/events/${linked.id}`), call(`${s.root}evt/events/v1/events/${plain.id}`)]);
    });
    assert.deepEqual(
      answers.map((a) => [a.status, a.body.title, a.body.cost]),
      [
        [200, 'Linked', '&#x24;15.00'],
        [200, 'Plain', '&#x24;7.00'],
      ],
    );
    assert.equal(answers[0]!.body.venue.venue, 'Hall');
    assert.deepEqual(
      answers[0]!.body.organizer.map((o: { organizer: string }) => o.organizer),
      ['Crew'],
    );
    const reads = connections.filter((sent) => sent.some((q) => /FROM posts p JOIN events d/.test(q.text)));
    assert.equal(reads.length, 2, 'each read on a connection of its own');
    for (const sent of reads) {
      const log = sent.findIndex((q) => /FROM evt_change_log WHERE seq >/.test(q.text));
      const row = sent.findIndex((q) => /FROM posts p JOIN events d/.test(q.text));
      assert.ok(
        log >= 0 && log < row,
        `the change log read goes before the row read on its connection: ${sent.map((q) => q.text.slice(0, 60)).join(' | ')}`,
      );
      const first = sent.slice(log, row + 1);
      for (const kind of [/FROM tickets t JOIN posts p/, /FROM event_venues/, /FROM event_organizers/, /FROM term_relationships/])
        assert.ok(
          sent.some((q) => kind.test(q.text) && q.answered === sent[log]!.answered),
          `${kind} goes before any answer, with the log read`,
        );
      assert.ok(
        first.every((q) => q.answered === sent[log]!.answered),
        'the log read and the row read go before any answer',
      );
    }
    // Read again: kept now, no row or links read at all.
    const again = await watchConnections(async () => {
      assert.equal((await call(`${s.root}evt/events/v1/events/${linked.id}`)).body.title, 'Linked');
    });
    assert.ok(!again.flat().some((q) => /FROM posts p JOIN events d|FROM event_venues|FROM term_relationships/.test(q.text)));
  });

  test('a change another process commits shows in the next read (the kept event is started again)', async () => {
    const ev = await createEvent(s, { title: 'Before' });
    assert.equal((await call(`${s.root}evt/events/v1/events/${ev.id}`)).body.title, 'Before');
    // Another process: a write to the database that appends to the change log as Doorstep's writes do.
    await s.db.prepare("UPDATE posts SET title = 'After' WHERE id = ?").run(ev.id);
    await s.db.prepare("INSERT INTO evt_change_log (tags, origin, at_ms) VALUES ('all', 'another-process', ?)").run(Date.now());
    assert.equal((await call(`${s.root}evt/events/v1/events/${ev.id}`)).body.title, 'After');
  });
});
