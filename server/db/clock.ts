/** Current UTC time as `YYYY-MM-DD HH:MM:SS`, the storage format of every timestamp. */
export function nowUtc(d: Date = new Date()): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}
