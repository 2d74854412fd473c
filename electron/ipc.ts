import type * as z from 'zod/mini';
import { ipcChannelName, ipcChannels, ipcMethods, type IpcErrorCode, type IpcMethod, type IpcResponse, type IpcResult } from '../shared/ipc.ts';
import { isAppUrl } from './app-origin.ts';
import type { ElectronIpcMain, InvokeEvent, SenderFrame } from './electron-types.ts';

/** What a handler receives: the request after Zod parsing. */
export type IpcParsedRequest<K extends IpcMethod> = z.output<(typeof ipcChannels)[K]['request']>;

/** One implementation per channel; the compiler refuses a missing or misspelled one. */
export type IpcHandlers = {
  [K in IpcMethod]: (request: IpcParsedRequest<K>) => IpcResponse<K> | Promise<IpcResponse<K>>;
};

export type IpcLog = (entry: { event: 'ipc_rejected'; channel: string; code: IpcErrorCode; reason: string }) => void;

/**
 * Only the top frame of an app:// page may call the shell. senderFrame is null when the frame has
 * navigated away or gone, and a sub-frame (even a same-origin one) has no business with kiosk controls.
 */
export function isTrustedSender(frame: SenderFrame | null): boolean {
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}

function failure(code: IpcErrorCode, message: string): IpcResult<never> {
  return { ok: false, error: { code, message } };
}

interface ChannelSchemas<K extends IpcMethod> {
  request: z.ZodMiniType<IpcParsedRequest<K>>;
  response: z.ZodMiniType<IpcResponse<K>>;
}

/** Sender check, then request validation, then the handler, then response validation. Never throws. */
export async function dispatchIpc<K extends IpcMethod>(
  method: K,
  handler: IpcHandlers[K],
  event: InvokeEvent,
  args: unknown[],
  log: IpcLog = () => {},
): Promise<IpcResult<IpcResponse<K>>> {
  const channel = ipcChannelName(method);
  const reject = (code: IpcErrorCode, reason: string, message: string): IpcResult<never> => {
    log({ event: 'ipc_rejected', channel, code, reason });
    return failure(code, message);
  };
  if (!isTrustedSender(event.senderFrame)) {
    return reject('forbidden_sender', event.senderFrame?.url ?? 'no sender frame', 'This caller may not use the kiosk shell.');
  }
  const schemas = ipcChannels[method] as unknown as ChannelSchemas<K>;
  if (args.length !== 1) return reject('invalid_request', `expected 1 argument, got ${args.length}`, 'Expected exactly one argument.');
  const request = schemas.request.safeParse(args[0]);
  if (!request.success) {
    const summary = request.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    return reject('invalid_request', summary, `Invalid request: ${summary}`);
  }
  let value: unknown;
  try {
    value = await (handler as (request: IpcParsedRequest<K>) => unknown)(request.data);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return reject('failed', message, message);
  }
  const response = schemas.response.safeParse(value);
  if (!response.success) return reject('invalid_response', response.error.message, 'The shell produced an invalid answer.');
  return { ok: true, value: response.data };
}

/** Registers one ipcMain.handle per channel of the map: the only door from renderer to main. */
export function registerIpcHandlers(ipcMain: ElectronIpcMain, handlers: IpcHandlers, log?: IpcLog): void {
  for (const method of ipcMethods) {
    ipcMain.handle(ipcChannelName(method), (event, ...args) => dispatchIpc(method, handlers[method], event, args, log));
  }
}
