import { gateCounts, loadGate } from '../checkin/gate.ts';
import { countAttendees, getAttendee } from '../store/attendees.ts';
import type { ConflictRow } from '../store/db.ts';
import type { KioskContext } from './context.ts';
import { conflictLine, recentScan } from './door-text.ts';
import { byId, el } from './dom.ts';
import type { DoorNames } from './names.ts';
import { doorName, TONE_ICON } from './verdict-text.ts';

const RECENT = 5;
const SEEN_KEY = 'conflictsSeen';

/**
 * The door's main screen around the camera: big counters (checked in now, expected, still to come), the last five
 * scans, and the newest conflict this kiosk lost (with a badge counting them all). Refreshed after each
 * verdict and each sync, never on the verdict's own path.
 */
/** How soon {@link DoorView.refreshSoon} refreshes. */
const REFRESH_SOON_MS = 750;

export class DoorView {
  private refreshing: Promise<void> | null = null;
  private again = false;
  private newestConflict: number | null = null;

  constructor(
    private readonly ctx: KioskContext,
    private readonly names: DoorNames,
  ) {
    ctx.engine.events.on((e) => {
      if (e.type === 'ready') void this.refresh();
      else if ((e.type === 'status' && !e.status.running) || e.type === 'failure') this.refreshSoon();
    });
    byId('conflict-dismiss').addEventListener('click', () => void this.dismiss());
    // Ages and counts from other doors; never while a download is writing (each refresh would re-read it all).
    setInterval(() => {
      if (!ctx.engine.status.running) void this.refresh();
    }, 10_000);
  }

  private soon: ReturnType<typeof setTimeout> | null = null;

  /**
   * A refresh within REFRESH_SOON_MS, one for every ask meanwhile: what each verdict and each status change asks
   * for. A verdict covers these counters for a few seconds anyway, and a refresh made at once ran into the next
   * guest's scan (its reads, and the transactions the scan's write on `attendees` waited behind: the first scans
   * after start, and spikes, in the bench's page profiles); during a rush it now runs about once a second, not
   * two or three times a scan.
   */
  refreshSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.refresh();
    }, REFRESH_SOON_MS);
  }

  /** Re-reads counters, recent scans and conflicts; calls during a refresh run it once more after. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.again = false;
          await this.render();
        } while (this.again);
      } catch (err) {
        console.error('door view refresh failed', err);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private async render(): Promise<void> {
    const { db, deviceId, t, lang } = this.ctx;
    const paired = this.ctx.settings.current !== null;
    byId('door').dataset.paired = String(paired);
    const [counts, recent, conflicts, conflictCount, seen] = await Promise.all([
      countAttendees(db, deviceId, Date.now()),
      db.scans.orderBy('id').reverse().limit(RECENT).toArray(),
      db.conflicts.orderBy('id').reverse().limit(1).toArray(),
      db.conflicts.count(),
      db.meta.get(SEEN_KEY),
    ]);
    // The server's meaning (checked in now: a guest checked out no longer counts, wherever it happened), with
    // this kiosk's scans not uploaded yet already in the cache's rows.
    const pending = this.ctx.engine.status.pending;
    setCount('c-checked-in', counts.checkedIn);
    setCount('c-expected', counts.total);
    setCount('c-to-come', Math.max(0, counts.total - counts.checkedIn));
    byId('c-checked-in-note').textContent = pending > 0 ? t('door.checkedInNotePending', { n: pending }) : t('door.checkedInNote');
    byId('c-checked-in').parentElement!.title = t('door.checkedInWhy');
    byId('c-expected-note').textContent = t('door.expectedNote');
    byId('c-to-come-note').textContent = t('door.toComeNote');
    await this.renderGate(pending);
    byId('scan-hint').textContent = paired ? t('scan.hint') : t('pair.scanHint');

    const names = await Promise.all(recent.map((s) => (s.attendeeId === null ? undefined : getAttendee(db, s.attendeeId))));
    const list = byId('recent-list');
    list.replaceChildren(
      ...(recent.length
        ? recent.map((s, i) => {
            const r = recentScan(s, names[i]?.name, t, lang);
            const li = el('li', '', `recent-row ${r.tone}`);
            li.dataset.verdict = r.verdict;
            const icon = TONE_ICON[r.tone];
            li.append(
              el('span', icon.glyph, `recent-icon shape-${icon.shape}`),
              el('span', r.who, 'recent-who'),
              el('span', r.label, 'recent-label'),
              el('time', r.time, 'recent-time'),
            );
            return li;
          })
        : [el('li', t('door.noScans'), 'recent-empty')]),
    );

    const badge = byId('conflict-badge');
    badge.hidden = conflictCount === 0;
    badge.dataset.count = String(conflictCount);
    badge.textContent = `! ${conflictCount === 1 ? t('conflict.badgeOne') : t('conflict.badge', { n: conflictCount })}`;
    const newest: ConflictRow | undefined = conflicts[0];
    const seenId = typeof seen?.value === 'number' ? seen.value : 0;
    const line = byId('conflict-line');
    this.newestConflict = newest?.id ?? null;
    line.hidden = !newest || (newest.id ?? 0) <= seenId;
    if (newest) {
      this.names.learnLabel(newest.theirDevice, newest.theirDeviceLabel);
      byId('conflict-text').textContent = conflictLine(
        newest,
        t,
        lang,
        (c) =>
          doorName(t, c.theirDeviceLabel, c.theirDevice, { deviceName: (id) => this.names.deviceName(id, t('device.thisKiosk')) }) ??
          t('device.otherDoor'),
      );
      line.dataset.first = newest.first ?? '';
    }
  }

  /**
   * A kiosk on a check-in list: the list's name, and its counts and the event's (the server's as of the last
   * sync, plus this kiosk's scans since); the big counters show the list's.
   */
  private async renderGate(pending: number): Promise<void> {
    const { db, t } = this.ctx;
    const gate = this.ctx.settings.current ? await loadGate(db) : null;
    const counts = gate ? await gateCounts(db, gate) : null;
    const box = byId('gate');
    box.hidden = gate === null;
    if (!gate) return;
    const list = gate.list.name;
    // An exit list's kiosk says so on its main screen: its scans are exits.
    byId('gate-name').textContent = gate.list.direction === 'exit' ? t('gate.exitName', { list }) : list;
    byId('gate-row-name').textContent = list;
    const cell = (id: string, n: number | undefined) => (n === undefined ? (byId(id).textContent = '–') : setCount(id, n));
    cell('g-list-checked-in', counts?.list.checkedIn);
    cell('g-list-inside', counts?.list.inside);
    cell('g-list-expected', counts?.list.expected);
    cell('g-event-checked-in', counts?.event.checkedIn);
    cell('g-event-inside', counts?.event.inside);
    cell('g-event-expected', counts?.event.expected);
    box.title = t('gate.countsWhy');
    if (!counts) return;
    setCount('c-checked-in', counts.list.checkedIn);
    setCount('c-expected', counts.list.expected);
    setCount('c-to-come', Math.max(0, counts.list.expected - counts.list.checkedIn));
    byId('c-checked-in-note').textContent = pending > 0 ? t('gate.countsPending', { list, n: pending }) : t('gate.countsNote', { list });
    byId('c-expected-note').textContent = t('gate.countsNote', { list });
    byId('c-to-come-note').textContent = t('gate.countsNote', { list });
    byId('c-checked-in').parentElement!.title = t('gate.countsWhy');
  }

  /** Staff saw the conflict line: it stays in the staff tools' list and the badge. */
  private async dismiss(): Promise<void> {
    if (this.newestConflict !== null) await this.ctx.db.meta.put({ key: SEEN_KEY, value: this.newestConflict });
    byId('conflict-line').hidden = true;
  }
}

/** Made once: `toLocaleString` may build a formatter per call, and the door's counters are set after every verdict. */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

function setCount(id: string, n: number): void {
  const node = byId(id);
  node.textContent = COUNT_FORMAT.format(n).replace(/,/g, '\u202f');
  node.dataset.value = String(n);
}
