import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { APP_HOST, APP_SCHEME } from './app-origin.ts';
import { KIOSK_CSP } from './csp.ts';
import type { ElectronProtocol } from './electron-types.ts';

/**
 * Must run before app 'ready'. standard: real origin and relative URLs; secure: a secure context, so
 * getUserMedia and IndexedDB work; supportFetchAPI/corsEnabled: Vite's `<script type="module"
 * crossorigin>` loads through CORS. bypassCSP stays off so our CSP binds these pages.
 */
export function registerAppScheme(protocol: ElectronProtocol): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
    },
  ]);
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.txt': 'text/plain; charset=utf-8',
};

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/**
 * Maps an app:// URL to a file under `root`, or null when it would leave `root`. Decoding happens before
 * the containment check, so `%2e%2e%2f` and encoded backslashes are caught, not just literal `..`.
 */
export function resolveAppPath(root: string, requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (relative.includes('\0') || relative.includes('\\')) return null;
  if (relative === '' || relative.endsWith('/')) relative += 'index.html';
  const base = path.resolve(root);
  const target = path.resolve(base, `.${path.posix.normalize(`/${relative}`)}`);
  const inside = path.relative(base, target);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return null;
  // A second, independent guard: the un-normalized path must not climb either.
  if (relative.split('/').includes('..')) return null;
  return target;
}

/** The protocol.handle() handler: GET/HEAD of files under `root`, with the CSP on every answer. */
export function createAppProtocolHandler(root: string): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed');
    const file = resolveAppPath(root, request.url);
    if (file === null) return plain(403, 'Forbidden');
    try {
      const info = await stat(file);
      if (!info.isFile()) return plain(404, 'Not found');
      const body = request.method === 'HEAD' ? null : await readFile(file);
      return new Response(body, {
        status: 200,
        headers: {
          'content-type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
          'content-security-policy': KIOSK_CSP,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-cache',
        },
      });
    } catch {
      return plain(404, 'Not found');
    }
  };
}

/** Serves the built renderer (renderer/dist) at app://kiosk/. Call after app 'ready'. */
export function setupAppProtocol(protocol: ElectronProtocol, rendererRoot: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererRoot));
}
