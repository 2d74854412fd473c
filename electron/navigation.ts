import { isAppUrl } from './app-origin.ts';
import type { ElectronApp, ElectronSession, GuardedContents } from './electron-types.ts';

/**
 * Keeps every web contents on the app's own pages. Moving between app pages is allowed (it is still our
 * bundle under our CSP); anything else, including the door server's URL, is refused. New windows are
 * always refused and nothing is handed to the OS browser, so a link in attendee data cannot escape.
 */
export function guardContents(contents: GuardedContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  // webviewTag is off already; this also stops any attempt that slips past it.
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Applies the guards to every web contents the app ever creates, not only the main window. */
export function setupNavigationGuards(app: ElectronApp): void {
  app.on('web-contents-created', (_event, contents) => guardContents(contents));
}

/**
 * No downloads: a download is the page writing a file of its choosing to the disk, and the kiosk has
 * nothing to save. Refused before any save dialog appears.
 */
export function setupDownloadGuard(session: ElectronSession): void {
  session.on('will-download', (event) => event.preventDefault());
}
