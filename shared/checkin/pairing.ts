import { z } from 'zod';
import { SIGNING_KEY_ID, SIGNING_PUBLIC_KEY } from './signature.ts';

/** Bounds on what a pairing code may carry: a QR code or a link from anyone must stay small and plain. */
export const PAIRING_LIMITS = { url: 2048, apiKey: 256, raw: 8192 } as const;

/**
 * The interface root a kiosk may be pointed at: an absolute http(s) URL with a host, no user name or
 * password (`https://trusted.example@evil.example/` hides its real host), no query or fragment, no spaces
 * or control characters. Normalised through the URL parser (lower-case host, punycode, default port
 * dropped) and to end with one slash.
 */
const InterfaceRoot = z
  .string()
  .trim()
  .max(PAIRING_LIMITS.url)
  .refine((u) => /^https?:\/\/[^\s/\\?#@]+/i.test(u) && !/[\s\u0000-\u001f\u007f-\u009f\\]/.test(u), {
    message: 'url must be an http(s) URL',
  })
  .transform((u, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'url must be an http(s) URL' });
      return z.NEVER;
    }
    if (
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      !parsed.hostname ||
      parsed.username ||
      parsed.password ||
      parsed.search ||
      parsed.hash ||
      u.includes('?') ||
      u.includes('#')
    ) {
      ctx.addIssue({ code: 'custom', message: 'url must be an http(s) URL with no credentials, query or fragment' });
      return z.NEVER;
    }
    return `${parsed.href.replace(/\/+$/, '')}/`;
  });

/** The pairing payload a door device receives (QR code, link or manual form). */
export const PairingPayload = z.object({
  /** Interface root, e.g. `http://127.0.0.1:8080/en/wp-json/`. Normalised to end with one slash. */
  url: InterfaceRoot,
  /** Sent as `Authorization: Bearer <key>`: visible Latin-1 characters only, so it cannot split a header. */
  api_key: z
    .string()
    .trim()
    .min(1)
    .max(PAIRING_LIMITS.apiKey)
    .regex(/^[\x21-\x7e\xa1-\xff]+$/, 'api_key has characters a key never has'),
  /** A post ID: a positive whole number (digits only when it comes as text, as from the form). */
  event_id: z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^[0-9]{1,15}$/)
        .transform(Number),
    ])
    .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
  /**
   * When the server speaks HTTPS with a self-signed certificate: the SHA-256 of that certificate's DER, as 64
   * hex digits (colons and upper case accepted, normalised to plain lower case), for the device to pin.
   */
  fingerprint: z
    .string()
    .trim()
    .max(128)
    .transform((f) => f.replace(/:/g, '').toLowerCase())
    .pipe(z.string().regex(/^[0-9a-f]{64}$/, 'fingerprint must be a SHA-256 as 64 hex digits'))
    .optional(),
  /** The event's Ed25519 public key for signed tickets (CONTRACT section 8): base64url of its 32 raw bytes. */
  signing_key: z.string().trim().regex(SIGNING_PUBLIC_KEY, 'signing_key must be base64url of 32 bytes').optional(),
  /** That key's ID, as signed tickets name it in `kid`. */
  signing_key_id: z.string().trim().regex(SIGNING_KEY_ID, 'signing_key_id must be a short base64url word').optional(),
});
export type PairingPayload = z.infer<typeof PairingPayload>;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** base64url (RFC 4648 §5, no padding) of a UTF-8 string; works in browsers and Node without Buffer. */
export function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Inverse of {@link toBase64Url}; throws on malformed input. */
export function fromBase64Url(encoded: string): string {
  const b64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The pairing link `{base}/kiosk/#pair=<base64url JSON>`; `base` is the site's public base URL. */
export function pairingLink(base: string, payload: PairingPayload): string {
  const json = JSON.stringify({
    url: payload.url,
    api_key: payload.api_key,
    event_id: payload.event_id,
    ...(payload.fingerprint ? { fingerprint: payload.fingerprint } : {}),
    ...(payload.signing_key && payload.signing_key_id ? { signing_key: payload.signing_key, signing_key_id: payload.signing_key_id } : {}),
  });
  return `${base.replace(/\/+$/, '')}/kiosk/#pair=${toBase64Url(json)}`;
}

/** What a scanned or linked text holds: no pairing code, a pairing code that fails validation, or a valid one. */
export type PairingRead = { kind: 'none' } | { kind: 'invalid'; reason: string } | { kind: 'ok'; payload: PairingPayload };

/**
 * Reads a pairing payload from what a scanner or a link gives: the raw JSON, a pairing link (or any text
 * holding `#pair=...`), or the bare base64url part. `none` when the text is not a pairing code at all (so a
 * ticket scanned on an unpaired device can be told apart from a broken pairing code); `invalid` when it
 * looks like one but is malformed, oversized or fails {@link PairingPayload}. Nothing unvalidated is shown.
 */
export function readPairing(raw: string): PairingRead {
  const text = raw.trim();
  let json: string | null = null;
  const m = /(?:^|[#&?])pair=([^&#\s]*)/.exec(text);
  if (text.startsWith('{')) json = text;
  else if (!m && !/^[A-Za-z0-9_-]{16,}$/.test(text)) return { kind: 'none' };
  if (text.length > PAIRING_LIMITS.raw) return { kind: 'invalid', reason: 'too long' };
  if (json === null) {
    const encoded = m ? m[1] : text;
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(encoded)) return m ? { kind: 'invalid', reason: 'not base64url' } : { kind: 'none' };
    try {
      json = fromBase64Url(encoded);
    } catch {
      return m ? { kind: 'invalid', reason: 'not base64url' } : { kind: 'none' };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return m || text.startsWith('{') ? { kind: 'invalid', reason: 'not JSON' } : { kind: 'none' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return m || text.startsWith('{') ? { kind: 'invalid', reason: 'not an object' } : { kind: 'none' };
  }
  const parsed = PairingPayload.safeParse(value);
  if (!parsed.success)
    return { kind: 'invalid', reason: parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ') };
  return { kind: 'ok', payload: parsed.data };
}

/** {@link readPairing}, as the payload or `null` (not a pairing code, or an invalid one). */
export function parsePairing(raw: string): PairingPayload | null {
  const read = readPairing(raw);
  return read.kind === 'ok' ? read.payload : null;
}
