import { formatInZone, zonedToInstant, parseDateInput } from '../../shared/dates.ts';
import { nowUtc } from '../db/clock.ts';

/** Post dates: the site-local and GMT forms WordPress stores side by side. */
export interface PostDates {
  date: string;
  date_gmt: string;
}

/** `YYYY-MM-DD HH:MM:SS` UTC of `d`, the storage format (`nowUtc` of the repositories). */
export function utcString(d: Date): string {
  return nowUtc(d);
}

export function nowDates(tz: string, now = new Date()): PostDates {
  return { date: formatInZone(now, tz), date_gmt: utcString(now) };
}

/** Resolves `date` (site time) and `date_utc` inputs of a write; `date_utc` wins when both are sent. */
export function publicationDates(tz: string, input: { date?: string; date_utc?: string }, now = new Date()): PostDates | null {
  const d =
    input.date_utc !== undefined ? parseDateInput(input.date_utc, 'UTC', now) : input.date !== undefined ? parseDateInput(input.date, tz, now) : null;
  return d ? nowDates(tz, d) : null;
}

export function localToUtcString(local: string, tz: string): string {
  return utcString(zonedToInstant(local, tz));
}
