import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { openDatabase } from '../../../server/db/connection.ts';
import { isPostgresSpec } from '../../../server/db/engine/types.ts';
import { ATTENDEE_MEMO_REVALIDATE_MS, queryAttendees } from '../../../server/db/repos/attendee-query.ts';
import { insertAttendees, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

/**
 * The attendee list's remembered totals and page positions (server/db/repos/attendee-query.ts) follow every
 * change: SQLite's data_version sees any commit; on PostgreSQL the change log sees Doorstep's, and a change it
 * does not record (psql) shows at the latest after ATTENDEE_MEMO_REVALIDATE_MS.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ EVT_CACHE: 'off' });
});
afterAll(() => s.close());

describe('remembered attendee totals', () => {
  test('attendees added outside Doorstep (psql on PostgreSQL) show at the latest after ATTENDEE_MEMO_REVALIDATE_MS', async () => {
    const fx = await seedTicketsFixture(s.db, { attendees: 2 });
    // The repository itself: a request through the API writes rows of its own on PostgreSQL (limits), which
    // moves the connection's change count and so the key anyway.
    const q = {
      eventIds: [fx.eventId],
      statuses: null,
      eventStatuses: null,
      orderStatuses: null,
      publicOnly: false,
      orderby: 'id' as const,
      order: 'ASC' as const,
      limit: 1,
      offset: 0,
    };
    const total = async () => (await queryAttendees(s.db, q)).total;
    // The app's clock held in the middle of a revalidation period, so the period cannot end by itself between
    // the reads below: read by the wall clock, a minute that turned between them moved the memo's key (the likely
    // cause of one failure in a full PostgreSQL run, 'nothing told the server yet' answering 5).
    const held = Math.floor(Date.now() / ATTENDEE_MEMO_REVALIDATE_MS) * ATTENDEE_MEMO_REVALIDATE_MS + ATTENDEE_MEMO_REVALIDATE_MS / 2;
    s.app.state.services.clock = () => held;
    try {
      assert.equal(await total(), 2);
      assert.equal(await total(), 2);
      // Raw writes on another connection that append nothing to the change log (as psql would).
      const other = await openDatabase(s.dbSpec);
      try {
        await insertAttendees(other, fx.ticketId, 3);
      } finally {
        await other.close();
      }
      if (isPostgresSpec(s.dbSpec)) {
        assert.equal(await total(), 2, 'nothing told the server yet: the remembered total answers');
        s.app.state.services.clock = () => held + ATTENDEE_MEMO_REVALIDATE_MS + 1000;
      }
      assert.equal(await total(), 5);
    } finally {
      delete s.app.state.services.clock;
    }
  });
});
