import { z } from 'zod';
import { PairingPayload } from '../../shared/checkin/pairing.ts';
import { makeDeviceId } from '../../shared/checkin/ids.ts';
import { LANGS } from '../../shared/lang.ts';
import type { KioskDb } from './db.ts';

/** Progress of the first full download, kept so an interrupted one resumes where it stopped. */
export const FullDownloadState = z.object({
  cursor: z.string().nullable(),
  nextPage: z.number().int().positive(),
  totalPages: z.number().int().nonnegative(),
  loaded: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /**
   * Set when the download goes through the door snapshot route: the `after_id` of the next slice (paging by
   * attendee ID; `nextPage` and `totalPages` then mean nothing). Absent: the paged list, from `nextPage`.
   */
  afterId: z.number().int().nonnegative().optional(),
});
export type FullDownloadState = z.infer<typeof FullDownloadState>;

export const SyncState = z.object({
  /** Set once the first full download finished; from then on only deltas run. */
  complete: z.boolean(),
  full: FullDownloadState.nullable(),
  /** Server cursor as of the last finished pass; the next delta asks for changes after it. */
  cursor: z.string().nullable(),
  /** When the last download pass finished, ms since epoch. */
  lastSyncAt: z.number().nullable(),
});
export type SyncState = z.infer<typeof SyncState>;

const Language = z.enum(LANGS);
export type Language = z.infer<typeof Language>;

const INITIAL_SYNC: SyncState = { complete: false, full: null, cursor: null, lastSyncAt: null };

async function read<T>(db: KioskDb, key: string, schema: z.ZodType<T>): Promise<T | null> {
  const row = await db.meta.get(key);
  if (!row) return null;
  const parsed = schema.safeParse(row.value);
  return parsed.success ? parsed.data : null;
}

/** The pairing settings, or `null` when the device is not paired. */
export function getSettings(db: KioskDb): Promise<PairingPayload | null> {
  return read(db, 'settings', PairingPayload);
}

export async function putSettings(db: KioskDb, settings: PairingPayload | null): Promise<void> {
  if (settings === null) await db.meta.delete('settings');
  else await db.meta.put({ key: 'settings', value: settings });
}

export async function getSyncState(db: KioskDb): Promise<SyncState> {
  return (await read(db, 'sync', SyncState)) ?? INITIAL_SYNC;
}

export async function putSyncState(db: KioskDb, state: SyncState): Promise<void> {
  await db.meta.put({ key: 'sync', value: state });
}

export function resetSyncState(db: KioskDb): Promise<void> {
  return putSyncState(db, INITIAL_SYNC);
}

/** This installation's device ID: made on first use and kept for good (re-pairing keeps it too). */
export async function getDeviceId(db: KioskDb): Promise<string> {
  return db.transaction('rw', db.meta, async () => {
    const existing = await read(db, 'device', z.string().min(1));
    if (existing) return existing;
    const id = makeDeviceId();
    await db.meta.put({ key: 'device', value: id });
    return id;
  });
}

/** Other doors' names by device ID ("Door 1"), as the server's door view gives them with standing check-ins. */
export async function getDoorLabels(db: KioskDb): Promise<Record<string, string>> {
  return (await read(db, 'doorLabels', z.record(z.string(), z.string()))) ?? {};
}

/** Adds the door labels a downloaded batch names; writes only when one is new or changed. */
export async function learnDoorLabels(db: KioskDb, batch: ReadonlyArray<{ checkin_details?: unknown }>): Promise<void> {
  const seen = new Map<string, string>();
  for (const a of batch) {
    const d = (a.checkin_details || null) as { device_id?: string | null; device_label?: string | null } | null;
    if (d?.device_id && d.device_label) seen.set(d.device_id, d.device_label);
  }
  if (!seen.size) return;
  const known = await getDoorLabels(db);
  if ([...seen].every(([id, label]) => known[id] === label)) return;
  // Bounded: a venue has tens of doors; a cache that somehow fills up starts again.
  const next = Object.keys(known).length > 500 ? {} : { ...known };
  for (const [id, label] of seen) next[id] = label;
  await db.meta.put({ key: 'doorLabels', value: next });
}

export async function getLanguage(db: KioskDb): Promise<Language | null> {
  return read(db, 'language', Language);
}

export async function putLanguage(db: KioskDb, lang: Language): Promise<void> {
  await db.meta.put({ key: 'language', value: lang });
}
