import type { DoorAttendee } from '../../shared/checkin/wire.ts';

/** An attendee as the door snapshot and the delta pages send it: ticket 11 of event 10, overridable field by field. */
export const doorAttendee = (id: number, over: Partial<DoorAttendee> = {}): DoorAttendee => ({
  id,
  post_id: 10,
  ticket_id: 11,
  status: 'publish',
  title: `Guest ${id}`,
  email: `g${id}@x.ee`,
  checked_in: false,
  checkin_details: false,
  security_code: `code-${id}`,
  order_status: 'completed',
  ...over,
});
