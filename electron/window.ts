import { APP_ENTRY_URL } from './app-origin.ts';
import type { BrowserWindowCtor, KioskWindow } from './electron-types.ts';

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
      // The options are written inline, not built elsewhere, so a static reviewer (electronegativity, our
      // own audit) sees every flag at the constructor. Flags equal to Electron's defaults are spelled out
      // anyway: defaults have changed between versions.
      const created = new BrowserWindow({
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
          // Middle-click would otherwise ask for a new window; the open handler denies it, this stops it earlier.
          disableBlinkFeatures: 'Auxclick',
          navigateOnDragDrop: false,
          safeDialogs: true,
          spellcheck: false,
          devTools: options.devTools,
          // Verdict sounds must play on a scan, which is not a user gesture inside the page.
          autoplayPolicy: 'no-user-gesture-required',
        },
      });
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
