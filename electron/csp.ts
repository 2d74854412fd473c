import { isAppUrl } from './app-origin.ts';
import type { ElectronSession, HeadersListener } from './electron-types.ts';

/**
 * The Content-Security-Policy of the kiosk pages. Scripts, styles, workers and fonts only from the app's
 * own bundle; nothing inline or eval'd; no plugins, frames, forms or <base> tricks.
 *
 * connect-src allows any http: and https: origin because the door server's address is only known at run
 * time: it comes from the pairing QR code (a LAN address such as http://192.168.1.20:8080 at many venues,
 * hence plain http too). The server answers those fetches with CORS headers; the renderer sends only the
 * API key it was paired with. Pinning connect-src per pairing would need a CSP rewrite on every re-pair and
 * buys little, since script-src already stops injected code from running to exfiltrate anything.
 */
export const KIOSK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self' http: https:",
  "manifest-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "child-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

type Headers = Record<string, string[]>;

/** The response headers with our CSP replacing any the response carried (header names are case-insensitive). */
export function withKioskCsp(headers: Headers | undefined): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [KIOSK_CSP];
  return out;
}

/**
 * Sets the CSP on every response for the app's own pages. Responses from the door server (fetch) pass
 * through untouched: their CSP is not ours to set and does not govern our documents anyway.
 */
export function setupContentSecurityPolicy(session: ElectronSession): void {
  const listener: HeadersListener = (details, callback) => {
    if (isAppUrl(details.url)) callback({ responseHeaders: withKioskCsp(details.responseHeaders) });
    else callback({});
  };
  session.webRequest.onHeadersReceived(listener);
}
