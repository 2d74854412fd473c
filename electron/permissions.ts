import { isAppUrl } from './app-origin.ts';
import type { ElectronSession, PermissionCheckHandler, PermissionRequestHandler } from './electron-types.ts';

/**
 * The kiosk needs two browser permissions: the camera, to read tickets, and local network access, to
 * reach a door server on the venue LAN. Everything else (microphone, geolocation, notifications,
 * clipboard, HID/serial/USB, screen capture, openExternal, ...) is refused, and so is everything for any
 * origin but the app's own.
 */

/**
 * Chromium's Local Network Access gate (Chromium 142+, enforced by newer Electron releases) asks for
 * one of these before a page reaches a private or loopback address; 'local-network-access' is the
 * original name, kept as an alias after the split. A granted LNA permission also relaxes mixed-content
 * blocking for those requests, which is what lets the app:// page talk to http://192.168.x.y:8080.
 */
export const LOCAL_NETWORK_PERMISSIONS: ReadonlySet<string> = new Set(['local-network-access', 'local-network', 'loopback-network']);

export function isCameraOnlyRequest(mediaTypes: readonly string[] | undefined): boolean {
  return Array.isArray(mediaTypes) && mediaTypes.length > 0 && mediaTypes.every((type) => type === 'video');
}

export const permissionRequestHandler: PermissionRequestHandler = (_contents, permission, callback, details) => {
  const mediaTypes = 'mediaTypes' in details ? details.mediaTypes : undefined;
  const securityOrigin = 'securityOrigin' in details ? details.securityOrigin : undefined;
  if (!isAppUrl(details.requestingUrl) || !details.isMainFrame) return callback(false);
  if (LOCAL_NETWORK_PERMISSIONS.has(permission)) return callback(true);
  // securityOrigin is absent on some Electron versions; when present it must agree.
  callback(permission === 'media' && isCameraOnlyRequest(mediaTypes) && (securityOrigin === undefined || isAppUrl(securityOrigin)));
};

/**
 * Synchronous checks (e.g. enumerateDevices deciding whether to show camera labels for the camera
 * picker, or navigator.permissions.query) must agree with the request handler, or a denied permission
 * could still be reported as available.
 */
export const permissionCheckHandler: PermissionCheckHandler = (_contents, permission, requestingOrigin, details) => {
  if (!isAppUrl(requestingOrigin) || (details.embeddingOrigin !== undefined && !isAppUrl(details.embeddingOrigin))) return false;
  if (LOCAL_NETWORK_PERMISSIONS.has(permission)) return true;
  return permission === 'media' && details.mediaType === 'video' && (details.securityOrigin === undefined || isAppUrl(details.securityOrigin));
};

export function setupPermissions(session: ElectronSession): void {
  session.setPermissionRequestHandler(permissionRequestHandler);
  session.setPermissionCheckHandler(permissionCheckHandler);
}
