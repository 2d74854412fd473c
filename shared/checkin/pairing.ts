import { z } from 'zod';

/** The pairing payload a door device receives (QR code, link or manual form). */
export const PairingPayload = z.object({
  /** Interface root, e.g. `http://127.0.0.1:8080/en/wp-json/`. Normalised to end with one slash. */
  url: z
    .string()
    .trim()
    .refine((u) => /^https?:\/\/[^\s/]+/i.test(u), { message: 'url must be an http(s) URL' })
    .transform((u) => u.replace(/\/+$/, '') + '/'),
  api_key: z.string().trim().min(1),
  event_id: z.coerce.number().int().positive(),
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
  const json = JSON.stringify({ url: payload.url, api_key: payload.api_key, event_id: payload.event_id });
  return `${base.replace(/\/+$/, '')}/kiosk/#pair=${toBase64Url(json)}`;
}

/**
 * Reads a pairing payload from what a scanner or a link gives: the raw JSON, a pairing link (or any text
 * holding `#pair=...`), or the bare base64url part. Returns `null` when the text is not a pairing code, so
 * a ticket scanned on an unpaired device can be told apart from a broken pairing code.
 */
export function parsePairing(raw: string): PairingPayload | null {
  const text = raw.trim();
  let json: string | null = null;
  if (text.startsWith('{')) json = text;
  else {
    const m = /(?:^|[#&?])pair=([A-Za-z0-9_-]+={0,2})/.exec(text);
    const encoded = m ? m[1] : /^[A-Za-z0-9_-]{16,}$/.test(text) ? text : null;
    if (encoded === null) return null;
    try {
      json = fromBase64Url(encoded);
    } catch {
      return null;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  const parsed = PairingPayload.safeParse(value);
  return parsed.success ? parsed.data : null;
}
