import type { Lang } from '../../shared/lang.ts';
import type { KioskDb } from '../store/db.ts';
import { getDoorLabels } from '../store/meta.ts';

/**
 * Names the door shows instead of IDs, kept in memory so the verdict path reads nothing from storage:
 * ticket titles in the kiosk's language (the cache holds them in the pairing URL's language), and other
 * doors by their key's label ("Door 2"), learned from the server's conflict answers.
 */
export class DoorNames {
  private titles = new Map<string, Partial<Record<Lang, string>>>();
  private labels = new Map<string, string>();

  constructor(
    private readonly db: KioskDb,
    private readonly ownDeviceId: string,
  ) {}

  /** Reloads both from the cache (after a download, a conflict, a pairing). */
  async load(): Promise<void> {
    const [tickets, conflicts, doors] = await Promise.all([this.db.tickets.toArray(), this.db.conflicts.toArray(), getDoorLabels(this.db)]);
    const titles = new Map<string, Partial<Record<Lang, string>>>();
    for (const ticket of tickets) {
      const all = { ...(ticket.titles ?? {}) };
      for (const known of [ticket.title, ...Object.values(all)]) if (known && !titles.has(known)) titles.set(known, all);
    }
    this.titles = titles;
    for (const [id, label] of Object.entries(doors)) this.labels.set(id, label);
    for (const c of conflicts) if (c.theirDevice && c.theirDeviceLabel) this.labels.set(c.theirDevice, c.theirDeviceLabel);
  }

  learnLabel(deviceId: string | null | undefined, label: string | null | undefined): void {
    if (deviceId && label) this.labels.set(deviceId, label);
  }

  ticketTitle(title: string, lang: Lang): string {
    return this.titles.get(title)?.[lang] || title;
  }

  /** `null` for a device this kiosk has no name for (the caller says "another door"). */
  deviceName(deviceId: string, thisKiosk: string): string | null {
    if (deviceId === this.ownDeviceId) return thisKiosk;
    return this.labels.get(deviceId) ?? null;
  }
}
