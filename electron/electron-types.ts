import type {
  BrowserWindowConstructorOptions,
  CustomScheme,
  MessageBoxOptions,
  OnHeadersReceivedListenerDetails,
  HeadersReceivedResponse,
  PermissionCheckHandlerHandlerDetails,
  MediaAccessPermissionRequest,
  PermissionRequest,
  WebPreferences,
} from 'electron';

/*
 * The slice of the `electron` module the shell uses, written as small structural interfaces. The real
 * module satisfies them (main.ts passes it in, and tsc checks that), and so does the hand-written fake in
 * test/electron/, which is what makes every setupX() testable without the Electron binary.
 * Method syntax on purpose: Electron's overloaded `on()` is assignable to these single overloads.
 */

export type { BrowserWindowConstructorOptions, WebPreferences };

export interface PreventableEvent {
  preventDefault(): void;
}

export interface GuardedContents {
  on(event: 'will-navigate', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface KioskWindow {
  readonly webContents: GuardedContents;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  removeMenu(): void;
  setKiosk(flag: boolean): void;
  isKiosk(): boolean;
}

export type BrowserWindowCtor<W extends KioskWindow = KioskWindow> = new (options: BrowserWindowConstructorOptions) => W;

export interface ElectronApp {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: GuardedContents) => void): unknown;
  on(event: 'window-all-closed', listener: () => void): unknown;
  whenReady(): Promise<void>;
  quit(): void;
  enableSandbox(): void;
  getPath(name: 'userData'): string;
  getAppPath(): string;
  getVersion(): string;
  readonly isPackaged: boolean;
}

export type PermissionRequestHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: PermissionRequest | MediaAccessPermissionRequest,
) => void;

export type PermissionCheckHandler = (
  contents: unknown,
  permission: string,
  requestingOrigin: string,
  details: PermissionCheckHandlerHandlerDetails,
) => boolean;

export type HeadersListener = (details: OnHeadersReceivedListenerDetails, callback: (response: HeadersReceivedResponse) => void) => void;

/** What Chromium tells the certificate verify proc about one TLS handshake (the parts the shell reads). */
export interface CertificateVerifyRequest {
  readonly hostname: string;
  /** `data` is the PEM of the server's certificate. */
  readonly certificate: { readonly data: string };
  /** Chromium's own verdict: 'net::OK' or an error such as 'net::ERR_CERT_AUTHORITY_INVALID'. */
  readonly verificationResult: string;
  readonly errorCode: number;
}

/** callback(0): accept; callback(-2): refuse; callback(-3): Chromium's own verification result. */
export type CertificateVerifyProc = (request: CertificateVerifyRequest, callback: (verificationResult: number) => void) => void;

export interface ElectronSession {
  on(event: 'will-download', listener: (event: PreventableEvent) => void): unknown;
  setCertificateVerifyProc(proc: CertificateVerifyProc | null): void;
  closeAllConnections(): Promise<void>;
  setPermissionRequestHandler(handler: PermissionRequestHandler | null): void;
  setPermissionCheckHandler(handler: PermissionCheckHandler | null): void;
  readonly webRequest: { onHeadersReceived(listener: HeadersListener | null): void };
}

export interface ElectronProtocol {
  registerSchemesAsPrivileged(schemes: CustomScheme[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}

/** The frame that sent an IPC message; null once it has navigated away or been destroyed. */
export interface SenderFrame {
  readonly url: string;
  readonly parent: unknown;
}

export interface InvokeEvent {
  readonly senderFrame: SenderFrame | null;
}

export interface ElectronIpcMain {
  handle(channel: string, listener: (event: InvokeEvent, ...args: unknown[]) => unknown): void;
}

/** Generic over the window type so the real dialog gets a real BrowserWindow as parent. */
export interface ElectronDialog<W extends KioskWindow = KioskWindow> {
  showMessageBox(window: W, options: MessageBoxOptions): Promise<{ response: number }>;
}

export interface ElectronSystemPreferences {
  getMediaAccessStatus(mediaType: 'camera'): 'not-determined' | 'granted' | 'denied' | 'restricted' | 'unknown';
  askForMediaAccess(mediaType: 'camera'): Promise<boolean>;
}

export interface ElectronPowerSaveBlocker {
  start(type: 'prevent-display-sleep'): number;
}

/** Everything the main process needs, as one injectable value. */
export interface MainElectron<W extends KioskWindow = KioskWindow> {
  readonly app: ElectronApp;
  readonly BrowserWindow: BrowserWindowCtor<W>;
  readonly ipcMain: ElectronIpcMain;
  readonly protocol: ElectronProtocol;
  readonly session: { readonly defaultSession: ElectronSession };
  readonly dialog: ElectronDialog<W>;
  readonly systemPreferences: ElectronSystemPreferences;
  readonly powerSaveBlocker: ElectronPowerSaveBlocker;
}

/** What the sandboxed preload may use. */
export interface PreloadElectron {
  readonly contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  readonly ipcRenderer: { invoke(channel: string, ...args: unknown[]): Promise<unknown> };
}
