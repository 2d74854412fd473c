/**
 * Date and time-zone helpers matching how WordPress / The Events Calendar put dates on the wire
 * ("Y-m-d H:i:s" wall-clock strings, zero-padded detail parts, PHP time-zone abbreviations) and
 * a careful subset of PHP `strtotime` for date query parameters. Pure: Intl only, no Node or DOM.
 */

/** Wall-clock date-time without zone, 'YYYY-MM-DD HH:MM:SS' (PHP "Y-m-d H:i:s"). */
export type LocalDateTime = string;

/** Zero-padded string parts of a LocalDateTime, as TEC's `*_date_details` objects. */
export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

interface Fields {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
}

type Zone = { kind: 'fixed'; offsetMs: number; abbr: string } | { kind: 'iana'; id: string; fmt: Intl.DateTimeFormat };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the range a 4-digit "Y" can express.
const MIN_MS = -62_135_596_800_000;
const MAX_MS = 253_402_300_799_999;
const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** True for 'YYYY-MM-DD HH:MM:SS' naming a real calendar date and time (no rollover). */
export function isLocalDateTime(value: string): boolean {
  return parseLocal(value) !== null;
}

/** Gregorian month length; `m` is 1-12. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. Out-of-range fields overflow
// exactly like PHP's normaliser (months first, then days), which gives Jan 31 + 1 month = Mar 3.
function fieldsToMs(y: number, m: number, d: number, h = 0, i = 0, s = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.setUTCHours(h, i, s, ms);
}

function msToFields(ms: number): Fields {
  const t = new Date(ms);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), i: t.getUTCMinutes(), s: t.getUTCSeconds() };
}

const formatFields = (f: Fields): LocalDateTime => `${pad(f.y, 4)}-${pad(f.m)}-${pad(f.d)} ${pad(f.h)}:${pad(f.i)}:${pad(f.s)}`;

function parseLocal(local: string): Fields | null {
  const r = LOCAL_RE.exec(local);
  if (!r) return null;
  const [y, m, d, h, i, s] = r.slice(1).map(Number);
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || i > 59 || s > 59) return null;
  return { y, m, d, h, i, s };
}

function requireLocal(local: string): Fields {
  const f = parseLocal(local);
  if (!f) throw new RangeError(`Not a valid 'YYYY-MM-DD HH:MM:SS' date-time: ${JSON.stringify(local)}`);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Zones

const FIXED_RE = /^(utc|gmt)?(?:([+-])(\d{1,2})(?:(?::?(\d{2}))|\.(\d{1,2}))?)?$/i;

// WordPress stores manual offsets as 'UTC+2', 'UTC-5.5', 'UTC+5.75'; PHP also takes '+02:00', '+0200'.
function parseFixedZone(tz: string): Zone | null {
  const r = FIXED_RE.exec(tz);
  if (!r || (!r[1] && !r[2])) return null;
  if (!r[2]) return { kind: 'fixed', offsetMs: 0, abbr: r[1].toUpperCase() };
  const hours = Number(r[3]);
  const minutes = r[4] !== undefined ? Number(r[4]) : r[5] !== undefined ? Math.round(Number(`0.${r[5]}`) * 60) : 0;
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return null;
  const offsetMs = (r[2] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  return { kind: 'fixed', offsetMs, abbr: offsetMs === 0 && r[1] ? 'UTC' : `${r[2]}${pad(hours)}:${pad(minutes)}` };
}

const zoneCache = new Map<string, Zone | null>();

function lookupZone(tz: string): Zone | null {
  let zone = zoneCache.get(tz);
  if (zone !== undefined) return zone;
  zone = parseFixedZone(tz);
  // Intl would also take '+02:00' in newer engines; fixed offsets are handled above so all engines agree.
  if (!zone && /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) {
    try {
      const fmt = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      zone = { kind: 'iana', id: fmt.resolvedOptions().timeZone, fmt };
    } catch {
      zone = null;
    }
  }
  if (zoneCache.size > 1000) zoneCache.clear(); // bounded: tz strings can come from requests
  zoneCache.set(tz, zone ?? null);
  return zone ?? null;
}

function requireZone(tz: string): Zone {
  const zone = lookupZone(tz);
  if (!zone) throw new RangeError(`Unknown time zone: ${JSON.stringify(tz)}`);
  return zone;
}

const INTL_RE = /^(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)$/;

/** UTC offset (ms, east positive) of `zone` at instant `ms`. */
function offsetAt(zone: Zone, ms: number): number {
  if (zone.kind === 'fixed') return zone.offsetMs;
  // Keep probes inside years 1-9999 so en-US never prints an era; no zone changes offset there.
  const clamped = Math.min(Math.max(ms, MIN_MS + 2 * DAY_MS), MAX_MS - 2 * DAY_MS);
  const seconds = clamped - (((clamped % 1000) + 1000) % 1000);
  // format() + a regex is about 4x cheaper than formatToParts(), and this runs per event date.
  const r = INTL_RE.exec(zone.fmt.format(seconds));
  if (r) return fieldsToMs(+r[3], +r[1], +r[2], +r[4] % 24, +r[5], +r[6]) - seconds;
  const p: Record<string, number> = {};
  for (const part of zone.fmt.formatToParts(seconds)) p[part.type] = Number(part.value);
  return fieldsToMs(p.year, p.month, p.day, p.hour % 24, p.minute, p.second) - seconds;
}

// Wall-clock (as if UTC) -> instant. In a gap the pre-transition offset applies, which moves the
// time forward by the gap (PHP: 02:30 on a spring-forward night is 03:30 DST); in an overlap
// both offsets fit and the earlier instant wins (PHP picks the first, DST, occurrence).
function wallToInstant(zone: Zone, wall: number): number {
  if (zone.kind === 'fixed') return wall - zone.offsetMs;
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const fitsBefore = offsetAt(zone, wall - before) === before;
  if (before === after) return fitsBefore ? wall - before : wall - offsetAt(zone, wall - before);
  const fitsAfter = offsetAt(zone, wall - after) === after;
  if (fitsBefore && fitsAfter) return Math.min(wall - before, wall - after);
  if (fitsAfter) return wall - after;
  return wall - before;
}

/** True for IANA names Intl knows (case-insensitive, like PHP), 'UTC'/'GMT', and fixed offsets such as 'UTC+2', 'UTC-5:30', 'UTC+5.5', '+02:00'. */
export function isValidTimezone(tz: string): boolean {
  return typeof tz === 'string' && lookupZone(tz) !== null;
}

/** The wall-clock time of `instant` in `tz`, seconds truncated. Throws RangeError for an invalid Date or unknown zone. */
export function formatInZone(instant: Date, tz: string): LocalDateTime {
  const ms = instant.getTime();
  if (!(ms >= MIN_MS && ms <= MAX_MS)) throw new RangeError('Invalid or out-of-range Date');
  return formatFields(msToFields(ms + offsetAt(requireZone(tz), ms)));
}

/** The instant at which clocks in `tz` show `local`. Gaps resolve forward, overlaps to the earlier instant. Throws RangeError on bad input. */
export function zonedToInstant(local: LocalDateTime, tz: string): Date {
  const f = requireLocal(local);
  return new Date(wallToInstant(requireZone(tz), fieldsToMs(f.y, f.m, f.d, f.h, f.i, f.s)));
}

/** TEC's `*_date_details` object for a LocalDateTime; throws RangeError on malformed input. */
export function dateDetails(local: LocalDateTime): DateDetails {
  requireLocal(local);
  return {
    year: local.slice(0, 4),
    month: local.slice(5, 7),
    day: local.slice(8, 10),
    hour: local.slice(11, 13),
    minutes: local.slice(14, 16),
    seconds: local.slice(17, 19),
  };
}

/** UTC offset of `tz` at `instant` in hours, e.g. 2, -4 or 5.5. */
export function gmtOffsetHours(tz: string, instant: Date): number {
  return offsetAt(requireZone(tz), instant.getTime()) / HOUR_MS;
}

// tzdata abbreviations (what PHP's "T" prints) that no English ICU locale yields; [standard, dst].
// An empty entry forces PHP's numeric form where ICU offers a name tzdata does not use.
const ABBR_OVERRIDES: Record<string, readonly string[]> = {};
for (const [abbrs, zones] of [
  ['HST HDT', 'America/Adak America/Atka US/Aleutian'],
  ['CST CDT', 'America/Havana Cuba'],
  ['MST', 'America/Dawson America/Whitehorse America/Hermosillo America/Mazatlan Canada/Yukon Mexico/BajaSur'],
  ['WIB', 'Asia/Jakarta Asia/Pontianak'],
  ['WITA', 'Asia/Makassar Asia/Ujung_Pandang'],
  ['WIT', 'Asia/Jayapura'],
  ['IST IDT', 'Asia/Jerusalem Asia/Tel_Aviv Israel'],
  ['PKT', 'Asia/Karachi'],
  ['CST', 'Asia/Shanghai Asia/Chongqing Asia/Chungking Asia/Harbin Asia/Macau Asia/Macao Asia/Taipei PRC ROC'],
  ['PST', 'Asia/Manila'],
  ['KST', 'Asia/Seoul Asia/Pyongyang ROK'],
  ['JST', 'Asia/Tokyo Japan'],
  ['GMT BST', 'Europe/Guernsey Europe/Isle_of_Man Europe/Jersey'],
  ['MSK', 'Europe/Moscow Europe/Kirov Europe/Simferopol Europe/Volgograd W-SU'],
  ['ChST', 'Pacific/Guam Pacific/Saipan'],
  ['SST', 'Pacific/Midway Pacific/Pago_Pago Pacific/Samoa US/Samoa'],
  ['GMT', 'GMT Etc/GMT Etc/GMT0 Etc/GMT+0 Etc/GMT-0 GMT0 GMT+0 GMT-0 Greenwich Etc/Greenwich'],
  ['', 'Antarctica/Casey Antarctica/Troll Asia/Colombo'],
] as const) {
  for (const z of zones.split(' ')) ABBR_OVERRIDES[z.toLowerCase()] = abbrs ? abbrs.split(' ') : [];
}
// Names some English locales print that tzdata (hence PHP) does not use.
const ICU_ONLY = new Set(['HAST', 'HADT', 'GYT', 'PMST', 'PMDT', 'GST', 'MYT', 'SGT', 'ACWST', 'LHDT', 'LHST', 'CHADT', 'CHAST']);
// ICU only prints a metazone's short name in locales where it is commonly used, so ask several.
const ABBR_LOCALES = ['en-US', 'en-GB', 'en-IE', 'en-IN', 'en-AU', 'en-ZA', 'en-HK', 'en-CA', 'en-NZ'];
const abbrFormatters = new Map<string, Intl.DateTimeFormat>();
const abbrCache = new Map<string, string>();

function icuAbbreviation(id: string, ms: number): string | null {
  for (const locale of ABBR_LOCALES) {
    const key = `${locale}|${id}`;
    let fmt = abbrFormatters.get(key);
    if (!fmt) abbrFormatters.set(key, (fmt = new Intl.DateTimeFormat(locale, { timeZone: id, timeZoneName: 'short' })));
    const name = fmt.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (/^[A-Za-z]{2,6}$/.test(name) && !ICU_ONLY.has(name)) return name;
  }
  return null;
}

/** PHP's `format('T')` for `tz` at `instant`: 'EST', 'EEST', 'IST', 'UTC'; '+03' / '+0530' where tzdata has no name; '+02:00' for fixed offsets. */
export function tzAbbreviation(tz: string, instant: Date): string {
  const zone = requireZone(tz);
  if (zone.kind === 'fixed') return zone.abbr;
  const ms = instant.getTime();
  const offset = offsetAt(zone, ms);
  // Within one zone the abbreviation follows the offset (standard vs DST), so cache on that pair.
  const key = `${zone.id}|${offset}`;
  const cached = abbrCache.get(key);
  if (cached !== undefined) return cached;
  const override = ABBR_OVERRIDES[zone.id.toLowerCase()] ?? ABBR_OVERRIDES[tz.toLowerCase()];
  let abbr: string | null = null;
  if (override && override.length > 0) {
    const year = msToFields(ms).y;
    const standard = Math.min(offsetAt(zone, fieldsToMs(year, 1, 1)), offsetAt(zone, fieldsToMs(year, 7, 1)));
    abbr = override[offset > standard && override.length > 1 ? 1 : 0];
  } else if (!override) {
    abbr = icuAbbreviation(zone.id, ms);
  }
  if (abbr === null) {
    const minutes = Math.round(Math.abs(offset) / 60_000);
    abbr = `${offset < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}${minutes % 60 ? pad(minutes % 60) : ''}`;
  }
  if (abbrCache.size > 5000) abbrCache.clear();
  abbrCache.set(key, abbr);
  return abbr;
}

// ---------------------------------------------------------------------------------------------
// Day arithmetic on LocalDateTime

/** 00:00:00 of the day of `local`. */
export function beginningOfDay(local: LocalDateTime): LocalDateTime {
  requireLocal(local);
  return `${local.slice(0, 10)} 00:00:00`;
}

/** 23:59:59 of the day of `local`. */
export function endOfDay(local: LocalDateTime): LocalDateTime {
  requireLocal(local);
  return `${local.slice(0, 10)} 23:59:59`;
}

/** `local` plus `months` (may be negative) with PHP overflow: 2026-01-31 +1 month = 2026-03-03. */
export function addMonths(local: LocalDateTime, months: number): LocalDateTime {
  const f = requireLocal(local);
  if (!Number.isInteger(months)) throw new RangeError('months must be an integer');
  const ms = fieldsToMs(f.y, f.m + months, f.d, f.h, f.i, f.s);
  if (!(ms >= MIN_MS && ms <= MAX_MS)) throw new RangeError('Result out of range');
  return formatFields(msToFields(ms));
}

/** `local` plus `days` (may be negative), calendar days. */
export function addDays(local: LocalDateTime, days: number): LocalDateTime {
  const f = requireLocal(local);
  if (!Number.isInteger(days)) throw new RangeError('days must be an integer');
  const ms = fieldsToMs(f.y, f.m, f.d + days, f.h, f.i, f.s);
  if (!(ms >= MIN_MS && ms <= MAX_MS)) throw new RangeError('Result out of range');
  return formatFields(msToFields(ms));
}

// ---------------------------------------------------------------------------------------------
// parseDateInput: a subset of PHP strtotime that follows timelib's token semantics (word order,
// time resets, weekday rules). Anything outside the subset is rejected rather than guessed at.

interface Parsed {
  y?: number;
  m?: number;
  d?: number;
  h?: number;
  i?: number;
  s?: number;
  ms?: number;
  haveDate: boolean;
  haveTime: boolean;
  tokens: number;
  zone?: Zone;
  rel: { y: number; m: number; d: number; h: number; i: number; s: number };
  weekday?: number;
  weekdayBehavior: number;
}

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const WEEKDAYS = 'sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wed|thurs|thur|thu|fri|sat';
const UNITS = 'seconds|second|secs|sec|minutes|minute|mins|min|hours|hour|days|day|weeks|week|fortnights|fortnight|months|month|years|year';
const monthNo = (word: string): number => 'janfebmaraprmayjunjulaugsepoctnovdec'.indexOf(word.slice(0, 3)) / 3 + 1;
const weekdayNo = (word: string): number => ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].indexOf(word.slice(0, 3));
const UNIT_WORD = new RegExp(`^(?:${UNITS})$`);
const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

function setDate(p: Parsed, y: number | undefined, m: number, d: number): boolean {
  if (p.haveDate || m < 1 || m > 12 || d < 1 || d > 31 || (y !== undefined && y < 1)) return false;
  Object.assign(p, { haveDate: true, y, m, d });
  return true;
}

function setTime(p: Parsed, h: number, i: number, s: number, ms: number): boolean {
  if (p.haveTime || h > 24 || i > 59 || s > 59 || (h === 24 && i + s + ms > 0)) return false;
  Object.assign(p, { haveTime: true, h, i, s, ms });
  return true;
}

// timelib's TIMELIB_UNHAVE_TIME: words like 'today', 'tomorrow', 'monday' zero the time, even one
// parsed earlier ('9am tomorrow' is midnight in PHP; 'tomorrow 9am' is 09:00).
function unhaveTime(p: Parsed): void {
  Object.assign(p, { haveTime: false, h: 0, i: 0, s: 0, ms: 0 });
}

function setZone(p: Parsed, zone: Zone | null): boolean {
  if (p.zone || !zone) return false;
  p.zone = zone;
  return true;
}

function addRelative(p: Parsed, amount: number, unit: string): boolean {
  const u = unit.slice(0, 3);
  if (u === 'sec') p.rel.s += amount;
  else if (u === 'min') p.rel.i += amount;
  else if (u === 'hou') p.rel.h += amount;
  else if (u === 'day') p.rel.d += amount;
  else if (u === 'wee') p.rel.d += 7 * amount;
  else if (u === 'for') p.rel.d += 14 * amount;
  else if (u === 'mon') p.rel.m += amount;
  else p.rel.y += amount;
  return true;
}

type Rule = readonly [RegExp, (r: RegExpExecArray, p: Parsed) => boolean];
const re = (source: string): RegExp => new RegExp(source, 'y');

// Order matters: the first rule matching at the cursor wins, so longer forms come first.
const RULES: readonly Rule[] = [
  // 2026-01-05, optionally followed by ISO 'T' and a time
  [re('(\\d{4})-(\\d\\d?)-(\\d\\d?)(?!\\d)(?:t(?=\\d))?'), (r, p) => setDate(p, +r[1], +r[2], +r[3])],
  [re('(\\d{4})/(\\d\\d?)/(\\d\\d?)(?!\\d)'), (r, p) => setDate(p, +r[1], +r[2], +r[3])],
  // 05.01.2026 / 05-01-2026 (day first), 01/05/2026 and 01/05 (American, month first)
  [re('(\\d\\d?)[.-](\\d\\d?)[.-](\\d{4})(?!\\d)'), (r, p) => setDate(p, +r[3], +r[2], +r[1])],
  [re('(\\d\\d?)/(\\d\\d?)(?:/(\\d{4}))?(?![\\d/])'), (r, p) => setDate(p, num(r[3]), +r[1], +r[2])],
  // +1 day, -2 weeks, 3 months
  [re(`([+-]?)(\\d{1,9}) ?(${UNITS})(?![a-z])`), (r, p) => addRelative(p, (r[1] === '-' ? -1 : 1) * +r[2], r[3])],
  // January 5 2026, Jan 5th, 2026, Jan 2026 (day 1)
  [
    re(`(${MONTHS})\\.?(?![a-z])(?:[ .-]*(\\d\\d?)(?:st|nd|rd|th)?(?![\\d:a-z]))?(?:[ ,.-]+(\\d{4})(?![\\d:]))?`),
    (r, p) => (r[2] !== undefined || r[3] !== undefined) && setDate(p, num(r[3]), monthNo(r[1]), num(r[2]) ?? 1),
  ],
  // 5 Jan 2026, 5th January, 05-jan-2026
  [
    re(`(\\d\\d?)(?:st|nd|rd|th)?[ .-]*(${MONTHS})\\.?(?![a-z])(?:[ ,.-]*(\\d{4})(?![\\d:]))?`),
    (r, p) => setDate(p, num(r[3]), monthNo(r[2]), +r[1]),
  ],
  // 9am, 9 pm, 9:30pm, 9.30 p.m., 11:15:30 am
  [
    re('(\\d\\d?)(?:[:.](\\d\\d)(?:[:.](\\d\\d))?)? ?([ap])\\.?m\\.?(?![a-z])'),
    (r, p) => {
      const h = +r[1];
      return h >= 1 && h <= 12 && setTime(p, (h % 12) + (r[4] === 'p' ? 12 : 0), num(r[2]) ?? 0, num(r[3]) ?? 0, 0);
    },
  ],
  // 14:00, 14:00:05, 14:00:05.123456
  [
    re('(\\d\\d?):(\\d\\d)(?::(\\d\\d)(?:[.,](\\d+))?)?(?!\\d)'),
    (r, p) => setTime(p, +r[1], +r[2], num(r[3]) ?? 0, r[4] ? Math.floor(Number(`0.${r[4]}`) * 1000) : 0),
  ],
  // Zones: Z, UTC, GMT+2, +02:00, -0530, America/New_York
  [re('z(?![a-z])'), (_r, p) => setZone(p, parseFixedZone('UTC'))],
  [re('(?:utc|gmt)(?![a-z])(?:[+-]\\d\\d?(?::?\\d\\d)?(?![\\d:]))?'), (r, p) => setZone(p, parseFixedZone(r[0]))],
  [re('[+-]\\d\\d?(?::?\\d\\d)?(?![\\d:])'), (r, p) => setZone(p, parseFixedZone(r[0]))],
  [re('[a-z]+(?:/[a-z0-9_+-]+)+'), (r, p) => setZone(p, lookupZone(r[0]))],
  [
    re('(now|today|midnight|noon|tomorrow|yesterday)(?![a-z])'),
    (r, p) => {
      if (r[1] === 'now') return true;
      unhaveTime(p);
      if (r[1] === 'noon') Object.assign(p, { haveTime: true, h: 12 });
      // PHP assigns (not adds) the day for these two words.
      if (r[1] === 'tomorrow') p.rel.d = 1;
      if (r[1] === 'yesterday') p.rel.d = -1;
      return true;
    },
  ],
  // next monday, last friday, this sunday, next week, last month
  [
    re(`(next|last|previous|this) (${UNITS}|${WEEKDAYS})(?![a-z])`),
    (r, p) => {
      const amount = r[1] === 'next' ? 1 : r[1] === 'this' ? 0 : -1;
      const weekday = weekdayNo(r[2]);
      // 'sec'/'mon' are both units and weekday prefixes; UNITS wins only on a full unit word.
      if (weekday >= 0 && !UNIT_WORD.test(r[2])) {
        unhaveTime(p);
        p.rel.d += (amount > 0 ? amount - 1 : amount) * 7;
        p.weekday = weekday;
        p.weekdayBehavior = amount === 0 ? 1 : 0;
        return true;
      }
      addRelative(p, amount, r[2]);
      if (r[2].startsWith('week')) {
        // timelib "relativetextweek": the week is the ISO week (Mon-Sun); alone it means its Monday.
        p.weekdayBehavior = 2;
        p.weekday ??= 1;
      }
      return true;
    },
  ],
  [
    re(`(${WEEKDAYS})\\.?(?![a-z])`),
    (r, p) => {
      unhaveTime(p);
      p.weekday = weekdayNo(r[1]);
      if (p.weekdayBehavior !== 2) p.weekdayBehavior = 1;
      return true;
    },
  ],
  [
    re('ago(?![a-z])'),
    (_r, p) => {
      if (p.weekday !== undefined) return false;
      for (const k of ['y', 'm', 'd', 'h', 'i', 's'] as const) p.rel[k] = -p.rel[k];
      return true;
    },
  ],
];

function fromTimestamp(seconds: number): Date | null {
  const ms = Math.round(seconds * 1000);
  return ms >= MIN_MS && ms <= MAX_MS ? new Date(ms) : null;
}

function tokenize(str: string): Parsed | null {
  const p: Parsed = { haveDate: false, haveTime: false, tokens: 0, rel: { y: 0, m: 0, d: 0, h: 0, i: 0, s: 0 }, weekdayBehavior: 0 };
  let pos = 0;
  scan: while (pos < str.length) {
    if (str[pos] === ' ' || str[pos] === ',') {
      pos++;
      continue;
    }
    for (const [pattern, apply] of RULES) {
      pattern.lastIndex = pos;
      const r = pattern.exec(str);
      if (!r || r[0] === '') continue;
      if (!apply(r, p)) return null;
      p.tokens++;
      pos = pattern.lastIndex;
      continue scan;
    }
    return null;
  }
  return p.tokens > 0 ? p : null;
}

function resolve(p: Parsed, zone: Zone, nowMs: number): Date | null {
  const nowFrac = ((nowMs % 1000) + 1000) % 1000;
  const now = msToFields(nowMs + offsetAt(zone, nowMs));
  const y = p.y ?? now.y;
  const m = p.m ?? now.m;
  let d = p.d ?? now.d;
  // PHP rolls 2026-02-30 over to March 2; rejecting it is our documented choice.
  if (p.d !== undefined && p.d > daysInMonth(y, m)) return null;
  // A date without a time means midnight; no date and no time keeps the current time.
  const [h, i, s, ms] = p.h !== undefined ? [p.h, p.i ?? 0, p.s ?? 0, p.ms ?? 0] : p.haveDate ? [0, 0, 0, 0] : [now.h, now.i, now.s, nowFrac];
  if (p.weekday !== undefined) {
    // timelib do_adjust_for_weekday, applied before the relative offsets
    const dow = new Date(fieldsToMs(y, m, d)).getUTCDay();
    let target = p.weekday;
    if (p.weekdayBehavior === 2) {
      if (dow === 0 && target !== 0) target -= 7;
      if (target === 0 && dow !== 0) target = 7;
      d += target - dow;
    } else {
      let diff = target - dow;
      if ((p.rel.d < 0 && diff < 0) || (p.rel.d >= 0 && diff <= -p.weekdayBehavior)) diff += 7;
      d += diff;
    }
  }
  // Calendar units move the wall clock (with PHP month overflow); h/min/s are elapsed time.
  const wall = fieldsToMs(y + p.rel.y, m + p.rel.m, d + p.rel.d, h, i, s);
  if (!(wall >= MIN_MS - DAY_MS && wall <= MAX_MS + DAY_MS)) return null;
  const target = p.zone ?? zone;
  const w = msToFields(wall);
  const isNow = target === zone && w.y === now.y && w.m === now.m && w.d === now.d && w.h === now.h && w.i === now.i && w.s === now.s;
  // Unchanged wall time is "now" itself, which matters inside a DST overlap.
  const base = isNow ? nowMs - nowFrac + ms : wallToInstant(target, wall) + ms;
  const result = base + p.rel.h * HOUR_MS + p.rel.i * 60_000 + p.rel.s * 1000;
  return result >= MIN_MS && result <= MAX_MS ? new Date(result) : null;
}

/**
 * A careful subset of PHP `strtotime`, read in `tz` unless the string names a zone. Numbers and
 * numeric strings are unix timestamps (as TEC treats them). Accepts ISO dates and date-times
 * ('2026-01-05', '2026-01-05 14:00[:00]', '2026-01-05T14:00:00.5Z', '...+02:00'), '2026/01/05',
 * '05.01.2026', '01/05/2026', month names ('January 5 2026', '5 Jan 2026', 'Jan 5, 2026 9:30pm'),
 * times ('9am', '9:30 pm', '14:00'), 'now' 'today' 'midnight' 'noon' 'tomorrow' 'yesterday',
 * relative offsets ('+1 day', '-2 weeks', '+3 months 2 hours', '3 days ago'), weekdays ('monday',
 * 'next monday', 'last friday', 'monday next week'). Returns null for anything else, for impossible
 * dates ('2026-02-30': PHP would roll it over) and for results outside years 1-9999. Never throws.
 */
export function parseDateInput(input: string | number, tz: string, now: Date): Date | null {
  try {
    const zone = lookupZone(tz);
    const nowMs = now instanceof Date ? now.getTime() : NaN;
    if (!zone || !Number.isFinite(nowMs)) return null;
    if (typeof input === 'number') return Number.isFinite(input) ? fromTimestamp(input) : null;
    if (typeof input !== 'string') return null;
    const str = input.replace(/\s+/g, ' ').trim().toLowerCase();
    if (str === '' || str.length > 200 || /[^\x20-\x7e]/.test(str)) return null;
    const stamp = /^@?([+-]?\d+(?:\.\d+)?)$/.exec(str);
    if (stamp) return fromTimestamp(Number(stamp[1]));
    const parsed = tokenize(str);
    return parsed ? resolve(parsed, zone, nowMs) : null;
  } catch {
    return null;
  }
}
