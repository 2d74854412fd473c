/** Random lowercase hex of `bytes` bytes from the platform CSPRNG (browsers and Node 20 alike). */
function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  let out = '';
  for (const b of buf) out += b.toString(16).padStart(2, '0');
  return out;
}

/** A scan nonce: 128 random bits, 32 hex characters (the contract asks for at least 16 characters). */
export function makeNonce(): string {
  return randomHex(16);
}

/** A door device ID, generated once per installation. */
export function makeDeviceId(): string {
  return `door-${randomHex(8)}`;
}

/** ISO 8601 with the local offset (`2026-11-22T09:30:00.000+02:00`), as `check_in_date` requires. */
export function isoWithOffset(ms: number, offsetMinutes = -new Date(ms).getTimezoneOffset()): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}
