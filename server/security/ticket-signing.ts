import crypto from 'node:crypto';
import { bytesToBase64Url, signedText, type PublicSigningKey } from '../../shared/checkin/signature.ts';
import { ticketCodeUrl } from '../../shared/checkin/ticket-code.ts';
import { orderAllowsCheckin } from '../../shared/checkin/order-status.ts';
import type { Db } from '../db/connection.ts';
import { inTransaction } from '../db/in-transaction.ts';
import {
  currentSigningKey,
  insertCurrentSigningKey,
  retireSigningKey,
  revokeSigningKey,
  signingKeysOf,
  type SigningKeyRow,
} from '../db/repos/signing-keys.ts';
import { open, seal } from '../marketing/secret-box.ts';

/**
 * Signed tickets (CONTRACT section 8). Each event has one current Ed25519 key pair, made when first needed (a QR
 * URL, a pairing code, an event read by a door or manager). Its private key is sealed under the site secret in
 * the database (0600), as the other credentials the server keeps to use later.
 *
 * Rotation (`cli signing-key rotate --event ID`) retires the current key and makes another: tickets are signed
 * with the new one from then on, and a retired key stays valid for the tickets issued under it (e-mails already
 * sent) until it is revoked (`cli signing-key revoke --event ID --kid K`). Door devices are handed every key not
 * revoked (`signing_keys`) and drop the others at their next download. Keys do not lapse when the event is over:
 * a door has nothing to admit then, and a lapse would lean on a device clock an offline door cannot trust.
 */

const PURPOSE = 'event-signing-key';
/** The 12-byte DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw key follows it. */
const SPKI_PREFIX_LENGTH = 12;

/** A key's ID: base64url of the first 9 bytes of the SHA-256 of its raw public key (12 characters). */
function keyId(rawPublic: Buffer): string {
  return bytesToBase64Url(crypto.createHash('sha256').update(rawPublic).digest().subarray(0, 9));
}

function makeKeyRow(
  secret: string,
  eventId: number,
  now: number,
): Pick<SigningKeyRow, 'event_id' | 'kid' | 'public_key' | 'private_box' | 'created_ms'> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(SPKI_PREFIX_LENGTH);
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64url');
  return { event_id: eventId, kid: keyId(raw), public_key: bytesToBase64Url(raw), private_box: seal(secret, PURPOSE, pkcs8), created_ms: now };
}

/** The event's current key, made now when it has none (two processes racing agree on one: the first stored). */
export async function ensureSigningKey(db: Db, secret: string, eventId: number, now = Date.now()): Promise<SigningKeyRow> {
  const found = await currentSigningKey(db, eventId);
  if (found) return found;
  // Made here, or by another writer first (then read).
  return (await insertCurrentSigningKey(db, makeKeyRow(secret, eventId, now))) ?? ((await currentSigningKey(db, eventId)) as SigningKeyRow);
}

/** Retires the event's current key (still valid for what it signed) and makes a new current one. */
export async function rotateSigningKey(
  db: Db,
  secret: string,
  eventId: number,
  now = Date.now(),
): Promise<{ retired: SigningKeyRow | undefined; current: SigningKeyRow }> {
  return await inTransaction(db, async () => {
    const retired = await currentSigningKey(db, eventId);
    await retireSigningKey(db, eventId, now);
    const made = await insertCurrentSigningKey(db, makeKeyRow(secret, eventId, now));
    return { retired, current: made ?? ((await currentSigningKey(db, eventId)) as SigningKeyRow) };
  });
}

/** Revokes key `kid` of the event: door devices stop trusting it at their next download. */
export async function revokeEventSigningKey(db: Db, eventId: number, kid: string, now = Date.now()): Promise<boolean> {
  return await revokeSigningKey(db, eventId, kid, now);
}

/** The keys door devices trust for the event: every one not revoked, oldest first. */
export async function validPublicKeys(db: Db, eventId: number): Promise<PublicSigningKey[]> {
  return (await signingKeysOf(db, eventId)).filter((k) => k.revoked_ms === null).map((k) => ({ kid: k.kid, key: k.public_key }));
}

/** Opened private keys by kid (a handful: one an event in use), so a page of QR codes opens each once. */
const opened = new Map<string, crypto.KeyObject | null>();

function privateKeyOf(secret: string, k: SigningKeyRow): crypto.KeyObject | null {
  const memo = `${k.kid}\u0000${k.private_box}`;
  if (opened.has(memo)) return opened.get(memo) ?? null;
  const pkcs8 = open(secret, PURPOSE, k.private_box);
  const key = pkcs8 === null ? null : crypto.createPrivateKey({ key: Buffer.from(pkcs8, 'base64url'), format: 'der', type: 'pkcs8' });
  if (opened.size >= 1000) opened.clear();
  opened.set(memo, key);
  return key;
}

/** What a ticket's signature needs to know of its attendee. */
export interface SignableAttendee {
  id: number;
  event_id: number;
  ticket_id: number;
  security_code: string;
  /** Post status; only a published attendee is signed. */
  status: string;
  /** The order status that decides check-in (`effectiveOrderStatus`); only an admissible one is signed. */
  order_status: string | null;
}

/**
 * The `sig` and `kid` of an attendee's QR URL; `null` for an attendee who may not be admitted now (trashed, an
 * order not complete: such a code must never pass a door offline), or when the key cannot be opened (the site
 * secret changed: logged by the caller, and the code still works with its security code, unsigned).
 */
export async function signAttendee(db: Db, secret: string, a: SignableAttendee, now = Date.now()): Promise<{ sig: string; kid: string } | null> {
  if (a.status !== 'publish' || !orderAllowsCheckin(a.order_status)) return null;
  return signAttendeeWith(secret, await ensureSigningKey(db, secret, a.event_id, now), a);
}

/** {@link signAttendee} with the event's current key already read (`k`), as a ticket e-mail reads it with its order. */
export function signAttendeeWith(secret: string, k: SigningKeyRow, a: SignableAttendee): { sig: string; kid: string } | null {
  if (a.status !== 'publish' || !orderAllowsCheckin(a.order_status) || Number(k.event_id) !== Number(a.event_id)) return null;
  const key = privateKeyOf(secret, k);
  if (!key) return null;
  const text = signedText({ eventId: a.event_id, attendeeId: a.id, ticketId: a.ticket_id, securityCode: a.security_code });
  return { sig: crypto.sign(null, Buffer.from(text, 'utf8'), key).toString('base64url'), kid: k.kid };
}

/** An attendee's check-in URL (CONTRACT section 7), signed when {@link signAttendee} signs it. */
export async function signedTicketUrl(db: Db, secret: string, base: string, a: SignableAttendee, now = Date.now()): Promise<string> {
  const signature = await signAttendee(db, secret, a, now);
  return ticketCodeUrl(base, { attendeeId: a.id, eventId: a.event_id, securityCode: a.security_code, ...(signature ? { signature } : {}) });
}
