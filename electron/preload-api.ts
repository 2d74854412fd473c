import { ipcChannelName, ipcMethods, type DoorstepApi, type IpcMethod } from '../shared/ipc.ts';
import type { PreloadElectron } from './electron-types.ts';

/** The key under which the bridge appears in the page: `window.doorstep`. */
export const BRIDGE_KEY = 'doorstep';

type Envelope = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

// A hand-written guard rather than Zod: the preload parses nothing, so the sandboxed preload never
// needs Zod's eval-based fast path (which the page CSP would report).
function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (record.ok === true) return 'value' in record;
  if (record.ok !== false || typeof record.error !== 'object' || record.error === null) return false;
  const error = record.error as Record<string, unknown>;
  return typeof error.code === 'string' && typeof error.message === 'string';
}

/**
 * One function per channel of the map and nothing else: no ipcRenderer, no channel names, no event
 * objects reach the page. Requests are forwarded as-is; the main process validates them.
 */
export function createDoorstepApi(ipcRenderer: PreloadElectron['ipcRenderer']): DoorstepApi {
  const call = (method: IpcMethod) => async (request?: unknown) => {
    const result = await ipcRenderer.invoke(ipcChannelName(method), request ?? {});
    if (!isEnvelope(result)) throw new Error('failed: malformed answer from the kiosk shell');
    if (result.ok) return result.value;
    throw new Error(`${result.error.code}: ${result.error.message}`);
  };
  const api = Object.fromEntries(ipcMethods.map((method) => [method, call(method)]));
  return Object.freeze(api) as DoorstepApi;
}

export function exposeDoorstepApi({ contextBridge, ipcRenderer }: PreloadElectron): void {
  contextBridge.exposeInMainWorld(BRIDGE_KEY, createDoorstepApi(ipcRenderer));
}
