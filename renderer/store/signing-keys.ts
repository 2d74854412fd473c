import { z } from 'zod';
import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import { SIGNING_KEY_ID, SIGNING_PUBLIC_KEY, type PublicSigningKey } from '../../shared/checkin/signature.ts';
import type { KioskDb, TicketRow } from './db.ts';

/**
 * The ticket-signing keys this kiosk trusts (CONTRACT section 8). Pairing pins the event's key (`signing_key` in
 * the pairing code, kept with the settings). Each read of the event over the paired connection then brings the
 * event's keys not revoked (`signing_keys`): from then on that list is trusted instead, so a key made by a
 * rotation is learnt and a revoked one is dropped at the next download. A new pairing forgets the list.
 */
const META_KEY = 'signing_keys';
/** The ticket IDs the downloaded attendees hold (a signature covers the ticket's ID; the QR URL does not name it). */
const TICKET_IDS_KEY = 'ticket_ids';
/** How many tickets the event has, as the server's ticket list last said (its `total`). */
const TICKET_TOTAL_KEY = 'ticket_total';

const Stored = z.object({ eventId: z.number().int().positive(), keys: z.array(z.object({ kid: z.string(), key: z.string() })).max(64) });

/** The signing keys of an event answer, as far as they are well-formed; `null` when it carries none (an older server). */
const EventKeys = z.object({
  id: z.number().int(),
  signing_keys: z.array(z.object({ signing_key_id: z.string().regex(SIGNING_KEY_ID), signing_key: z.string().regex(SIGNING_PUBLIC_KEY) })).max(64),
});

export function signingKeysOfEvent(body: unknown): { eventId: number; keys: PublicSigningKey[] } | null {
  const parsed = EventKeys.safeParse(body);
  if (!parsed.success) return null;
  return { eventId: parsed.data.id, keys: parsed.data.signing_keys.map((k) => ({ kid: k.signing_key_id, key: k.signing_key })) };
}

/** Keeps the keys an event answer carried (nothing when it carried none). Include `db.meta` in a caller's transaction. */
export async function storeEventSigningKeys(db: KioskDb, body: unknown): Promise<void> {
  const found = signingKeysOfEvent(body);
  if (found) await db.meta.put({ key: META_KEY, value: found });
}

/** Forgets the downloaded keys (a new pairing: its pinned key holds until the event is read again). */
export async function forgetSigningKeys(db: KioskDb): Promise<void> {
  await db.meta.delete(META_KEY);
}

/** Forgets everything this module kept of an event (its cache is cleared). Include `db.meta` in the caller's transaction. */
export async function forgetEventSigning(db: KioskDb): Promise<void> {
  await Promise.all([db.meta.delete(META_KEY), db.meta.delete(TICKET_IDS_KEY), db.meta.delete(TICKET_TOTAL_KEY)]);
}

/** The keys trusted for the paired event: the last downloaded list for it, else the key pinned at pairing. */
export async function trustedSigningKeys(db: KioskDb, settings: PairingPayload): Promise<PublicSigningKey[]> {
  const row = await db.meta.get(META_KEY);
  return trustedKeysIn(row?.value, settings);
}

/** {@link trustedSigningKeys} from the `meta` rows as read (`read(key)`: the row's value, `undefined` when none). */
export function trustedSigningKeysFrom(read: (key: string) => unknown, settings: PairingPayload): PublicSigningKey[] {
  return trustedKeysIn(read(META_KEY), settings);
}

function trustedKeysIn(value: unknown, settings: PairingPayload): PublicSigningKey[] {
  const stored = value === undefined ? null : Stored.safeParse(value);
  if (stored?.success && stored.data.eventId === settings.event_id) return stored.data.keys;
  return settings.signing_key && settings.signing_key_id ? [{ kid: settings.signing_key_id, key: settings.signing_key }] : [];
}

/**
 * Notes the ticket IDs of downloaded attendees, so a signed code can be checked against every ticket of the event
 * the device has seen, whether or not the ticket list download named it. At most a few hundred IDs.
 */
export async function rememberTicketIds(db: KioskDb, attendees: readonly { ticket_id: number }[]): Promise<void> {
  if (attendees.length === 0) return;
  await db.transaction('rw', db.meta, async () => {
    const row = await db.meta.get(TICKET_IDS_KEY);
    const known = new Set(Array.isArray(row?.value) ? (row.value as unknown[]).filter((v): v is number => Number.isSafeInteger(v)) : []);
    const before = known.size;
    for (const a of attendees) if (known.size < 1000) known.add(a.ticket_id);
    if (known.size !== before) await db.meta.put({ key: TICKET_IDS_KEY, value: [...known] });
  });
}

/** Keeps the event's ticket count from a ticket list answer. Include `db.meta` in a caller's transaction. */
export async function storeTicketTotal(db: KioskDb, total: number | undefined): Promise<void> {
  if (total !== undefined && Number.isSafeInteger(total) && total >= 0) await db.meta.put({ key: TICKET_TOTAL_KEY, value: total });
}

/**
 * The event's tickets a signed code may be for: the downloaded ticket list, then the tickets of downloaded
 * attendees. `complete` when they are as many as the event has (the server's last count): only then can a
 * signature that fits none of them be called forged, rather than one for a ticket this device has not seen.
 */
export async function knownTickets(db: KioskDb): Promise<KnownTickets> {
  const [listed, ids, total] = await Promise.all([db.tickets.toArray(), db.meta.get(TICKET_IDS_KEY), db.meta.get(TICKET_TOTAL_KEY)]);
  return knownTicketsIn(listed, ids, total);
}

export interface KnownTickets {
  tickets: { id: number; title: string | null }[];
  complete: boolean;
}

/** {@link knownTickets} from the ticket list and the `meta` rows as read (`read(key)`: the row's value). */
export function knownTicketsFrom(listed: readonly TicketRow[], read: (key: string) => unknown): KnownTickets {
  const row = (key: string) => {
    const value = read(key);
    return value === undefined ? undefined : { value };
  };
  return knownTicketsIn(listed, row(TICKET_IDS_KEY), row(TICKET_TOTAL_KEY));
}

function knownTicketsIn(listed: readonly TicketRow[], ids: { value: unknown } | undefined, total: { value: unknown } | undefined): KnownTickets {
  const tickets: { id: number; title: string | null }[] = listed.map((t) => ({ id: t.id, title: t.title || null }));
  const seen = new Set(tickets.map((t) => t.id));
  if (Array.isArray(ids?.value)) {
    for (const id of ids.value as unknown[]) {
      if (Number.isSafeInteger(id) && !seen.has(id as number)) {
        seen.add(id as number);
        tickets.push({ id: id as number, title: null });
      }
    }
  }
  const count = typeof total?.value === 'number' ? total.value : null;
  return { tickets, complete: count !== null && tickets.length >= count };
}
