import { parseAst } from 'rolldown/parseAst';
import type { Finding, Severity } from './findings.ts';
import { reviewCsp } from './findings.ts';

/*
 * A source review of the shell in the manner of electronegativity: parse each electron/*.ts file into an
 * ESTree AST (oxc, through rolldown's parseAst, which reads TypeScript) and look for the dangerous
 * options and calls, and for the guards that must be present somewhere in the shell.
 */

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

export interface SourceFile {
  path: string;
  text: string;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function* walk(node: Node): Generator<Node> {
  yield node;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'parent') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) yield* walk(item);
    } else if (isNode(value)) {
      yield* walk(value);
    }
  }
}

function keyName(node: Node): string | undefined {
  const key = node.key as Node | undefined;
  if (!key || node.computed) return undefined;
  if (key.type === 'Identifier') return key.name as string;
  if (key.type === 'Literal' && typeof key.value === 'string') return key.value;
  return undefined;
}

function literal(node: unknown): { value: unknown } | undefined {
  return isNode(node) && node.type === 'Literal' ? { value: node.value } : undefined;
}

function stringValue(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    return ((node.quasis as Node[])[0]?.value as { cooked?: string } | undefined)?.cooked;
  }
  return undefined;
}

/** The called member name: `a.b.c(...)` -> 'c', `f(...)` -> 'f'. */
function calleeName(call: Node): string | undefined {
  const callee = call.callee as Node;
  if (callee.type === 'Identifier') return callee.name as string;
  if (callee.type === 'MemberExpression' && !callee.computed) return (callee.property as Node).name as string;
  return undefined;
}

function calleeObjectName(call: Node): string | undefined {
  const callee = call.callee as Node;
  if (callee.type !== 'MemberExpression') return undefined;
  const object = callee.object as Node;
  if (object.type === 'Identifier') return object.name as string;
  if (object.type === 'MemberExpression' && !object.computed) return (object.property as Node).name as string;
  return undefined;
}

/** webPreferences keys and the value that is unsafe when written as a literal. */
const UNSAFE_OPTIONS: Record<string, { unsafe: unknown; severity: Severity; message: string }> = {
  nodeIntegration: { unsafe: true, severity: 'HIGH', message: 'nodeIntegration is enabled' },
  nodeIntegrationInWorker: { unsafe: true, severity: 'HIGH', message: 'nodeIntegrationInWorker is enabled' },
  nodeIntegrationInSubFrames: { unsafe: true, severity: 'HIGH', message: 'nodeIntegrationInSubFrames is enabled' },
  contextIsolation: { unsafe: false, severity: 'HIGH', message: 'contextIsolation is disabled' },
  sandbox: { unsafe: false, severity: 'HIGH', message: 'sandbox is disabled' },
  webSecurity: { unsafe: false, severity: 'HIGH', message: 'webSecurity is disabled' },
  allowRunningInsecureContent: { unsafe: true, severity: 'HIGH', message: 'allowRunningInsecureContent is enabled' },
  experimentalFeatures: { unsafe: true, severity: 'HIGH', message: 'experimentalFeatures is enabled' },
  webviewTag: { unsafe: true, severity: 'HIGH', message: 'webviewTag is enabled' },
  bypassCSP: { unsafe: true, severity: 'HIGH', message: 'a privileged scheme bypasses CSP' },
};

const DANGEROUS_SWITCHES = [
  'ignore-certificate-errors',
  'disable-web-security',
  'no-sandbox',
  'disable-site-isolation-trials',
  'remote-debugging-port',
  'allow-running-insecure-content',
  'js-flags',
];

/** Guards that must exist somewhere in the shell, found by call name or event name. */
const REQUIRED: { id: string; severity: Severity; message: string; found: (call: Node) => boolean }[] = [
  {
    id: 'PERMISSION_REQUEST_HANDLER',
    severity: 'HIGH',
    message: 'no session.setPermissionRequestHandler',
    found: (c) => calleeName(c) === 'setPermissionRequestHandler',
  },
  {
    id: 'PERMISSION_CHECK_HANDLER',
    severity: 'MEDIUM',
    message: 'no session.setPermissionCheckHandler',
    found: (c) => calleeName(c) === 'setPermissionCheckHandler',
  },
  {
    id: 'NAVIGATION_HANDLER',
    severity: 'HIGH',
    message: "no 'will-navigate' guard",
    found: (c) => calleeName(c) === 'on' && stringValue((c.arguments as Node[])[0]) === 'will-navigate',
  },
  {
    id: 'NEW_WINDOW_HANDLER',
    severity: 'HIGH',
    message: 'no webContents.setWindowOpenHandler',
    found: (c) => calleeName(c) === 'setWindowOpenHandler',
  },
  {
    id: 'WEBVIEW_ATTACH_HANDLER',
    severity: 'MEDIUM',
    message: "no 'will-attach-webview' guard",
    found: (c) => calleeName(c) === 'on' && stringValue((c.arguments as Node[])[0]) === 'will-attach-webview',
  },
  {
    id: 'DOWNLOAD_GUARD',
    severity: 'LOW',
    message: "no session 'will-download' guard",
    found: (c) => calleeName(c) === 'on' && stringValue((c.arguments as Node[])[0]) === 'will-download',
  },
  {
    id: 'CSP_HEADER',
    severity: 'HIGH',
    message: 'no CSP header set through session.webRequest.onHeadersReceived',
    found: (c) => calleeName(c) === 'onHeadersReceived',
  },
];

/** Every check this review makes, by id, for the audit's report. */
export const STATIC_CHECKS: readonly string[] = [
  ...Object.keys(UNSAFE_OPTIONS).map((key) => key.toUpperCase()),
  'REMOTE_MODULE',
  'BLINK_FEATURES',
  'CSP_UNSAFE_SCRIPT',
  'OPEN_EXTERNAL',
  'PERMISSION_HANDLER_RESET',
  'DANGEROUS_SWITCH',
  'CERTIFICATE_ERROR_HANDLER',
  'NEW_WINDOW_EVENT',
  'INSECURE_CONTENT',
  'IPC_OUTSIDE_CHOKE_POINT',
  'IPC_RENDERER_EXPOSED',
  ...REQUIRED.map((rule) => rule.id),
];

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Reviews the shell's sources; `ipcChokePoint` is the only file allowed to register IPC handlers. */
export function reviewSources(files: readonly SourceFile[], ipcChokePoint = 'electron/ipc.ts'): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const program = parseAst(file.text, { lang: 'ts' }, file.path) as unknown as Node;
    const at = (node: Node) => `${file.path}:${lineOf(file.text, node.start)}`;
    for (const node of walk(program)) {
      if (node.type === 'Property') {
        const name = keyName(node);
        const rule = name ? UNSAFE_OPTIONS[name] : undefined;
        const value = literal(node.value);
        if (rule && value && value.value === rule.unsafe)
          findings.push({ id: name!.toUpperCase(), severity: rule.severity, message: rule.message, where: at(node) });
        if (rule && !value)
          findings.push({
            id: name!.toUpperCase(),
            severity: 'MEDIUM',
            message: `${name} is not a literal; its value cannot be checked`,
            where: at(node),
          });
        if (name === 'enableRemoteModule')
          findings.push({ id: 'REMOTE_MODULE', severity: 'HIGH', message: 'enableRemoteModule is set', where: at(node) });
        if (name === 'enableBlinkFeatures')
          findings.push({ id: 'BLINK_FEATURES', severity: 'MEDIUM', message: 'enableBlinkFeatures is set', where: at(node) });
      }
      if ((node.type === 'ImportDeclaration' || node.type === 'ImportExpression') && /^@electron\/remote/.test(stringValue(node.source) ?? '')) {
        findings.push({ id: 'REMOTE_MODULE', severity: 'HIGH', message: '@electron/remote is imported', where: at(node) });
      }
      const text = stringValue(node);
      if (text !== undefined && /(^|;)\s*(script-src|default-src)\s/.test(text)) {
        for (const finding of reviewCsp(text, at(node))) if (finding.id === 'CSP_UNSAFE_SCRIPT') findings.push(finding);
      }
      if (node.type !== 'CallExpression') continue;
      for (const rule of REQUIRED) if (rule.found(node)) seen.add(rule.id);
      const name = calleeName(node);
      const args = node.arguments as Node[];
      if (name === 'openExternal') {
        const target = stringValue(args[0]);
        if (target === undefined || !/^https:\/\//.test(target)) {
          findings.push({
            id: 'OPEN_EXTERNAL',
            severity: 'HIGH',
            message: 'shell.openExternal with input that is not a fixed https: URL',
            where: at(node),
          });
        }
      }
      if ((name === 'setPermissionRequestHandler' || name === 'setPermissionCheckHandler') && literal(args[0])?.value === null) {
        findings.push({ id: 'PERMISSION_HANDLER_RESET', severity: 'HIGH', message: `${name}(null) restores allow-all`, where: at(node) });
      }
      if (name === 'appendSwitch' && DANGEROUS_SWITCHES.includes(stringValue(args[0]) ?? '')) {
        findings.push({ id: 'DANGEROUS_SWITCH', severity: 'HIGH', message: `command-line switch ${stringValue(args[0])}`, where: at(node) });
      }
      if (name === 'on' && stringValue(args[0]) === 'certificate-error') {
        findings.push({
          id: 'CERTIFICATE_ERROR_HANDLER',
          severity: 'MEDIUM',
          message: "a 'certificate-error' handler may trust bad certificates: review it",
          where: at(node),
        });
      }
      if (name === 'on' && stringValue(args[0]) === 'new-window') {
        findings.push({
          id: 'NEW_WINDOW_EVENT',
          severity: 'LOW',
          message: "the removed 'new-window' event is used; use setWindowOpenHandler",
          where: at(node),
        });
      }
      if (name === 'loadURL' && /^http:/.test(stringValue(args[0]) ?? '')) {
        findings.push({ id: 'INSECURE_CONTENT', severity: 'MEDIUM', message: 'loadURL over plain http', where: at(node) });
      }
      if ((name === 'handle' || name === 'on' || name === 'handleOnce') && calleeObjectName(node) === 'ipcMain' && file.path !== ipcChokePoint) {
        findings.push({ id: 'IPC_OUTSIDE_CHOKE_POINT', severity: 'MEDIUM', message: `ipcMain.${name} outside ${ipcChokePoint}`, where: at(node) });
      }
      // Handing ipcRenderer (or one of its methods) to the page, directly or inside an object literal. A call
      // such as createDoorstepApi(ipcRenderer) is fine: it builds a narrow API around it.
      const exposed = args[1];
      if (
        name === 'exposeInMainWorld' &&
        exposed &&
        exposed.type !== 'CallExpression' &&
        [...walk(exposed)].some((n) => n.type === 'Identifier' && n.name === 'ipcRenderer')
      ) {
        findings.push({
          id: 'IPC_RENDERER_EXPOSED',
          severity: 'HIGH',
          message: 'ipcRenderer (or a method of it) is handed to the page',
          where: at(node),
        });
      }
    }
  }
  for (const rule of REQUIRED) {
    if (!seen.has(rule.id)) findings.push({ id: rule.id, severity: rule.severity, message: rule.message });
  }
  return findings;
}
