/**
 * A small typed use of the client types openapi-typescript generates (`npm run gen:client`), checked by
 * `npm run typecheck`: if a document lost a success schema (the client would see `never` or `unknown`), or a
 * key changed type, this file stops compiling. The contract test also runs these helpers on real answers.
 */
import type { components as EventsComponents, paths as EventsPaths } from './generated/events.ts';
import type { paths as TicketsPaths } from './generated/tickets.ts';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

export type EventList = Json<EventsPaths['/events']['get']['responses'][200]>;
export type EventItem = EventList['events'][number];
export type TicketList = Json<TicketsPaths['/tickets']['get']['responses'][200]>;
export type AttendeeList = Json<TicketsPaths['/attendees']['get']['responses'][200]>;
export type QrCheckin = Json<TicketsPaths['/qr']['get']['responses'][201]>;
export type ApiError = EventsComponents['schemas']['Error'];

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

/** Compile-time checks of the generated shapes (a `never` anywhere here fails `npm run typecheck`). */
export type Checks = [
  Expect<Equal<EventItem['id'], number>>,
  Expect<Equal<EventItem['title'], string>>,
  Expect<Equal<EventList['total'], number>>,
  Expect<Equal<TicketList['tickets'][number]['id'], number>>,
  Expect<Equal<AttendeeList['attendees'][number]['ticket_id'], number>>,
  Expect<Equal<QrCheckin['attendee']['id'], number>>,
  Expect<Equal<ApiError['data']['status'], number>>,
];

/** What a client of the generated types would write: the titles of a page of events. */
export function eventTitles(list: EventList): { id: number; title: string }[] {
  return list.events.map((e) => ({ id: e.id, title: e.title }));
}

/** The attendees of a page that are checked in (`checked_in` is in the manager view only). */
export function checkedInIds(list: AttendeeList): number[] {
  return list.attendees.filter((a) => a.checked_in === true).map((a) => a.id);
}
