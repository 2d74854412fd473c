import type { CameraAccessStatus } from '../shared/ipc.ts';
import type { ElectronApp, ElectronDialog, ElectronSystemPreferences, KioskWindow } from './electron-types.ts';
import type { PinningControl } from './cert-pinning.ts';
import type { IpcHandlers } from './ipc.ts';

export interface HandlerDeps<W extends KioskWindow> {
  app: Pick<ElectronApp, 'getVersion' | 'quit'>;
  dialog: ElectronDialog<W>;
  systemPreferences: ElectronSystemPreferences;
  currentWindow: () => W | null;
  deviceId: string;
  deviceName: string;
  platform: NodeJS.Platform;
  arch: string;
  versions: { electron?: string; chrome?: string };
  /** Replaces the pinned door-server certificates (electron/cert-pinning.ts). */
  pinning: PinningControl;
}

function requireWindow<W>(currentWindow: () => W | null): W {
  const window = currentWindow();
  if (!window) throw new Error('The kiosk window is not open.');
  return window;
}

/** The pending-scans line tells staff that quitting loses nothing, or that a sync is still due. */
export function quitDetail(pendingScans: number | undefined): string {
  if (pendingScans === undefined) return 'Scans are kept on this device and sync when the kiosk runs again.';
  if (pendingScans === 0) return 'All scans are synced.';
  const noun = pendingScans === 1 ? 'scan is' : 'scans are';
  return `${pendingScans} ${noun} not synced yet. They stay on this device and sync when the kiosk runs again.`;
}

async function cameraAccess(deps: Pick<HandlerDeps<KioskWindow>, 'platform' | 'systemPreferences'>): Promise<CameraAccessStatus> {
  // Only macOS and Windows keep an OS-level camera permission that Electron can read.
  if (deps.platform !== 'darwin' && deps.platform !== 'win32') return 'unknown';
  const status = deps.systemPreferences.getMediaAccessStatus('camera');
  if (deps.platform === 'darwin' && status === 'not-determined') {
    return (await deps.systemPreferences.askForMediaAccess('camera')) ? 'granted' : 'denied';
  }
  return status;
}

export function createIpcHandlers<W extends KioskWindow>(deps: HandlerDeps<W>): IpcHandlers {
  return {
    getAppInfo: () => ({
      appVersion: deps.app.getVersion(),
      electronVersion: deps.versions.electron ?? 'unknown',
      chromeVersion: deps.versions.chrome ?? 'unknown',
      platform: deps.platform,
      arch: deps.arch,
      deviceId: deps.deviceId,
      deviceName: deps.deviceName,
    }),
    setFullScreen: ({ fullScreen }) => {
      const window = requireWindow(deps.currentWindow);
      window.setKiosk(fullScreen);
      return { fullScreen: window.isKiosk() };
    },
    quit: async ({ pendingScans }) => {
      const window = requireWindow(deps.currentWindow);
      const { response } = await deps.dialog.showMessageBox(window, {
        type: 'question',
        title: 'Doorstep Kiosk',
        message: 'Quit the door kiosk?',
        detail: quitDetail(pendingScans),
        buttons: ['Cancel', 'Quit'],
        defaultId: 0,
        cancelId: 0,
        noLink: true,
      });
      if (response !== 1) return { quitting: false };
      deps.app.quit();
      return { quitting: true };
    },
    requestCameraAccess: async () => ({ status: await cameraAccess(deps) }),
    setServerPins: async ({ pins }) => ({ hosts: await deps.pinning.replace(pins) }),
  };
}
