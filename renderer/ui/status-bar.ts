import type { KioskContext } from './context.ts';
import { byId } from './dom.ts';
import { formatAge, formatClock } from './i18n.ts';

/** How long "Paired with ...: N attendees ready" stays up. */
const READY_SHOWN_MS = 20_000;

/** Online/offline (or key refused), pending uploads, last sync and cache age; ages tick every second. */
export class StatusBar {
  private readyInfo: unknown = null;
  private readySince = 0;

  constructor(private readonly ctx: KioskContext) {
    ctx.engine.events.on((e) => {
      if (e.type === 'status') this.render();
    });
    setInterval(() => this.render(), 1000);
  }

  render(): void {
    const { t } = this.ctx;
    // The engine sets its status before it announces it, so this is always the newest.
    const s = this.ctx.engine.status;
    const paired = this.ctx.settings.current !== null;
    const net = byId('net');
    // A refused key is no "Online": the server answers, but takes nothing from this kiosk.
    const state = s.unauthorized ? 'refused' : s.online ? 'online' : 'offline';
    net.textContent = s.unauthorized ? t('status.refused') : s.running ? t('status.syncing') : s.online ? t('status.online') : t('status.offline');
    net.className = `pill ${state}`;
    net.dataset.state = state;
    net.hidden = !paired;
    const pending = byId('pending');
    pending.textContent = t('status.pending', { n: s.pending });
    pending.className = `pill ${s.pending > 0 ? 'has-pending' : ''}`;
    pending.dataset.count = String(s.pending);
    pending.hidden = !paired;
    const age = s.lastSyncAt === null ? null : formatAge(t, Date.now() - s.lastSyncAt);
    byId('last-sync').textContent = !paired ? '' : age === null ? t('status.neverSynced') : t('status.lastSync', { age });
    byId('cache-age').textContent = paired && age !== null ? t('status.cacheAge', { age }) : '';
    // A short name for this kiosk (the full ID is in the tooltip, for support), never a long hex string.
    const device = byId('device');
    device.textContent = t('status.deviceShort', { id: this.ctx.deviceId.replace(/^door-/, '').slice(-4) });
    device.title = t('status.device', { id: this.ctx.deviceId });
    device.dataset.deviceId = this.ctx.deviceId;
    // Machine-readable state for tests and monitoring of a kiosk fleet.
    const bar = byId('status-bar');
    bar.dataset.online = String(s.online);
    bar.dataset.ready = String(paired && s.ready);
    bar.dataset.lastSync = s.lastSyncAt === null ? '' : String(s.lastSyncAt);
    // Device problems go to one banner, never into a ticket verdict.
    byId('alert').hidden = true;
    const banner = byId('device-banner');
    const problem = paired ? s.device : null;
    banner.hidden = problem === null;
    banner.dataset.problem = problem?.kind ?? '';
    banner.textContent =
      problem === null
        ? ''
        : t('device.banner', {
            what: t(`device.${problem.kind}`, { skew: formatAge(t, Math.abs(problem.skewMs ?? 0)) }),
            todo: t(`device.${problem.kind}.todo`),
          });
    // Paired with a venue hub: whether the venue's check-ins reach the site (the doors agree through the hub either way).
    const hubLine = byId('hub-line');
    const hub = paired ? s.hub : null;
    const hubDown = hub !== null && (hub.keyRefused || !hub.reachable);
    hubLine.hidden = !hubDown;
    hubLine.dataset.pending = String(hub?.pending ?? '');
    hubLine.textContent =
      !hub || !hubDown
        ? ''
        : hub.keyRefused
          ? t('hub.keyRefused', { n: hub.pending })
          : t(hub.pending === 1 ? 'hub.offlineOne' : 'hub.offline', {
              time: hub.offlineSince === null ? '?' : formatClock(this.ctx.lang, hub.offlineSince),
              n: hub.pending,
            });
    const ready = byId('ready-info');
    // "Paired with ...: N attendees ready" is news: shown for a while after the list is complete, then gone.
    if (s.readyInfo !== this.readyInfo) {
      this.readyInfo = s.readyInfo;
      this.readySince = Date.now();
    }
    ready.hidden = !paired || s.readyInfo === null || Date.now() - this.readySince > READY_SHOWN_MS;
    ready.textContent = s.readyInfo
      ? t('ready.paired', { event: s.readyInfo.eventTitle ?? `#${this.ctx.settings.current?.event_id ?? ''}`, n: s.readyInfo.attendees })
      : '';
    ready.dataset.attendees = String(s.readyInfo?.attendees ?? '');
  }
}
