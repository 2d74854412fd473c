import { registerAppScheme, setupAppProtocol } from './app-protocol.ts';
import { CertificatePins, setupCertificatePinning, type PinLog } from './cert-pinning.ts';
import { setupContentSecurityPolicy } from './csp.ts';
import { loadOrCreateDeviceId } from './device-id.ts';
import type { KioskWindow, MainElectron } from './electron-types.ts';
import { registerIpcHandlers, type IpcLog } from './ipc.ts';
import { createIpcHandlers } from './ipc-handlers.ts';
import { setupDownloadGuard, setupNavigationGuards } from './navigation.ts';
import { setupPermissions } from './permissions.ts';
import { setupSingleInstance } from './single-instance.ts';
import { setupWindow } from './window.ts';

export interface ShellOptions {
  rendererRoot: string;
  preloadPath: string;
  deviceName: string;
  platform: NodeJS.Platform;
  arch: string;
  versions: { electron?: string; chrome?: string };
  devTools: boolean;
  /** One JSON line per refusal: an IPC call, or a certificate that did not match its pin. */
  log: (entry: Parameters<IpcLog>[0] | Parameters<PinLog>[0]) => void;
}

export type ShellStart<W> = { primary: false } | { primary: true; window: W; deviceId: string };

/**
 * The main process, one setupX() per concern, against an injected electron module (main.ts passes
 * the real one, tests a fake). Order matters: the sandbox switch and the privileged scheme must be set
 * before 'ready'; the single-instance lock before any window; every guard before the first page loads.
 */
export async function startShell<W extends KioskWindow>(electron: MainElectron<W>, options: ShellOptions): Promise<ShellStart<W>> {
  const { app } = electron;
  app.enableSandbox();
  registerAppScheme(electron.protocol);
  const windows = setupWindow(electron.BrowserWindow, options.preloadPath, { devTools: options.devTools });
  if (!setupSingleInstance(app, windows.current)) return { primary: false };
  setupNavigationGuards(app);
  // A door kiosk has one window; closing it ends the app on every platform, macOS included.
  app.on('window-all-closed', () => app.quit());

  await app.whenReady();
  const session = electron.session.defaultSession;
  setupAppProtocol(electron.protocol, options.rendererRoot);
  setupContentSecurityPolicy(session);
  setupPermissions(session);
  setupDownloadGuard(session);
  // Door servers with a self-signed certificate are trusted only by the fingerprint of their pairing.
  const pinning = setupCertificatePinning(session, new CertificatePins(), options.log);
  const deviceId = loadOrCreateDeviceId(app.getPath('userData'));
  registerIpcHandlers(
    electron.ipcMain,
    createIpcHandlers({
      app,
      dialog: electron.dialog,
      systemPreferences: electron.systemPreferences,
      currentWindow: windows.current,
      deviceId,
      deviceName: options.deviceName,
      platform: options.platform,
      arch: options.arch,
      versions: options.versions,
      pinning,
    }),
    options.log,
  );
  // The door screen must not blank between guests.
  electron.powerSaveBlocker.start('prevent-display-sleep');
  return { primary: true, window: windows.open(), deviceId };
}
