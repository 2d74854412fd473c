import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { CheckinService } from '../checkin/checkin-service.ts';
import type { KioskDb } from '../store/db.ts';
import type { SyncEngine } from '../sync/engine.ts';
import { translator, type Lang, type Translate } from './i18n.ts';

/** What every view needs; one object so views do not import each other. */
export interface KioskContext {
  db: KioskDb;
  engine: SyncEngine;
  service: CheckinService;
  deviceId: string;
  /** Mutable: pairing replaces it. */
  settings: { current: PairingPayload | null };
  lang: Lang;
  t: Translate;
}

export function setLanguage(ctx: KioskContext, lang: Lang): void {
  ctx.lang = lang;
  ctx.t = translator(lang);
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    node.textContent = ctx.t(node.dataset.i18n as Parameters<Translate>[0]);
  }
  const search = document.getElementById('search') as HTMLInputElement | null;
  if (search) search.placeholder = ctx.t('staff.search');
  document.title = ctx.t('app.title');
}
