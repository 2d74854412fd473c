import { isAppUrl } from './app-origin.ts';
import type { ElectronSession, PermissionCheckHandler, PermissionRequestHandler } from './electron-types.ts';

/**
 * The kiosk needs exactly one browser permission: the camera, to read tickets. Everything else
 * (microphone, geolocation, notifications, clipboard, HID/serial/USB, screen capture, openExternal, ...)
 * is refused, and so is the camera for any origin but the app's own.
 */
export function isCameraOnlyRequest(mediaTypes: readonly string[] | undefined): boolean {
  return Array.isArray(mediaTypes) && mediaTypes.length > 0 && mediaTypes.every((type) => type === 'video');
}

export const permissionRequestHandler: PermissionRequestHandler = (_contents, permission, callback, details) => {
  const mediaTypes = 'mediaTypes' in details ? details.mediaTypes : undefined;
  const securityOrigin = 'securityOrigin' in details ? details.securityOrigin : undefined;
  const granted =
    permission === 'media' &&
    isCameraOnlyRequest(mediaTypes) &&
    isAppUrl(details.requestingUrl) &&
    // securityOrigin is absent on some Electron versions; when present it must agree.
    (securityOrigin === undefined || isAppUrl(securityOrigin));
  callback(granted);
};

/**
 * Synchronous checks (e.g. enumerateDevices deciding whether to show camera labels for the camera
 * picker, or navigator.permissions.query) must agree with the request handler, or a denied permission
 * could still be reported as available.
 */
export const permissionCheckHandler: PermissionCheckHandler = (_contents, permission, requestingOrigin, details) =>
  permission === 'media' &&
  details.mediaType === 'video' &&
  isAppUrl(requestingOrigin) &&
  (details.securityOrigin === undefined || isAppUrl(details.securityOrigin)) &&
  (details.embeddingOrigin === undefined || isAppUrl(details.embeddingOrigin));

export function setupPermissions(session: ElectronSession): void {
  session.setPermissionRequestHandler(permissionRequestHandler);
  session.setPermissionCheckHandler(permissionCheckHandler);
}
