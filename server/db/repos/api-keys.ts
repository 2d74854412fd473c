import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { nowUtc } from '../clock.ts';

export interface ApiKeyRow {
  id: number;
  label: string;
  hash: string;
  event_id: number | null;
  /** The check-in list the key is bound to (its event_id is the list's), or null. */
  list_id: number | null;
  created: string;
  created_by: number | null;
  last_used: string | null;
  revoked_at: string | null;
}

export async function insertApiKey(
  db: Db,
  k: { label: string; hash: string; eventId: number | null; listId?: number | null; createdBy: number | null },
): Promise<ApiKeyRow> {
  const info = await statement(
    db,
    'INSERT INTO api_keys (label, hash, event_id, list_id, created, created_by) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
  ).run(k.label, k.hash, k.eventId, k.listId ?? null, nowUtc(), k.createdBy);
  return (await getApiKey(db, Number(info.lastInsertRowid)))!;
}

/** The hash is set after the insert: the key's text contains the row's ID. */
export async function setApiKeyHash(db: Db, id: number, hash: string): Promise<void> {
  await statement(db, 'UPDATE api_keys SET hash = ? WHERE id = ?').run(hash, id);
}

export async function getApiKey(db: Db, id: number): Promise<ApiKeyRow | undefined> {
  return (await statement(db, 'SELECT * FROM api_keys WHERE id = ?').get(id)) as ApiKeyRow | undefined;
}

export async function listApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return (await statement(db, 'SELECT * FROM api_keys ORDER BY id').all()) as ApiKeyRow[];
}

export async function revokeApiKey(db: Db, id: number): Promise<boolean> {
  return (await statement(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(nowUtc(), id)).changes > 0;
}

export async function touchApiKey(db: Db, id: number): Promise<void> {
  await statement(db, 'UPDATE api_keys SET last_used = ? WHERE id = ?').run(nowUtc(), id);
}

/** A key's label, or undefined when there is no such key. */
export async function apiKeyLabel(db: Db, id: number): Promise<string | undefined> {
  return ((await statement(db, 'SELECT label FROM api_keys WHERE id = ?').get(id)) as { label: string } | undefined)?.label;
}

/** Keys not revoked, by ID, with what the security scan looks at. */
export async function liveApiKeys(db: Db): Promise<Pick<ApiKeyRow, 'id' | 'label' | 'created' | 'last_used'>[]> {
  return (await statement(db, 'SELECT id, label, created, last_used FROM api_keys WHERE revoked_at IS NULL ORDER BY id').all()) as Pick<
    ApiKeyRow,
    'id' | 'label' | 'created' | 'last_used'
  >[];
}
