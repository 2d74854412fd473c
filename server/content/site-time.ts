import { formatInZone, zonedToInstant, parseDateInput } from '../../shared/dates.ts';

/** Post dates: the site-local and GMT forms WordPress stores side by side. */
export interface PostDates {
  date: string;
  date_gmt: string;
}

export function utcString(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

export function nowDates(tz: string, now = new Date()): PostDates {
  return { date: formatInZone(now, tz), date_gmt: utcString(now) };
}

/** Resolves `date` (site time) and `date_utc` inputs of a write; `date_utc` wins when both are sent. */
export function publicationDates(tz: string, input: { date?: string; date_utc?: string }, now = new Date()): PostDates | null {
  if (input.date_utc !== undefined) {
    const d = parseDateInput(input.date_utc, 'UTC', now);
    return d ? { date: formatInZone(d, tz), date_gmt: utcString(d) } : null;
  }
  if (input.date !== undefined) {
    const d = parseDateInput(input.date, tz, now);
    return d ? { date: formatInZone(d, tz), date_gmt: utcString(d) } : null;
  }
  return null;
}

export function localToUtcString(local: string, tz: string): string {
  return utcString(zonedToInstant(local, tz));
}
