import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { DoorAttendee, plainDoorAttendee, readDoorAttendee, readSnapshotSlice, type DoorSnapshotSlice } from '../../../shared/checkin/wire.ts';
import { DOOR_SNAPSHOT_ROW_FIELDS } from '../../../shared/routes/tickets.ts';

/**
 * The door snapshot's attendees are read by hand when plain (shared/checkin/wire.ts readDoorAttendee): the result
 * must be Zod's, and whatever the hand check does not take goes to Zod, which reads it or throws as before.
 */

const hash = 'ab'.repeat(32);
const plain = {
  id: 501,
  post_id: 12,
  ticket_id: 13,
  status: 'publish',
  ticket: { id: 13, title: 'General admission' },
  title: 'Ann Lee',
  email: 'ann@example.test',
  checked_in: false,
  checkin_details: false,
  security_code_hash: hash,
  order_status: 'completed',
};
const variants: Array<[string, Record<string, unknown>]> = [
  ['plain', plain],
  ['RSVP ticket ID as a string', { ...plain, ticket: { id: '13', title: 'RSVP' } }],
  ['trashed, nulls', { ...plain, status: 'trash', title: null, email: null, order_status: null, security_code_hash: null, checkin_details: null }],
  ['fields left out', { id: 1, post_id: 2, ticket_id: 3, status: 'publish' }],
  ['extra keys dropped', { ...plain, global_id: 'x', rest_url: 'y', ticket: { id: 13, title: 'T', extra: 1 } }],
  ['a ticket without a title', { ...plain, ticket: { id: 13 } }],
  ['no ticket', { ...plain, ticket: null }],
  ['a list answer: the code, provider, order', { ...plain, security_code_hash: undefined, security_code: 'c0de', provider: 'rsvp', order: 501 }],
  [
    'checked in with details (Zod reads it)',
    {
      ...plain,
      checked_in: true,
      checkin_details: { date: '2026-11-27 19:02:11', source: 'kiosk', author: 0, device_id: 'door-1', device_label: 'Door 1' },
    },
  ],
  ['ticket ID with leading zeros', { ...plain, ticket: { id: '013', title: 'T' } }],
];
const invalid: Array<[string, unknown]> = [
  ['not an object', 'x'],
  ['an array', [1]],
  ['ID a string', { ...plain, id: '501' }],
  ['ID a fraction', { ...plain, id: 1.5 }],
  ['no status', { ...plain, status: undefined }],
  ['checked_in null', { ...plain, checked_in: null }],
  ['a bad hash', { ...plain, security_code_hash: 'nothex' }],
  ['ticket ID a word', { ...plain, ticket: { id: 'vip', title: 'T' } }],
  ['ticket ID a fraction', { ...plain, ticket: { id: 1.5, title: 'T' } }],
  ['title a number', { ...plain, title: 5 }],
  ['order an object', { ...plain, order: {} }],
];

describe('readDoorAttendee', () => {
  for (const [name, row] of variants) {
    test(`${name}: as Zod reads it`, () => {
      const wire = JSON.parse(JSON.stringify(row)) as unknown;
      assert.deepEqual(readDoorAttendee(wire), DoorAttendee.parse(wire));
    });
  }

  test('the plain form is taken by hand; a standing check-in goes to Zod', () => {
    assert.notEqual(plainDoorAttendee(plain), null);
    assert.notEqual(plainDoorAttendee({ ...plain, ticket: { id: '13', title: 'RSVP' } }), null);
    assert.equal(plainDoorAttendee(variants[8]![1]), null);
  });

  for (const [name, row] of invalid) {
    test(`${name}: refused, as by Zod`, () => {
      assert.equal(plainDoorAttendee(row), null);
      assert.equal(DoorAttendee.safeParse(row).success, false);
      assert.throws(() => readDoorAttendee(row));
    });
  }
});

describe('readSnapshotSlice', () => {
  /** The compact form of attendees (form=rows) as the server builds it: columns by name, tickets by ID. */
  const asRows = (attendees: Array<Record<string, unknown>>): DoorSnapshotSlice => {
    const fields = [...DOOR_SNAPSHOT_ROW_FIELDS];
    const tickets: Record<string, unknown> = {};
    for (const a of attendees) if (a.ticket !== undefined) tickets[String(a.ticket_id)] = a.ticket;
    return { total: attendees.length, next_after_id: null, fields, tickets, rows: attendees.map((a) => fields.map((k) => a[k])) };
  };
  const withoutRequestOnly = variants.filter(([name]) => !name.startsWith('a list answer') && !name.startsWith('extra keys'));

  test('the rows form reads as the object form does', () => {
    const attendees = withoutRequestOnly.map(([, row], i) => ({ ...row, id: 1000 + i, ticket_id: row.ticket === undefined ? 3 : 100 + i }));
    const wire = JSON.parse(JSON.stringify(attendees)) as Array<Record<string, unknown>>;
    assert.deepEqual(readSnapshotSlice(asRows(wire)), readSnapshotSlice({ total: wire.length, next_after_id: null, attendees: wire }));
    assert.deepEqual(
      readSnapshotSlice({ total: wire.length, next_after_id: null, attendees: wire }),
      wire.map((a) => DoorAttendee.parse(a)),
    );
  });

  test('columns are taken by the names `fields` gives, in any order', () => {
    const fields = [...DOOR_SNAPSHOT_ROW_FIELDS].reverse();
    const row = fields.map((k) => (plain as Record<string, unknown>)[k]);
    const [a] = readSnapshotSlice({ total: 1, next_after_id: null, fields, tickets: { 13: plain.ticket }, rows: [row] });
    assert.deepEqual(a, DoorAttendee.parse(plain));
  });

  test('rows in the server’s column order (read straight from the array) read as the same rows in another order', () => {
    const hash = 'ab'.repeat(32);
    const base = [7, 12, 13, 'publish', 'Ada', 'ada@example.test', false, false, hash, 'completed'];
    const rows: unknown[][] = [
      base,
      [8, 12, 13, 'trash', null, null, false, null, null, null],
      [9, 12, 14, 'publish', '', '', true, false, hash, 'completed'],
      [10, 12, 15, 'publish', 'No ticket object', 'x@example.test', false, false, hash, 'pending'],
      [11, 12, 16, 'publish', 'Ticket with an odd title', 'y@example.test', false, false, hash, 'completed'],
      [12, 12, 17, 'publish', 'Null ticket', 'z@example.test', false, false, hash, 'completed'],
      [14, 12, 13, 'publish', 'Short row (no order status)', 'c@example.test', false, false, hash],
      [13, 12, 13, 'publish', 'Checked in', 'c@example.test', true, { date: '2026-11-22 20:00:00', device_id: 'door-1' }, hash, 'completed'],
    ];
    const bad: unknown[][] = [
      [15, 12, 13, 'publish', 'Null checked_in', 'c@example.test', null, false, hash, 'completed'],
      [16, 12, 13, 'publish', 'Upper-case hash', 'c@example.test', false, false, hash.toUpperCase(), 'completed'],
      ['17', 12, 13, 'publish', 'String ID', 'c@example.test', false, false, hash, 'completed'],
      [18, 12, 13, 'publish', 42, 'c@example.test', false, false, hash, 'completed'],
      [19, 12, 13, 'publish', 'Details true', 'c@example.test', false, true, hash, 'completed'],
      [20, 12, 18, 'publish', 'Bad ticket', 'c@example.test', false, false, hash, 'completed'],
    ];
    const tickets = { 13: { id: 13, title: 'RSVP' }, 14: { id: '14' }, 16: { id: 16, title: 'Ünïcode “title”' }, 17: null, 18: { id: 'x' } };
    const fields = [...DOOR_SNAPSHOT_ROW_FIELDS];
    const order = fields.map((_, i) => i).reverse();
    const generic = (rs: unknown[][]) =>
      readSnapshotSlice({
        total: rs.length,
        next_after_id: null,
        fields: order.map((i) => fields[i]!),
        tickets,
        rows: rs.map((r) => order.map((i) => r[i])),
      });
    const straight = (rs: unknown[][]) => readSnapshotSlice({ total: rs.length, next_after_id: null, fields, tickets, rows: rs });
    assert.deepEqual(straight(rows), generic(rows));
    for (const row of rows) assert.deepEqual(straight([row]), generic([row]));
    for (const row of bad) {
      assert.throws(() => generic([row]), `${row[4]}: refused the generic way`);
      assert.throws(() => straight([row]), `${row[4]}: refused straight from the array`);
    }
  });

  test('a bad row is refused as a bad object is; a slice with neither form too', () => {
    const bad = asRows([{ ...plain, id: '501' }]);
    assert.throws(() => readSnapshotSlice(bad));
    assert.throws(() => readSnapshotSlice({ total: 0, next_after_id: null }));
  });
});
