import type { KioskContext } from './context.ts';
import { byId } from './dom.ts';
import { formatAge } from './i18n.ts';

/** Online/offline, pending uploads, last sync and cache age; ages tick every second. */
export class StatusBar {
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
    net.textContent = s.running ? t('status.syncing') : s.online ? t('status.online') : t('status.offline');
    net.className = `pill ${s.online ? 'online' : 'offline'}`;
    net.hidden = !paired;
    const pending = byId('pending');
    pending.textContent = t('status.pending', { n: s.pending });
    pending.className = `pill ${s.pending > 0 ? 'has-pending' : ''}`;
    pending.dataset.count = String(s.pending);
    pending.hidden = !paired;
    const age = s.lastSyncAt === null ? null : formatAge(t, Date.now() - s.lastSyncAt);
    byId('last-sync').textContent = !paired ? '' : age === null ? t('status.neverSynced') : t('status.lastSync', { age });
    byId('cache-age').textContent = paired && age !== null ? t('status.cacheAge', { age }) : '';
    byId('device').textContent = t('status.device', { id: this.ctx.deviceId });
    // Machine-readable state for tests and monitoring of a kiosk fleet.
    const bar = byId('status-bar');
    bar.dataset.online = String(s.online);
    bar.dataset.ready = String(paired && s.ready);
    bar.dataset.lastSync = s.lastSyncAt === null ? '' : String(s.lastSyncAt);
    const alert = byId('alert');
    alert.hidden = !s.unauthorized;
    alert.textContent = s.unauthorized ? t('status.unauthorized') : '';
  }
}
