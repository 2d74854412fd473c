import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HeadersReceivedResponse, WebPreferences } from 'electron';
import { APP_ENTRY_URL } from '../../electron/app-origin.ts';
import { exposeDoorstepApi } from '../../electron/preload-api.ts';
import { startShell } from '../../electron/shell.ts';
import { ipcMethods } from '../../shared/ipc.ts';
import { createFakeElectron, FakeEvent, FakeWebContents, headersDetails, type FakeElectron } from './fake-electron.ts';
import { reviewCsp, type Finding } from './findings.ts';

/*
 * The runtime half of the review: start the shell against the fake electron and inspect what it really
 * did (the options the BrowserWindow got, the handlers the session got, the headers the pages get), then
 * probe the handlers with hostile input. Source review can be fooled by indirection; this cannot.
 */

export type ShellStarter = (fake: FakeElectron, rendererRoot: string) => Promise<unknown>;

export const startRealShell: ShellStarter = (fake, rendererRoot) =>
  startShell(fake.electron, {
    rendererRoot,
    preloadPath: path.join(rendererRoot, 'preload.cjs'),
    deviceName: 'audit',
    platform: 'linux',
    arch: 'x64',
    versions: {},
    devTools: false,
    log: () => {},
  });

/** webPreferences that must hold, with Electron's default when the key is absent. */
const REQUIRED_PREFERENCES: { key: keyof WebPreferences; want: boolean; default: boolean }[] = [
  { key: 'contextIsolation', want: true, default: true },
  { key: 'sandbox', want: true, default: true },
  { key: 'nodeIntegration', want: false, default: false },
  { key: 'nodeIntegrationInWorker', want: false, default: false },
  { key: 'nodeIntegrationInSubFrames', want: false, default: false },
  { key: 'webSecurity', want: true, default: true },
  { key: 'allowRunningInsecureContent', want: false, default: false },
  { key: 'experimentalFeatures', want: false, default: false },
  { key: 'webviewTag', want: false, default: false },
];

const FOREIGN = 'https://evil.example';

/** What the runtime review probes, for the audit's report. */
export const RUNTIME_CHECKS: readonly string[] = [
  ...REQUIRED_PREFERENCES.map((rule) => `webPreferences.${rule.key}`),
  'will-navigate',
  'will-redirect',
  'setWindowOpenHandler',
  'will-attach-webview',
  'guards on later web contents',
  'permission requests (camera, microphone, local network, 7 others)',
  'permission checks',
  'CSP header on app pages',
  'CSP on app:// responses',
  'IPC sender check on every channel',
  'preload surface',
  'downloads',
  'app.enableSandbox',
  'privileged scheme bypassCSP',
];

function reviewPreferences(preferences: WebPreferences | undefined, where: string): Finding[] {
  const findings: Finding[] = [];
  const prefs = (preferences ?? {}) as Record<string, unknown>;
  for (const rule of REQUIRED_PREFERENCES) {
    const value = prefs[rule.key] ?? rule.default;
    if (value !== rule.want) findings.push({ id: rule.key.toUpperCase(), severity: 'HIGH', message: `${rule.key} is ${String(value)}`, where });
    else if (!(rule.key in prefs))
      findings.push({ id: rule.key.toUpperCase(), severity: 'INFO', message: `${rule.key} relies on Electron's default`, where });
  }
  if ('enableRemoteModule' in prefs) findings.push({ id: 'REMOTE_MODULE', severity: 'HIGH', message: 'enableRemoteModule is set', where });
  if ('enableBlinkFeatures' in prefs) findings.push({ id: 'BLINK_FEATURES', severity: 'MEDIUM', message: 'enableBlinkFeatures is set', where });
  return findings;
}

function reviewGuards(contents: FakeWebContents, where: string): Finding[] {
  const findings: Finding[] = [];
  if (!contents.attempt('will-navigate', `${FOREIGN}/`))
    findings.push({ id: 'NAVIGATION_HANDLER', severity: 'HIGH', message: `navigation to ${FOREIGN} is allowed`, where });
  if (!contents.attempt('will-redirect', `${FOREIGN}/`))
    findings.push({ id: 'REDIRECT_HANDLER', severity: 'MEDIUM', message: `redirect to ${FOREIGN} is allowed`, where });
  if (contents.windowOpenHandler?.({ url: `${FOREIGN}/` }).action !== 'deny') {
    findings.push({ id: 'NEW_WINDOW_HANDLER', severity: 'HIGH', message: 'window.open is not denied', where });
  }
  if (!contents.attempt('will-attach-webview'))
    findings.push({ id: 'WEBVIEW_ATTACH_HANDLER', severity: 'MEDIUM', message: 'webview attachment is not prevented', where });
  return findings;
}

function reviewPermissions(fake: FakeElectron): Finding[] {
  const { permissionRequestHandler: request, permissionCheckHandler: check } = fake.state;
  const findings: Finding[] = [];
  if (!request)
    findings.push({ id: 'PERMISSION_REQUEST_HANDLER', severity: 'HIGH', message: 'no permission request handler: every permission is granted' });
  if (!check) findings.push({ id: 'PERMISSION_CHECK_HANDLER', severity: 'MEDIUM', message: 'no permission check handler' });
  const probes: { permission: string; url: string; mediaTypes?: ('video' | 'audio')[]; mayGrant: boolean }[] = [
    { permission: 'media', url: `${FOREIGN}/`, mediaTypes: ['video'], mayGrant: false },
    { permission: 'media', url: APP_ENTRY_URL, mediaTypes: ['audio'], mayGrant: false },
    { permission: 'local-network', url: `${FOREIGN}/`, mayGrant: false },
    ...['geolocation', 'notifications', 'clipboard-read', 'display-capture', 'openExternal', 'midiSysex', 'fileSystem'].map((permission) => ({
      permission,
      url: APP_ENTRY_URL,
      mayGrant: false,
    })),
  ];
  for (const probe of probes) {
    let granted = false;
    request?.({}, probe.permission, (answer) => (granted = answer), { isMainFrame: true, requestingUrl: probe.url, mediaTypes: probe.mediaTypes });
    if (granted && !probe.mayGrant)
      findings.push({
        id: 'PERMISSION_GRANTED',
        severity: 'HIGH',
        message: `${probe.permission} ${probe.mediaTypes?.join('+') ?? ''} granted to ${probe.url}`,
      });
    const origin = new URL(probe.url).protocol === 'app:' ? 'app://kiosk' : FOREIGN;
    const reported = check?.({}, probe.permission, origin, { isMainFrame: true, mediaType: probe.mediaTypes?.[0] });
    if (reported === true && !probe.mayGrant)
      findings.push({ id: 'PERMISSION_CHECK_GRANTED', severity: 'HIGH', message: `${probe.permission} reported granted to ${origin}` });
  }
  return findings;
}

async function reviewHeaders(fake: FakeElectron): Promise<Finding[]> {
  const listener = fake.state.headersListener;
  if (!listener) return [{ id: 'CSP_HEADER', severity: 'HIGH', message: 'no onHeadersReceived listener sets a CSP' }];
  let answer: HeadersReceivedResponse | undefined;
  listener(headersDetails(APP_ENTRY_URL, { 'Content-Type': ['text/html'] }), (response) => (answer = response));
  const header = Object.entries(answer?.responseHeaders ?? {}).find(([name]) => name.toLowerCase() === 'content-security-policy')?.[1];
  const findings = reviewCsp(Array.isArray(header) ? header.join('; ') : header, 'onHeadersReceived');
  const handler = fake.state.protocolHandlers.get('app');
  if (handler) {
    const response = await handler(new Request(APP_ENTRY_URL));
    findings.push(...reviewCsp(response.headers.get('content-security-policy') ?? undefined, 'app:// protocol response'));
  }
  return findings;
}

async function reviewIpc(fake: FakeElectron): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const [channel, handler] of fake.state.ipcHandlers) {
    const result = (await handler({ senderFrame: { url: `${FOREIGN}/`, parent: null } }, {})) as
      | { ok?: boolean; error?: { code?: string } }
      | undefined;
    if (result?.ok !== false || result.error?.code !== 'forbidden_sender') {
      findings.push({ id: 'IPC_SENDER_CHECK', severity: 'HIGH', message: `${channel} answers a foreign frame` });
    }
  }
  return findings;
}

/** What the preload puts in the page: one frozen object of functions, one per channel, nothing generic. */
export function reviewPreload(expose: (fake: FakeElectron) => void = (fake) => exposeDoorstepApi(fake.preload())): Finding[] {
  const fake = createFakeElectron({ userData: tmpdir() });
  expose(fake);
  const findings: Finding[] = [];
  const keys = Object.keys(fake.state.mainWorld);
  if (keys.length !== 1)
    findings.push({ id: 'PRELOAD_SURFACE', severity: 'MEDIUM', message: `the preload exposes ${keys.length} globals: ${keys.join(', ')}` });
  for (const key of keys) {
    const api = fake.state.mainWorld[key];
    if (typeof api !== 'object' || api === null) {
      findings.push({ id: 'PRELOAD_SURFACE', severity: 'HIGH', message: `window.${key} is not a plain API object` });
      continue;
    }
    for (const [name, value] of Object.entries(api)) {
      if (typeof value !== 'function')
        findings.push({ id: 'PRELOAD_SURFACE', severity: 'HIGH', message: `window.${key}.${name} is not a function (an object handed to the page)` });
      if (/^(invoke|send|sendSync|on|once|ipcRenderer|require|process)$/.test(name)) {
        findings.push({ id: 'PRELOAD_GENERIC_IPC', severity: 'HIGH', message: `window.${key}.${name} lets the page pick any channel` });
      }
      if (!(ipcMethods as string[]).includes(name))
        findings.push({ id: 'PRELOAD_SURFACE', severity: 'MEDIUM', message: `window.${key}.${name} is not in the channel map` });
    }
  }
  return findings;
}

/** Starts the shell (by default the real one) against a fresh fake and reviews what it set up. */
export async function reviewRuntime(start: ShellStarter = startRealShell): Promise<Finding[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'doorstep-audit-'));
  try {
    const rendererRoot = path.join(dir, 'renderer');
    mkdirSync(rendererRoot);
    writeFileSync(path.join(rendererRoot, 'index.html'), '<!doctype html><title>audit</title>');
    const fake = createFakeElectron({ userData: path.join(dir, 'userData') });
    await start(fake, rendererRoot);
    const findings: Finding[] = [];
    if (fake.state.windows.length === 0) findings.push({ id: 'NO_WINDOW', severity: 'HIGH', message: 'the shell opened no window to review' });
    fake.state.windows.forEach((window, index) => {
      const where = `BrowserWindow #${index + 1}`;
      findings.push(...reviewPreferences(window.options.webPreferences, where), ...reviewGuards(window.webContents, where));
      for (const url of window.loadedUrls) {
        if (!/^(app|https):/.test(url)) findings.push({ id: 'INSECURE_CONTENT', severity: 'MEDIUM', message: `loads ${url}`, where });
      }
    });
    const later = new FakeWebContents();
    fake.app.emit('web-contents-created', {}, later);
    findings.push(
      ...reviewGuards(later, 'web contents created later').map((finding) => ({
        ...finding,
        severity: finding.severity === 'HIGH' ? ('MEDIUM' as const) : finding.severity,
      })),
    );
    const download = new FakeEvent();
    fake.session.emit('will-download', download, {}, {});
    if (!download.defaultPrevented)
      findings.push({ id: 'DOWNLOADS', severity: 'MEDIUM', message: 'downloads are not refused: the page can write files' });
    if (!fake.state.sandboxEnabled) findings.push({ id: 'APP_SANDBOX', severity: 'LOW', message: 'app.enableSandbox() is not called' });
    for (const scheme of fake.state.privilegedSchemes) {
      if (scheme.privileges?.bypassCSP) findings.push({ id: 'BYPASSCSP', severity: 'HIGH', message: `${scheme.scheme}: bypasses CSP` });
    }
    findings.push(...reviewPermissions(fake), ...(await reviewHeaders(fake)), ...(await reviewIpc(fake)), ...reviewPreload());
    return findings;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
