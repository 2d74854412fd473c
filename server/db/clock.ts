/** Current UTC time as `YYYY-MM-DD HH:MM:SS`, the storage format of every timestamp. */
export function nowUtc(d: Date = new Date()): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Seconds since the epoch of a stored `YYYY-MM-DD HH:MM:SS` UTC time (PHP's `strtotime` of it). */
export function utcSeconds(utc: string): number {
  return Math.floor(Date.parse(`${utc.replace(' ', 'T')}Z`) / 1000);
}
