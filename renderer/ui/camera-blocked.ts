import type { Translate } from './i18n.ts';

/**
 * Why the browser will not give the kiosk a camera, when it is the browser's doing rather than a missing
 * camera: `insecure` on plain http to an address other than this computer (no secure context: browsers offer
 * no camera API at all there), `denied` when the camera permission was refused. `null`: not blocked (a
 * working camera, or simply none plugged in, which the camera status line reports).
 */
export type CameraBlock = 'insecure' | 'denied';

export interface CameraEnv {
  readonly isSecureContext: boolean;
  readonly navigator: { readonly mediaDevices?: { getUserMedia?: unknown } };
}

export function cameraBlockedBy(env: CameraEnv, error?: unknown): CameraBlock | null {
  if (!env.isSecureContext) return 'insecure';
  // A secure context with no camera API is an old or locked-down browser: the status line says so.
  if (!env.navigator.mediaDevices?.getUserMedia) return null;
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  // Chromium says NotAllowedError; SecurityError is what older engines and permission policies give.
  return name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : null;
}

type Key = Parameters<Translate>[0];
const TEXT: Record<CameraBlock, { title: Key; why: Key; fixes: Key[] }> = {
  insecure: {
    title: 'cameraBlocked.insecure.title',
    why: 'cameraBlocked.insecure.why',
    fixes: ['cameraBlocked.fix.https', 'cameraBlocked.fix.app', 'cameraBlocked.fix.localhost'],
  },
  denied: {
    title: 'cameraBlocked.denied.title',
    why: 'cameraBlocked.denied.why',
    fixes: ['cameraBlocked.fix.allow', 'cameraBlocked.fix.https'],
  },
};

/**
 * A large panel in place of the camera picture: what blocks the camera, in plain words, and how to fix it.
 * Its texts carry `data-i18n`, so a language switch retranslates them with the rest of the page. The barcode
 * scanner is not affected and the panel says so.
 */
export class CameraBlockedPanel {
  private readonly root: HTMLElement;

  constructor(
    private readonly host: HTMLElement,
    private readonly pageAddress: string,
  ) {
    this.root = document.createElement('section');
    this.root.id = 'camera-blocked';
    this.root.className = 'camera-blocked';
    this.root.setAttribute('role', 'alert');
    this.root.hidden = true;
    host.prepend(this.root);
  }

  get reason(): CameraBlock | null {
    return this.root.hidden ? null : ((this.root.dataset.reason as CameraBlock | undefined) ?? null);
  }

  show(reason: CameraBlock, t: Translate): void {
    const text = TEXT[reason];
    const line = (tag: 'h2' | 'p' | 'li' | 'h3' | 'span', key: Key, className = ''): HTMLElement => {
      const node = document.createElement(tag);
      node.dataset.i18n = key;
      node.textContent = t(key);
      if (className) node.className = className;
      return node;
    };
    const address = document.createElement('p');
    address.className = 'cb-address';
    const label = line('span', 'cameraBlocked.address');
    const url = document.createElement('code');
    url.textContent = this.pageAddress;
    address.append(label, url);
    const fixes = document.createElement('ol');
    fixes.append(...text.fixes.map((key) => line('li', key)));
    this.root.replaceChildren(
      line('h2', text.title),
      line('p', text.why),
      ...(reason === 'insecure' ? [address] : []),
      line('p', 'cameraBlocked.wedge', 'cb-wedge'),
      line('h3', 'cameraBlocked.fixTitle'),
      fixes,
    );
    this.root.dataset.reason = reason;
    this.root.hidden = false;
    this.host.classList.add('has-camera-blocked');
  }

  hide(): void {
    this.root.hidden = true;
    this.root.replaceChildren();
    delete this.root.dataset.reason;
    this.host.classList.remove('has-camera-blocked');
  }
}
