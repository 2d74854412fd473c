import type { ElectronApp, KioskWindow } from './electron-types.ts';

/**
 * One kiosk per machine: two instances would share userData and IndexedDB and fight over the camera.
 * Returns false when another instance holds the lock; this one then quits and the other comes to front.
 */
export function setupSingleInstance(app: ElectronApp, currentWindow: () => KioskWindow | null): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => {
    const window = currentWindow();
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  });
  return true;
}
