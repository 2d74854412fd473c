import { parseCheckinDate } from '../store/attendees.ts';

export type Lang = 'en' | 'et';

const en = {
  'app.title': 'Doorstep door',
  'status.online': 'Online',
  'status.offline': 'Offline',
  'status.syncing': 'Syncing…',
  'status.pending': '{n} waiting to upload',
  'status.lastSync': 'Synced {age} ago',
  'status.neverSynced': 'Not synced yet',
  'status.cacheAge': 'List {age} old',
  'status.unauthorized': 'This device was refused: pair it again',
  'status.device': 'Device {id}',
  'button.staff': 'Staff',
  'button.close': 'Close',
  'button.syncNow': 'Sync now',
  'button.repair': 'Pair again',
  'button.unpair': 'Unpair',
  'button.checkIn': 'Check in',
  'button.checkOut': 'Check out',
  'button.pair': 'Pair',
  'camera.label': 'Camera',
  'camera.none': 'No camera: use the barcode scanner or the staff search',
  'camera.error': 'Camera not available: {message}',
  'scan.hint': 'Hold the ticket QR code up to the camera',
  'pair.title': 'Pair this door device',
  'pair.hint': 'Scan the pairing QR code, open the pairing link, or fill in the form.',
  'pair.url': 'Server address (interface root)',
  'pair.key': 'API key',
  'pair.event': 'Event ID',
  'pair.invalid': 'That is not a valid pairing code.',
  'pair.confirmElsewhere': '{n} scans are not uploaded yet. Pairing elsewhere sets them aside. Continue?',
  'pair.downloading': 'Downloading attendees: {loaded} of {total}',
  'pair.done': 'Paired. {total} attendees ready.',
  'verdict.admitted': 'Welcome',
  'verdict.already': 'Already checked in',
  'verdict.alreadyAt': 'at {time} on {device}',
  'verdict.alreadyAtUnknown': 'at {time}',
  'verdict.invalid': 'Not valid',
  'verdict.stale': 'Unknown ticket',
  'verdict.staleAge': 'The attendee list is {age} old: it may be a new ticket. Check by hand.',
  'verdict.staleNever': 'The attendee list is not downloaded yet.',
  'verdict.checkedOut': 'Checked out',
  'verdict.offline': 'decided offline',
  'reason.unreadable': 'Not a ticket code',
  'reason.unknown_ticket': 'Unknown ticket',
  'reason.other_event': 'Ticket for another event',
  'reason.wrong_security_code': 'Security code does not match',
  'reason.order_not_complete': 'Order not complete ({status})',
  'reason.revoked': 'Ticket revoked',
  'reason.refused': 'Refused: {message}',
  'staff.title': 'Staff tools',
  'staff.search': 'Search name, email or ticket number',
  'staff.noResults': 'No matches',
  'staff.checkedIn': 'checked in {time}',
  'staff.notCheckedIn': 'not checked in',
  'staff.trashed': 'revoked',
  'counts.checkedIn': 'Checked in',
  'counts.total': 'Total',
  'counts.thisDevice': 'This device',
  'counts.lastHour': 'Last hour',
  'conflicts.title': 'Conflicts (admitted on two devices)',
  'conflicts.none': 'No conflicts',
  'conflicts.row': '{name}: here {ours} on {ourDevice}; first {theirs} on {theirDevice}',
  'rejected.title': 'Refused by the server',
  'rejected.none': 'Nothing refused',
  'rejected.row': '{name} ({time}): {message}',
  'age.seconds': '{n} s',
  'age.minutes': '{n} min',
  'age.hours': '{n} h',
  'age.days': '{n} d',
  'unknown.device': 'an unknown device',
};

const et: Record<keyof typeof en, string> = {
  'app.title': 'Doorstep uks',
  'status.online': 'Võrgus',
  'status.offline': 'Võrguta',
  'status.syncing': 'Sünkroonin…',
  'status.pending': '{n} ootab üleslaadimist',
  'status.lastSync': 'Sünkroonitud {age} tagasi',
  'status.neverSynced': 'Pole veel sünkroonitud',
  'status.cacheAge': 'Nimekiri {age} vana',
  'status.unauthorized': 'Seade lükati tagasi: seo see uuesti',
  'status.device': 'Seade {id}',
  'button.staff': 'Töötaja',
  'button.close': 'Sulge',
  'button.syncNow': 'Sünkrooni kohe',
  'button.repair': 'Seo uuesti',
  'button.unpair': 'Eemalda sidumine',
  'button.checkIn': 'Registreeri',
  'button.checkOut': 'Tühista registreerimine',
  'button.pair': 'Seo',
  'camera.label': 'Kaamera',
  'camera.none': 'Kaamerat pole: kasuta vöötkoodilugejat või otsingut',
  'camera.error': 'Kaamera pole saadaval: {message}',
  'scan.hint': 'Näita pileti QR-koodi kaamerale',
  'pair.title': 'Seo see ukseseade',
  'pair.hint': 'Skaneeri sidumise QR-kood, ava sidumislink või täida vorm.',
  'pair.url': 'Serveri aadress (liidese juur)',
  'pair.key': 'API võti',
  'pair.event': 'Ürituse ID',
  'pair.invalid': 'See pole kehtiv sidumiskood.',
  'pair.confirmElsewhere': '{n} skaneeringut on veel üles laadimata. Mujale sidudes pannakse need kõrvale. Jätkata?',
  'pair.downloading': 'Laadin osalejaid: {loaded} / {total}',
  'pair.done': 'Seotud. {total} osalejat valmis.',
  'verdict.admitted': 'Tere tulemast',
  'verdict.already': 'Juba registreeritud',
  'verdict.alreadyAt': 'kell {time}, seade {device}',
  'verdict.alreadyAtUnknown': 'kell {time}',
  'verdict.invalid': 'Ei kehti',
  'verdict.stale': 'Tundmatu pilet',
  'verdict.staleAge': 'Osalejate nimekiri on {age} vana: see võib olla uus pilet. Kontrolli käsitsi.',
  'verdict.staleNever': 'Osalejate nimekiri pole veel alla laaditud.',
  'verdict.checkedOut': 'Registreerimine tühistatud',
  'verdict.offline': 'otsustatud võrguta',
  'reason.unreadable': 'See pole pileti kood',
  'reason.unknown_ticket': 'Tundmatu pilet',
  'reason.other_event': 'Pilet on teisele üritusele',
  'reason.wrong_security_code': 'Turvakood ei klapi',
  'reason.order_not_complete': 'Tellimus pole lõpetatud ({status})',
  'reason.revoked': 'Pilet on tühistatud',
  'reason.refused': 'Keeldutud: {message}',
  'staff.title': 'Töötaja tööriistad',
  'staff.search': 'Otsi nime, e-posti või pileti numbri järgi',
  'staff.noResults': 'Vasteid pole',
  'staff.checkedIn': 'registreeritud {time}',
  'staff.notCheckedIn': 'registreerimata',
  'staff.trashed': 'tühistatud',
  'counts.checkedIn': 'Registreeritud',
  'counts.total': 'Kokku',
  'counts.thisDevice': 'See seade',
  'counts.lastHour': 'Viimane tund',
  'conflicts.title': 'Konfliktid (lubatud kahes seadmes)',
  'conflicts.none': 'Konflikte pole',
  'conflicts.row': '{name}: siin {ours} seadmes {ourDevice}; esimesena {theirs} seadmes {theirDevice}',
  'rejected.title': 'Serveri poolt tagasi lükatud',
  'rejected.none': 'Midagi pole tagasi lükatud',
  'rejected.row': '{name} ({time}): {message}',
  'age.seconds': '{n} s',
  'age.minutes': '{n} min',
  'age.hours': '{n} h',
  'age.days': '{n} p',
  'unknown.device': 'tundmatus seadmes',
};

export type MessageKey = keyof typeof en;
const catalogs: Record<Lang, Record<MessageKey, string>> = { en, et };

/** A translator for one language; `{name}` placeholders are filled from `vars`. */
export function translator(lang: Lang) {
  const catalog = catalogs[lang];
  return (key: MessageKey, vars: Record<string, string | number> = {}): string =>
    catalog[key].replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
export type Translate = ReturnType<typeof translator>;

/** A duration in the largest whole unit ("3 min"). */
export function formatAge(t: Translate, ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return t('age.seconds', { n: s });
  if (s < 3600) return t('age.minutes', { n: Math.floor(s / 60) });
  if (s < 86_400) return t('age.hours', { n: Math.floor(s / 3600) });
  return t('age.days', { n: Math.floor(s / 86_400) });
}

/** A check-in time as the door shows it: the clock time, with the date only when it is not today. */
export function formatTime(lang: Lang, date: string | null, now = Date.now()): string {
  if (!date) return '?';
  const ms = parseCheckinDate(date);
  if (ms === null) return date;
  const d = new Date(ms);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  const locale = lang === 'et' ? 'et-EE' : 'en-GB';
  return sameDay
    ? d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString(locale, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}
