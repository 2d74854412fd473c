import { countAttendees, searchAttendees } from '../store/attendees.ts';
import type { AttendeeRow } from '../store/db.ts';
import type { KioskContext } from './context.ts';
import { byId, el } from './dom.ts';
import { formatClock, formatTime, refusalText } from './i18n.ts';
import { doorName } from './verdict-text.ts';
import type { DoorNames } from './names.ts';

/** The staff tools close (and lock) after this long without a touch or a key. */
const STAFF_IDLE_MS = 120_000;

export interface StaffActions {
  /** Check-in or check-out by hand; a check-out asks first (`name` is shown in the question). */
  manual(attendeeId: number, checkIn: boolean, name: string): Promise<void>;
  repair(): void;
  unpair(): Promise<void>;
}

/**
 * Search, manual check-in/out, counts, and the conflicts and refused lists: the staff tools, opened only
 * with the supervisor PIN (the app asks). Closing them, or two minutes untouched, locks them again. E-mails
 * appear only here.
 */
export class StaffPanel {
  private readonly root = byId('staff-panel');
  private readonly search = byId<HTMLInputElement>('search');
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private refreshTimer: ReturnType<typeof setInterval> | null = null;

  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ctx: KioskContext,
    private readonly actions: StaffActions,
    private readonly names: DoorNames,
  ) {
    for (const type of ['pointerdown', 'keydown', 'input']) this.root.addEventListener(type, () => this.touch());
    byId('staff-lock').addEventListener('click', () => this.toggle(false));
    this.search.addEventListener('input', () => {
      if (this.searchTimer) clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => void this.runSearch(), 150);
    });
    byId('sync-now').addEventListener('click', () => void this.syncNow());
    byId('repair').addEventListener('click', () => actions.repair());
    byId('unpair').addEventListener('click', () => void actions.unpair());
    ctx.engine.events.on((e) => {
      if (!this.root.hidden && (e.type === 'failure' || (e.type === 'status' && !e.status.running))) void this.refresh();
    });
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  toggle(show = this.root.hidden): void {
    this.root.hidden = !show;
    document.body.dataset.staff = String(show);
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    if (!show) {
      // Locked again: nothing found stays on screen for the next person.
      this.search.value = '';
      byId('results').replaceChildren();
      byId('sync-result').hidden = true;
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (show) {
      this.touch();
      void this.refresh();
      this.refreshTimer = setInterval(() => void this.refresh(), 5000);
      this.search.focus();
    }
  }

  async refresh(): Promise<void> {
    const { db, deviceId, t, lang } = this.ctx;
    const counts = await countAttendees(db, deviceId, Date.now());
    byId('count-in').textContent = String(counts.checkedIn);
    byId('count-total').textContent = String(counts.total);
    byId('count-device').textContent = String(counts.thisDevice);
    byId('count-hour').textContent = String(counts.lastHour);
    const conflicts = await db.conflicts.orderBy('id').reverse().limit(50).toArray();
    const cl = byId('conflicts');
    cl.replaceChildren(
      ...(conflicts.length
        ? conflicts.map((c) =>
            el(
              'li',
              t('conflicts.row', {
                name: c.name || `#${c.attendeeId}`,
                ours: formatTime(lang, c.ourScanIso),
                ourDevice: t('device.thisKiosk'),
                theirs: formatTime(lang, c.theirDate),
                theirDevice:
                  doorName(t, c.theirDeviceLabel, c.theirDevice, { deviceName: (id) => this.names.deviceName(id, t('device.thisKiosk')) }) ??
                  t('unknown.device'),
              }),
            ),
          )
        : [el('li', t('conflicts.none'))]),
    );
    const rejected = await db.rejected.orderBy('id').reverse().limit(50).toArray();
    // The key itself refused: the first thing this list says, above any scan the server turned down.
    const key = this.ctx.engine.status.problems.find((p) => p.kind === 'revoked' || p.kind === 'wrong_event');
    const pending = this.ctx.engine.status.pending;
    const keyRow = key
      ? [
          el(
            'li',
            [
              t(key.kind === 'revoked' ? 'rejected.keyRefused' : 'rejected.keyWrongEvent', {
                time: formatTime(lang, new Date(key.since).toISOString()),
              }),
              ...(pending > 0 ? [t('rejected.kept', { n: pending })] : []),
            ].join(' '),
            'key-refused',
          ),
        ]
      : [];
    byId('rejected').replaceChildren(
      ...keyRow,
      ...(rejected.length
        ? rejected.map((r) =>
            el('li', t('rejected.row', { name: r.name || `#${r.attendeeId}`, time: formatTime(lang, r.scanIso), message: refusalText(t, r.code) })),
          )
        : keyRow.length
          ? []
          : [el('li', t('rejected.none'))]),
    );
    if (this.search.value.trim()) await this.runSearch();
  }

  /** "Sync now", with its outcome said next to the button: done, key refused, or no connection. */
  private async syncNow(): Promise<void> {
    const { t, lang, engine } = this.ctx;
    const out = byId('sync-result');
    const button = byId<HTMLButtonElement>('sync-now');
    out.hidden = false;
    out.dataset.result = 'running';
    out.textContent = t('status.syncing');
    button.disabled = true;
    try {
      await engine.syncNow({ refreshEvent: true, recheck: true });
    } finally {
      button.disabled = false;
    }
    const s = engine.status;
    const key = s.problems.find((p) => p.kind === 'revoked' || p.kind === 'wrong_event');
    const result = key ? key.kind : !s.online ? 'offline' : 'done';
    out.dataset.result = result;
    out.textContent =
      result === 'revoked'
        ? t('sync.refused')
        : result === 'wrong_event'
          ? t('sync.wrongEvent')
          : result === 'offline'
            ? t('sync.offline', { message: s.lastError ?? '?' })
            : t('sync.done', { time: formatClock(lang, Date.now()) });
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = this.root.hidden ? null : setTimeout(() => this.toggle(false), STAFF_IDLE_MS);
  }

  private async runSearch(): Promise<void> {
    const rows = await searchAttendees(this.ctx.db, this.search.value);
    const list = byId('results');
    if (rows.length === 0 && this.search.value.trim()) {
      list.replaceChildren(el('li', this.ctx.t('staff.noResults')));
      return;
    }
    list.replaceChildren(...rows.map((r) => this.resultRow(r)));
  }

  private resultRow(r: AttendeeRow): HTMLLIElement {
    const { t, lang } = this.ctx;
    const li = el('li');
    li.dataset.attendee = String(r.id);
    const who = el('div', '', 'who');
    const ticket = r.ticketTitle ? this.names.ticketTitle(r.ticketTitle, lang) : '';
    who.append(el('strong', r.name || r.email), el('small', `#${r.id} · ${r.email} · ${ticket}`, 'who-detail'));
    const state =
      r.status === 'trash'
        ? t('staff.trashed')
        : r.checkedIn
          ? t('staff.checkedIn', { time: formatTime(lang, r.checkinDate) })
          : t('staff.notCheckedIn');
    who.append(el('small', state));
    const button = el('button', r.checkedIn ? t('button.checkOut') : t('button.checkIn'));
    button.type = 'button';
    button.disabled = r.status === 'trash';
    button.addEventListener('click', async () => {
      button.disabled = true;
      await this.actions.manual(r.id, r.checkedIn === 0, r.name || `#${r.id}`);
      button.disabled = false;
      await this.runSearch();
    });
    li.append(who, button);
    return li;
  }
}
