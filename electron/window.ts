import { APP_ENTRY_URL } from './app-origin.ts';
import type { BrowserWindowConstructorOptions, BrowserWindowCtor, KioskWindow } from './electron-types.ts';

/**
 * The kiosk window. The security flags are spelled out even where they equal Electron's defaults, so a
 * reader (and the security review) sees them without knowing which defaults changed in which version.
 */
export function kioskWindowOptions(preloadPath: string, { devTools }: { devTools: boolean }): BrowserWindowConstructorOptions {
  return {
    title: 'Doorstep Kiosk',
    kiosk: true,
    fullscreen: true,
    autoHideMenuBar: true,
    backgroundColor: '#111111',
    // Shown on 'ready-to-show' so staff never see a white flash before the first paint.
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools,
      // Verdict sounds must play on a scan, which is not a user gesture inside the page.
      autoplayPolicy: 'no-user-gesture-required',
    },
  };
}

/** Holds the one kiosk window so other concerns (second instance, IPC) can find it. */
export interface WindowHolder<W extends KioskWindow> {
  current(): W | null;
  open(): W;
}

export function setupWindow<W extends KioskWindow>(
  BrowserWindow: BrowserWindowCtor<W>,
  preloadPath: string,
  options: { devTools: boolean; entryUrl?: string },
): WindowHolder<W> {
  let window: W | null = null;
  return {
    current: () => (window && !window.isDestroyed() ? window : null),
    open() {
      if (window && !window.isDestroyed()) return window;
      const created = new BrowserWindow(kioskWindowOptions(preloadPath, options));
      window = created;
      // A kiosk has no use for a menu bar, and its accelerators (reload, dev tools) are attack surface.
      created.removeMenu();
      created.once('ready-to-show', () => created.show());
      created.on('closed', () => {
        if (window === created) window = null;
      });
      void created.loadURL(options.entryUrl ?? APP_ENTRY_URL);
      return created;
    },
  };
}
