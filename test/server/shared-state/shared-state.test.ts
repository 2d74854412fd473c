import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { SharedState } from '../../../server/db/change-feed.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { mailIdle, schedule, sendMail, setMailTransport } from '../../../server/mail/service.ts';
import { siteSecretOf } from '../../../server/db/repos/site-options.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { call } from '../../helpers/server.ts';
import { startTwoApps, type TwoApps } from './two-apps.ts';
import { testDbWanted } from '../../helpers/pg-cluster.ts';

// On PostgreSQL 'process' state sees no other process's commit at all (no data_version): the comparisons run on SQLite.
const sqlite = !testDbWanted();

/**
 * Several processes on one database (issue 15 item 3): two apps on one SQLite file, each on its own connection,
 * stand for two server processes. With shared state 'database' they share rate limits and tell each other
 * which cached answers a write changed; each scenario also runs with 'process' to show what differs.
 */

async function withTwo<T>(mode: SharedState, f: (t: TwoApps) => Promise<T>): Promise<T> {
  const t = await startTwoApps(mode);
  try {
    return await f(t);
  } finally {
    await t.close();
  }
}

/** 10 wrong passwords for one login, 5 through each app; then the right one through each: the statuses. */
async function signInScenario(mode: SharedState): Promise<{ failures: number[]; rightOnA: number; rightOnB: number }> {
  return withTwo(mode, async (t) => {
    await t.userAuth('organizer', 'alice');
    const url = (root: string) => `${root}evt/events/v1/events?status=draft`;
    const basic = (p: string) => `Basic ${Buffer.from(`alice:${p}`).toString('base64')}`;
    const failures: number[] = [];
    for (let i = 0; i < 10; i++) failures.push((await call(url(i % 2 ? t.b.root : t.a.root), { auth: basic(`wrong ${i}`) })).status);
    // The 11th wrong one (a right application password is accepted wherever others failed: it cannot be guessed).
    const rightOnA = (await call(url(t.a.root), { auth: basic('wrong 11') })).status;
    const rightOnB = (await call(url(t.b.root), { auth: basic('wrong 12') })).status;
    return { failures, rightOnA, rightOnB };
  });
}

describe('shared state across processes', () => {
  test('10 failed sign-ins split over two processes: the 11th is 429 on either (each alone saw 5 with process state)', async () => {
    const shared = await signInScenario('database');
    assert.deepEqual(shared.failures, Array(10).fill(401));
    assert.equal(shared.rightOnA, 429, 'limited on A');
    assert.equal(shared.rightOnB, 429, 'limited on B');
    if (!sqlite) return;
    const local = await signInScenario('process');
    assert.deepEqual(local.failures, Array(10).fill(401));
    assert.deepEqual([local.rightOnA, local.rightOnB], [401, 401], 'process state: each process counted only its own 5');
  });

  /**
   * B caches an event's public answer; an edit through A shows on B at once. Then the title is changed on B's
   * own connection behind the app's back (a change no feed reports) and a door checks in through A: B still
   * answers from its cache (the old title) when the check-in said it changed check-ins only.
   */
  async function cacheScenario(mode: SharedState): Promise<{ edited: string; afterCheckin: string }> {
    return withTwo(mode, async (t) => {
      const fx = await seedTicketsFixture(t.a.db, { attendees: 1, eventTitle: 'Doors open' });
      const admin = (await t.userAuth('administrator', 'admin')).auth;
      const door = (await createApiKey(t.a.db, 'door', fx.eventId, null)).key;
      const title = async (root: string) => {
        const r = await call(`${root}evt/events/v1/events/${fx.eventId}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.title as string;
      };
      assert.equal(await title(t.b.root), 'Doors open');
      assert.equal(await title(t.b.root), 'Doors open');
      const edit = await call(`${t.a.root}evt/events/v1/events/${fx.eventId}`, { method: 'PATCH', auth: admin, body: { title: 'Doors open at 7' } });
      assert.equal(edit.status, 200, JSON.stringify(edit.body));
      const edited = await title(t.b.root);
      await t.b.db.prepare('UPDATE posts SET title = ? WHERE id = ?').run('Changed behind the back', fx.eventId);
      const checkin = await call(`${t.a.root}evt/tickets/v1/attendees/${fx.attendeeIds[0]}`, {
        method: 'PATCH',
        auth: `Bearer ${door}`,
        body: { check_in: true, device_id: 'door-a', nonce: `n-${crypto.randomUUID()}` },
      });
      assert.equal(checkin.status, 201, JSON.stringify(checkin.body));
      return { edited, afterCheckin: await title(t.b.root) };
    });
  }

  test("an edit through A drops B's cached answer at once; a check-in through A leaves B's cached event answer cached", async () => {
    const shared = await cacheScenario('database');
    assert.equal(shared.edited, 'Doors open at 7', 'B answers the edit at once');
    assert.equal(shared.afterCheckin, 'Doors open at 7', "B's cached answer survived the check-in");
    if (!sqlite) return;
    const local = await cacheScenario('process');
    assert.equal(local.edited, 'Doors open at 7');
    assert.equal(local.afterCheckin, 'Changed behind the back', "process state: any commit of A's empties B's cache");
  });

  test("a manager's attendee count on B sees a check-in through A at once (the count B remembers is dropped)", async () => {
    await withTwo('database', async (t) => {
      const fx = await seedTicketsFixture(t.a.db, { attendees: 3 });
      const admin = (await t.userAuth('administrator', 'admin')).auth;
      const door = (await createApiKey(t.a.db, 'door', fx.eventId, null)).key;
      const checkedIn = async () => {
        const r = await call(`${t.b.root}evt/tickets/v1/attendees?checkedin=true&per_page=1`, { auth: admin });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.total as number;
      };
      assert.equal(await checkedIn(), 0);
      assert.equal(await checkedIn(), 0);
      const checkin = await call(`${t.a.root}evt/tickets/v1/attendees/${fx.attendeeIds[1]}`, {
        method: 'PATCH',
        auth: `Bearer ${door}`,
        body: { check_in: true, device_id: 'door-a', nonce: `n-${crypto.randomUUID()}` },
      });
      assert.equal(checkin.status, 201, JSON.stringify(checkin.body));
      assert.equal(await checkedIn(), 1);
    });
  });

  test('a queued message both processes try to deliver is sent once; both processes agree on the site secret', async () => {
    for (const mode of ['database', 'process'] as const) {
      await withTwo(mode, async (t) => {
        assert.equal(t.a.app.state.secret, t.b.app.state.secret, 'one site secret');
        assert.equal(await siteSecretOf(t.b.db, 'another'), t.a.app.state.secret, 'a later start keeps the stored secret');
        const sent: string[] = [];
        for (const side of [t.a, t.b]) {
          setMailTransport(side.app.state, async (msg) => {
            // A slow delivery: the other process tries while this one is still sending.
            await new Promise((r) => setTimeout(r, 50));
            sent.push(String(msg.subject));
            return { ok: true, transport: 'test', messageId: null, emlFile: null, transcript: '', error: null };
          });
        }
        const id = await sendMail(t.a.app.state, { to: 'buyer@example.test', subject: 'Your tickets', text: 'Hello' });
        const results = await Promise.all([schedule(t.a.app.state, id), schedule(t.b.app.state, id)]);
        await Promise.all([mailIdle(t.a.app.state), mailIdle(t.b.app.state)]);
        assert.deepEqual(sent, ['Your tickets'], `${mode}: sent once`);
        assert.equal(results.filter((r) => r?.ok).length, 1, `${mode}: one delivery`);
        const row = await t.b.db.prepare('SELECT status, attempts FROM mail_log WHERE id = ?').get(id);
        assert.deepEqual(row, { status: 'sent', attempts: 1 });
      });
    }
  });
});
