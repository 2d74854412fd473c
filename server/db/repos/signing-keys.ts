import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

/** An event's Ed25519 key pair (020-signing-keys.sql); `private_box` is the sealed PKCS#8 private key. */
export interface SigningKeyRow {
  id: number;
  event_id: number;
  kid: string;
  public_key: string;
  private_box: string;
  created_ms: number;
  retired_ms: number | null;
  revoked_ms: number | null;
}

/** PostgreSQL hands bigint columns back as text: numbers at this edge. */
function row(r: Record<string, unknown> | undefined): SigningKeyRow | undefined {
  if (!r) return undefined;
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: Number(r.id),
    event_id: Number(r.event_id),
    kid: String(r.kid),
    public_key: String(r.public_key),
    private_box: String(r.private_box),
    created_ms: Number(r.created_ms),
    retired_ms: n(r.retired_ms),
    revoked_ms: n(r.revoked_ms),
  };
}

/** The event's current key (not retired), if it has one. */
export async function currentSigningKey(db: Db, eventId: number): Promise<SigningKeyRow | undefined> {
  return row(
    (await statement(db, 'SELECT * FROM evt_signing_keys WHERE event_id = ? AND retired_ms IS NULL').get(eventId)) as
      | Record<string, unknown>
      | undefined,
  );
}

/**
 * Stores `k` as the event's current key unless it has one already (the unique index on current keys decides a
 * race between processes: the loser's insert does nothing). Returns whether it was stored.
 */
export async function insertCurrentSigningKey(
  db: Db,
  k: Pick<SigningKeyRow, 'event_id' | 'kid' | 'public_key' | 'private_box' | 'created_ms'>,
): Promise<SigningKeyRow | undefined> {
  // The row as inserted (RETURNING: no read after it), or none when another writer's current key stood first.
  return row(
    (await statement(
      db,
      'INSERT INTO evt_signing_keys (event_id, kid, public_key, private_box, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *',
    ).get(k.event_id, k.kid, k.public_key, k.private_box, k.created_ms)) as Record<string, unknown> | undefined,
  );
}

/** Retires the event's current key (it stays valid for tickets issued under it). Returns whether there was one. */
export async function retireSigningKey(db: Db, eventId: number, at: number): Promise<boolean> {
  return (await statement(db, 'UPDATE evt_signing_keys SET retired_ms = ? WHERE event_id = ? AND retired_ms IS NULL').run(at, eventId)).changes > 0;
}

/** Revokes key `kid` of the event (retiring it too when current). Returns whether a key not yet revoked was found. */
export async function revokeSigningKey(db: Db, eventId: number, kid: string, at: number): Promise<boolean> {
  return (
    (
      await statement(
        db,
        'UPDATE evt_signing_keys SET revoked_ms = ?, retired_ms = COALESCE(retired_ms, ?) WHERE event_id = ? AND kid = ? AND revoked_ms IS NULL',
      ).run(at, at, eventId, kid)
    ).changes > 0
  );
}

/** Every key of the event, oldest first. */
export async function signingKeysOf(db: Db, eventId: number): Promise<SigningKeyRow[]> {
  const rows = (await statement(db, 'SELECT * FROM evt_signing_keys WHERE event_id = ? ORDER BY id').all(eventId)) as Record<string, unknown>[];
  return rows.map((r) => row(r) as SigningKeyRow);
}
