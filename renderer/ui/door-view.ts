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
 * The door's main screen around the camera: big counters (checked in, expected, inside), the last five
 * scans, and the newest conflict this kiosk lost (with a badge counting them all). Refreshed after each
 * verdict and each sync, never on the verdict's own path.
 */
export class DoorView {
  private refreshing: Promise<void> | null = null;
  private again = false;
  private newestConflict: number | null = null;
  /** Attendees checked out at this door, from the scans read so far (the log only grows: read once each). */
  private readonly left = new Set<number>();
  private scansRead = 0;

  constructor(
    private readonly ctx: KioskContext,
    private readonly names: DoorNames,
  ) {
    ctx.engine.events.on((e) => {
      if ((e.type === 'status' && !e.status.running) || e.type === 'failure' || e.type === 'ready') this.refresh();
    });
    byId('conflict-dismiss').addEventListener('click', () => void this.dismiss());
    // Ages and counts from other doors; never while a download is writing (each refresh would re-read it all).
    setInterval(() => {
      if (!ctx.engine.status.running) void this.refresh();
    }, 10_000);
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
    const [counts, recent, newScans, conflicts, conflictCount, seen] = await Promise.all([
      countAttendees(db, deviceId, Date.now()),
      db.scans.orderBy('id').reverse().limit(RECENT).toArray(),
      db.scans.where(':id').above(this.scansRead).toArray(),
      db.conflicts.orderBy('id').reverse().limit(1).toArray(),
      db.conflicts.count(),
      db.meta.get(SEEN_KEY),
    ]);
    // Checked out here and not back in: they count as checked in (they came), not as inside. Only scans
    // not read before are read (a scan's verdict is only ever rewritten away from checked_out, and the
    // attendee's row below decides whether they are still out).
    for (const s of newScans) {
      if (s.id !== undefined && s.id > this.scansRead) this.scansRead = s.id;
      if (s.verdict === 'checked_out' && s.attendeeId !== null) this.left.add(s.attendeeId);
    }
    const rows = await Promise.all([...this.left].map((id) => getAttendee(db, id)));
    const outNow = rows.filter((r) => r && r.checkedIn === 0 && r.status !== 'trash').length;
    setCount('c-checked-in', counts.checkedIn + outNow);
    setCount('c-expected', counts.total);
    setCount('c-inside', counts.checkedIn);

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

  /** Staff saw the conflict line: it stays in the staff tools' list and the badge. */
  private async dismiss(): Promise<void> {
    if (this.newestConflict !== null) await this.ctx.db.meta.put({ key: SEEN_KEY, value: this.newestConflict });
    byId('conflict-line').hidden = true;
  }
}

function setCount(id: string, n: number): void {
  const node = byId(id);
  node.textContent = n.toLocaleString('en-US').replace(/,/g, '\u202f');
  node.dataset.value = String(n);
}
