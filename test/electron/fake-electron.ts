import type { BrowserWindowConstructorOptions, CustomScheme, MessageBoxOptions, OnHeadersReceivedListenerDetails } from 'electron';
import type {
  CertificateVerifyProc,
  CertificateVerifyRequest,
  GuardedContents,
  HeadersListener,
  InvokeEvent,
  MainElectron,
  PermissionCheckHandler,
  PermissionRequestHandler,
  PreloadElectron,
  PreventableEvent,
  SenderFrame,
} from '../../electron/electron-types.ts';

/*
 * A hand-written fake of the parts of the `electron` module the shell uses. It records what the shell
 * asks for and enforces the orderings real Electron enforces (privileged schemes only before 'ready';
 * protocol.handle and session.defaultSession only after; one ipcMain handler per channel; one key per
 * contextBridge name), so an ordering bug fails a test here rather than on a kiosk at the door.
 */

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    const wrapped = ((...args: never[]) => {
      this.listeners.set(
        event,
        (this.listeners.get(event) ?? []).filter((entry) => entry !== wrapped),
      );
      return listener(...args);
    }) as Listener;
    return this.on(event, wrapped);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => unknown)(...args);
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

export class FakeEvent implements PreventableEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class FakeWebContents extends Emitter implements GuardedContents {
  windowOpenHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.windowOpenHandler = handler;
  }
  /** Fires will-navigate (or another preventable event) and says whether the shell stopped it. */
  attempt(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url = ''): boolean {
    const fake = new FakeEvent();
    this.emit(event, fake, url);
    return fake.defaultPrevented;
  }
}

export interface FakeOptions {
  userData: string;
  appPath?: string;
  lockGranted?: boolean;
  isPackaged?: boolean;
  dialogResponse?: number;
  cameraStatus?: 'not-determined' | 'granted' | 'denied' | 'restricted' | 'unknown';
  askForMediaAccessResult?: boolean;
}

export interface FakeState {
  calls: string[];
  ready: boolean;
  quitCount: number;
  sandboxEnabled: boolean;
  privilegedSchemes: CustomScheme[];
  protocolHandlers: Map<string, (request: Request) => Response | Promise<Response>>;
  permissionRequestHandler: PermissionRequestHandler | null | undefined;
  permissionCheckHandler: PermissionCheckHandler | null | undefined;
  headersListener: HeadersListener | null | undefined;
  /** The session's certificate verify proc, and how many times one was installed. */
  certificateVerifyProc: CertificateVerifyProc | null | undefined;
  certificateVerifyProcInstalls: number;
  closeAllConnectionsCount: number;
  ipcHandlers: Map<string, (event: InvokeEvent, ...args: unknown[]) => unknown>;
  windows: FakeBrowserWindow[];
  dialogs: { window: FakeBrowserWindow; options: MessageBoxOptions }[];
  mediaAccessAsked: number;
  powerSaveBlockers: string[];
  mainWorld: Record<string, unknown>;
  options: Required<Omit<FakeOptions, 'appPath'>> & { appPath: string };
}

/** A kiosk window as the fake creates it; records what the shell does to it. */
export class FakeBrowserWindow extends Emitter {
  readonly webContents = new FakeWebContents();
  readonly loadedUrls: string[] = [];
  visible = false;
  focusCount = 0;
  minimized = false;
  kiosk: boolean;
  menuRemoved = false;
  destroyed = false;
  constructor(
    readonly options: BrowserWindowConstructorOptions,
    private readonly state: FakeState,
    private readonly appEvents: Emitter,
  ) {
    super();
    state.calls.push('new BrowserWindow');
    this.kiosk = options.kiosk === true;
    state.windows.push(this);
    appEvents.emit('web-contents-created', new FakeEvent(), this.webContents);
  }
  async loadURL(url: string) {
    this.loadedUrls.push(url);
  }
  show() {
    this.visible = true;
  }
  focus() {
    this.focusCount += 1;
  }
  restore() {
    this.minimized = false;
  }
  isMinimized() {
    return this.minimized;
  }
  isDestroyed() {
    return this.destroyed;
  }
  removeMenu() {
    this.menuRemoved = true;
  }
  setKiosk(flag: boolean) {
    this.kiosk = flag;
  }
  isKiosk() {
    return this.kiosk;
  }
  close() {
    this.destroyed = true;
    this.emit('closed');
    if (this.state.windows.every((window) => window.destroyed)) this.appEvents.emit('window-all-closed');
  }
}

export interface FakeElectron {
  electron: MainElectron<FakeBrowserWindow>;
  state: FakeState;
  app: Emitter;
  /** Events on session.defaultSession, e.g. 'will-download'. */
  session: Emitter;
  /** The renderer side: a preload module whose ipcRenderer reaches the fake ipcMain from `frame`. */
  preload(frame?: SenderFrame | null): PreloadElectron;
}

/** What Electron passes to onHeadersReceived for a document response. */
export function headersDetails(url: string, responseHeaders: Record<string, string[]>): OnHeadersReceivedListenerDetails {
  return {
    id: 1,
    url,
    method: 'GET',
    resourceType: 'mainFrame',
    referrer: '',
    timestamp: 0,
    statusLine: 'HTTP/1.1 200 OK',
    statusCode: 200,
    responseHeaders,
  };
}

/**
 * What Chromium would answer for a TLS handshake with `hostname` presenting `pem`, after the shell's verify
 * proc (if any): 'accepted' or 'refused'. `chromiumTrusts` is Chromium's own verdict (a CA-issued certificate
 * valid for that name), used when the proc answers -3 or when there is no proc.
 */
export function tlsHandshake(state: FakeState, hostname: string, pem: string, chromiumTrusts: boolean): 'accepted' | 'refused' {
  const request: CertificateVerifyRequest = {
    hostname,
    certificate: { data: pem },
    verificationResult: chromiumTrusts ? 'net::OK' : 'net::ERR_CERT_AUTHORITY_INVALID',
    errorCode: chromiumTrusts ? 0 : -202,
  };
  const proc = state.certificateVerifyProc;
  if (!proc) return chromiumTrusts ? 'accepted' : 'refused';
  let answer: number | undefined;
  proc(request, (result) => {
    if (answer !== undefined) throw new Error('verify proc called back twice');
    answer = result;
  });
  if (answer === undefined) throw new Error('verify proc did not call back synchronously');
  if (answer === 0) return 'accepted';
  if (answer === -3) return chromiumTrusts ? 'accepted' : 'refused';
  return 'refused';
}

export const APP_FRAME: SenderFrame = { url: 'app://kiosk/index.html', parent: null };

export function createFakeElectron(options: FakeOptions): FakeElectron {
  const state: FakeState = {
    calls: [],
    ready: false,
    quitCount: 0,
    sandboxEnabled: false,
    privilegedSchemes: [],
    protocolHandlers: new Map(),
    permissionRequestHandler: undefined,
    permissionCheckHandler: undefined,
    headersListener: undefined,
    certificateVerifyProc: undefined,
    certificateVerifyProcInstalls: 0,
    closeAllConnectionsCount: 0,
    ipcHandlers: new Map(),
    windows: [],
    dialogs: [],
    mediaAccessAsked: 0,
    powerSaveBlockers: [],
    mainWorld: {},
    options: {
      lockGranted: true,
      isPackaged: false,
      dialogResponse: 0,
      cameraStatus: 'granted',
      askForMediaAccessResult: true,
      appPath: options.userData,
      ...options,
    },
  };
  const appEvents = new Emitter();
  const requireReady = (what: string) => {
    if (!state.ready) throw new Error(`${what} cannot be used before the app is ready`);
  };

  class BrowserWindow extends FakeBrowserWindow {
    constructor(options: BrowserWindowConstructorOptions) {
      requireReady('BrowserWindow');
      super(options, state, appEvents);
    }
  }

  const app = Object.assign(appEvents, {
    requestSingleInstanceLock: () => {
      state.calls.push('app.requestSingleInstanceLock');
      return state.options.lockGranted;
    },
    whenReady: async () => {
      state.calls.push('app.whenReady');
      state.ready = true;
    },
    quit: () => {
      state.quitCount += 1;
    },
    enableSandbox: () => {
      if (state.ready) throw new Error('app.enableSandbox() must be called before the app is ready');
      state.calls.push('app.enableSandbox');
      state.sandboxEnabled = true;
    },
    getPath: (name: 'userData') => (name === 'userData' ? state.options.userData : ''),
    getAppPath: () => state.options.appPath,
    getVersion: () => '0.1.0',
    get isPackaged() {
      return state.options.isPackaged;
    },
  });

  const sessionEvents = new Emitter();
  const defaultSession = {
    on(event: 'will-download', listener: (event: PreventableEvent) => void) {
      sessionEvents.on(event, listener);
      return defaultSession;
    },
    setPermissionRequestHandler(handler: PermissionRequestHandler | null) {
      state.permissionRequestHandler = handler;
    },
    setPermissionCheckHandler(handler: PermissionCheckHandler | null) {
      state.permissionCheckHandler = handler;
    },
    webRequest: {
      onHeadersReceived(listener: HeadersListener | null) {
        state.headersListener = listener;
      },
    },
    setCertificateVerifyProc(proc: CertificateVerifyProc | null) {
      state.certificateVerifyProc = proc;
      state.certificateVerifyProcInstalls += 1;
    },
    async closeAllConnections() {
      state.closeAllConnectionsCount += 1;
    },
  };

  const electron: MainElectron<FakeBrowserWindow> = {
    app,
    BrowserWindow,
    ipcMain: {
      handle(channel, listener) {
        if (state.ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        state.ipcHandlers.set(channel, listener);
      },
    },
    protocol: {
      registerSchemesAsPrivileged(schemes) {
        if (state.ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
        state.calls.push('protocol.registerSchemesAsPrivileged');
        state.privilegedSchemes.push(...schemes);
      },
      handle(scheme, handler) {
        requireReady('protocol.handle');
        state.protocolHandlers.set(scheme, handler);
      },
    },
    session: {
      get defaultSession() {
        requireReady('session.defaultSession');
        return defaultSession;
      },
    },
    dialog: {
      async showMessageBox(window, messageOptions) {
        state.dialogs.push({ window, options: messageOptions });
        return { response: state.options.dialogResponse };
      },
    },
    systemPreferences: {
      getMediaAccessStatus: () => state.options.cameraStatus,
      async askForMediaAccess() {
        state.mediaAccessAsked += 1;
        return state.options.askForMediaAccessResult;
      },
    },
    powerSaveBlocker: {
      start(type) {
        state.powerSaveBlockers.push(type);
        return state.powerSaveBlockers.length;
      },
    },
  };

  const preload = (frame: SenderFrame | null = APP_FRAME): PreloadElectron => ({
    contextBridge: {
      exposeInMainWorld(key, api) {
        if (key in state.mainWorld) throw new Error(`Cannot bind an API on top of an existing property on the window object: ${key}`);
        state.mainWorld[key] = api;
      },
    },
    ipcRenderer: {
      async invoke(channel, ...args) {
        const handler = state.ipcHandlers.get(channel);
        if (!handler) throw new Error(`No handler registered for '${channel}'`);
        // IPC serializes with the structured clone algorithm, both ways.
        return structuredClone(await handler({ senderFrame: frame }, ...structuredClone(args)));
      },
    },
  });

  return { electron, state, app: appEvents, session: sessionEvents, preload };
}
