// zod/mini, not the classic API: this module is bundled into the sandboxed preload, where the classic
// build costs ~750 kB and ~50 ms of start-up for a bridge that only needs the channel names.
import * as z from 'zod/mini';

/**
 * The kiosk's IPC surface, declared once. The preload bridge, the main-process handlers and the
 * `window.doorstep` type are all derived from `ipcChannels`; adding a capability means adding an entry
 * here, and nothing here may give the renderer the file system, a shell, or arbitrary URLs.
 */
const NoInput = z.strictObject({});

export const AppInfo = z.object({
  appVersion: z.string(),
  electronVersion: z.string(),
  chromeVersion: z.string(),
  platform: z.string(),
  arch: z.string(),
  /** Stable per installation: generated once and kept in Electron's userData directory. */
  deviceId: z.uuid(),
  /** The machine's host name, shown to staff to tell door devices apart. */
  deviceName: z.string(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const CameraAccessStatus = z.enum(['granted', 'denied', 'restricted', 'not-determined', 'unknown']);
export type CameraAccessStatus = z.infer<typeof CameraAccessStatus>;

/** One pin: an https address (the pairing's interface root or its origin) and its certificate's SHA-256. */
export const ServerPin = z.strictObject({
  url: z.string().check(z.maxLength(2048), z.regex(/^https:\/\//i, 'only https: addresses can be pinned')),
  /** 64 hex digits, or 32 colon-separated hex pairs, as `tls-selfsigned` prints it. */
  fingerprint: z.string().check(z.regex(/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){31})$/, 'fingerprint must be a SHA-256 in hex')),
});
export type ServerPin = z.infer<typeof ServerPin>;

export const ipcChannels = {
  /** Versions, platform and the device identity. */
  getAppInfo: { request: NoInput, response: AppInfo },
  /** Enter or leave full-screen kiosk mode; answers the resulting state. */
  setFullScreen: {
    request: z.strictObject({ fullScreen: z.boolean() }),
    response: z.object({ fullScreen: z.boolean() }),
  },
  /** Asks the operator to confirm (native dialog), then quits. `pendingScans` is shown in the dialog. */
  quit: {
    request: z.strictObject({ pendingScans: z.optional(z.int().check(z.nonnegative(), z.maximum(1_000_000))) }),
    response: z.object({ quitting: z.boolean() }),
  },
  /**
   * The operating system's camera permission (macOS and Windows keep their own, separate from the
   * page's). On macOS an undetermined status triggers the system prompt. 'unknown' where the OS has none.
   */
  requestCameraAccess: { request: NoInput, response: z.object({ status: CameraAccessStatus }) },
  /**
   * The door servers whose TLS certificate the shell pins (issue 12 item 8): the paired server and, while staff
   * are asked about a new pairing, the candidate; each with the SHA-256 fingerprint from its pairing payload.
   * Replaces every earlier pin; an empty list removes them. A pinned host is accepted only with that
   * certificate; every other host gets normal verification. Answers the pinned host names.
   */
  setServerPins: {
    request: z.strictObject({ pins: z.array(ServerPin).check(z.maxLength(4)) }),
    response: z.object({ hosts: z.array(z.string()) }),
  },
} as const;

export type IpcChannels = typeof ipcChannels;
export type IpcMethod = keyof IpcChannels;
export type IpcRequest<K extends IpcMethod> = z.input<IpcChannels[K]['request']>;
export type IpcResponse<K extends IpcMethod> = z.output<IpcChannels[K]['response']>;

/** Every method name, in a stable order. */
export const ipcMethods = Object.keys(ipcChannels) as IpcMethod[];

/** The wire channel name of a method; the `doorstep:` prefix keeps ours apart from Electron's own. */
export function ipcChannelName(method: IpcMethod): `doorstep:${IpcMethod}` {
  return `doorstep:${method}`;
}

/** What crosses the wire back from the main process: errors are values, never thrown stack traces. */
export const IpcErrorCode = z.enum(['forbidden_sender', 'invalid_request', 'invalid_response', 'failed']);
export type IpcErrorCode = z.infer<typeof IpcErrorCode>;
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: { code: IpcErrorCode; message: string } };

type MethodOf<K extends IpcMethod> =
  {} extends IpcRequest<K> ? (request?: IpcRequest<K>) => Promise<IpcResponse<K>> : (request: IpcRequest<K>) => Promise<IpcResponse<K>>;

/** The API the preload exposes as `window.doorstep`. Methods reject with an Error whose message starts with the error code. */
export type DoorstepApi = { readonly [K in IpcMethod]: MethodOf<K> };

declare global {
  interface Window {
    /** Present only inside the Electron shell; use `getDoorstep()`. */
    readonly doorstep?: DoorstepApi;
  }
}

/**
 * The shell's API, or null in a plain browser (or anything that is not exactly our bridge), so the
 * renderer can branch once: `const shell = getDoorstep(); if (shell) ...`.
 */
export function getDoorstep(scope: object = globalThis): DoorstepApi | null {
  const candidate: unknown = (scope as { doorstep?: unknown }).doorstep;
  if (typeof candidate !== 'object' || candidate === null) return null;
  const record = candidate as Record<string, unknown>;
  return ipcMethods.every((method) => typeof record[method] === 'function') ? (candidate as DoorstepApi) : null;
}
