/**
 * The kiosk's own origin. Pages come from a custom privileged scheme rather than file://, so they get a
 * real origin: CSP 'self', IndexedDB, getUserMedia (secure context) and the permission/IPC checks can all
 * key on it, and no file:// page can ever pass for the app.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'kiosk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** True for URLs (or bare origins) on exactly app://kiosk, whatever the path. */
export function isAppUrl(value: string | undefined | null): boolean {
  if (!value) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  // Node's URL reports origin "null" for non-special schemes, so compare the parts, not url.origin.
  return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === '' && url.password === '';
}
