import crypto from 'node:crypto';

/**
 * Mail-log license keys. Format: `DSMAIL-` then four groups of five Crockford base32 characters
 * (`0-9 A-Z` without I, L, O, U), e.g. `DSMAIL-7K2QM-9XH4D-0RT6B-WJ3NC`. The last character is a check
 * symbol: the sum of (position x value) over the first 19 characters (positions from 1), modulo 32.
 * Input is case-insensitive and may use spaces instead of dashes; I/L are read as 1 and O as 0 (Crockford).
 */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SHAPE = /^DSMAIL-([0-9A-Z]{5})-([0-9A-Z]{5})-([0-9A-Z]{5})-([0-9A-Z]{5})$/;

function checkSymbol(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (i + 1) * ALPHABET.indexOf(body[i]);
  return ALPHABET[sum % 32];
}

/** The canonical form of a valid key, or null. */
export function normalizeLicenseKey(input: string): string | null {
  const s = input.trim().toUpperCase().replace(/\s+/g, '-');
  const m = SHAPE.exec(s);
  if (!m) return null;
  const chars = (m[1] + m[2] + m[3] + m[4]).replace(/[IL]/g, '1').replace(/O/g, '0');
  if ([...chars].some((c) => !ALPHABET.includes(c))) return null;
  if (checkSymbol(chars.slice(0, 19)) !== chars[19]) return null;
  return `DSMAIL-${chars.match(/.{5}/g)!.join('-')}`;
}

/** A new valid key (for operators and tests). */
export function generateLicenseKey(): string {
  const bytes = crypto.randomBytes(19);
  const body = [...bytes].map((b) => ALPHABET[b % 32]).join('');
  const chars = body + checkSymbol(body);
  return `DSMAIL-${chars.match(/.{5}/g)!.join('-')}`;
}

/** `DSMAIL-*****-*****-*****-WJ3NC`: enough to recognise a key, not to reuse it. */
export function maskLicenseKey(key: string): string {
  return key.replace(/^(DSMAIL)-\w{5}-\w{5}-\w{5}-/, '$1-*****-*****-*****-');
}
