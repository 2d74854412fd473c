import { createHash } from 'node:crypto';
import type { CertificateVerifyProc, CertificateVerifyRequest, ElectronSession } from './electron-types.ts';

/**
 * Certificate pinning for the door server. A venue server made with `npm run cli -- tls-selfsigned` has a
 * certificate no authority vouches for; its pairing payload carries the SHA-256 of that certificate (hex, of
 * the DER bytes). The renderer hands the main process the paired server's address and fingerprint (and, while
 * staff are asked about a new pairing, the candidate's), and every TLS verification in the kiosk's session
 * comes here:
 *
 * - a host with a pin: accepted only when the certificate's SHA-256 is one pinned for it, whatever Chromium
 *   thinks of it (a self-signed certificate passes, another certificate for that name does not, even a
 *   publicly trusted one: that is what pinning means);
 * - any other host: Chromium's own verification stands (a certificate that fails it is refused).
 *
 * Electron's verify callback sees the host name only, not the port, so a pin covers the host on every port.
 */

/** Chromium's verify-proc answers: accept, refuse, or use Chromium's own verification result. */
export const VERIFY_ACCEPT = 0;
export const VERIFY_REFUSE = -2;
export const VERIFY_DEFAULT = -3;

/** At most this many pins: the current pairing and a candidate being asked about, with room to spare. */
export const MAX_PINS = 4;

/** A fingerprint as pairing payloads carry it (hex, colons and case allowed) in the canonical form: 64 lower-case hex digits. */
export function normalizeFingerprint(value: string): string | null {
  const hex = value.trim().replace(/:/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

/** SHA-256 (hex) of a certificate's DER bytes, from the PEM Electron gives as `certificate.data`. */
export function pemFingerprint(pem: string): string | null {
  const match = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
  if (!match) return null;
  const der = Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
  if (der.length === 0) return null;
  return createHash('sha256').update(der).digest('hex');
}

/** The host name as Chromium reports it to the verify proc: lower case, IPv6 without brackets. */
function hostKey(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

export interface PinInput {
  /** The server's address (interface root or origin); only https: addresses can be pinned. */
  url: string;
  fingerprint: string;
}

export class CertificatePins {
  private pins = new Map<string, Set<string>>();

  /**
   * Replaces every pin. Throws (and changes nothing) on an address that is not https, a malformed fingerprint,
   * or more than {@link MAX_PINS} entries. Answers the pinned host names.
   */
  replace(inputs: readonly PinInput[]): string[] {
    if (inputs.length > MAX_PINS) throw new Error(`at most ${MAX_PINS} pins`);
    const next = new Map<string, Set<string>>();
    for (const input of inputs) {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        throw new Error('pin url is not a URL');
      }
      if (url.protocol !== 'https:' || !url.hostname || url.username || url.password) throw new Error('only https: addresses can be pinned');
      const fingerprint = normalizeFingerprint(input.fingerprint);
      if (!fingerprint) throw new Error('fingerprint must be a SHA-256 as 64 hex digits');
      const host = hostKey(url.hostname);
      next.set(host, new Set([...(next.get(host) ?? []), fingerprint]));
    }
    this.pins = next;
    return [...next.keys()];
  }

  /** The verify-proc answer for one TLS handshake. */
  verify(request: CertificateVerifyRequest): number {
    const pinned = this.pins.get(hostKey(request.hostname));
    if (!pinned) return VERIFY_DEFAULT;
    const fingerprint = pemFingerprint(request.certificate.data);
    return fingerprint !== null && pinned.has(fingerprint) ? VERIFY_ACCEPT : VERIFY_REFUSE;
  }
}

export type PinLog = (entry: { event: 'certificate_pin_refused'; hostname: string }) => void;

export interface PinningControl {
  /** Applies new pins: verification results Chromium cached under the old ones are dropped. */
  replace(inputs: readonly PinInput[]): Promise<string[]>;
}

/**
 * Installs the verify proc on the kiosk's session. Chromium caches verify-proc answers, so a change of pins
 * installs the proc afresh (which drops that cache) and closes open connections (none stays up on the
 * strength of a pin that was removed).
 */
export function setupCertificatePinning(session: ElectronSession, pins: CertificatePins, log: PinLog = () => {}): PinningControl {
  const proc: CertificateVerifyProc = (request, callback) => {
    let result = VERIFY_REFUSE;
    try {
      result = pins.verify(request);
    } finally {
      if (result === VERIFY_REFUSE) log({ event: 'certificate_pin_refused', hostname: request.hostname });
      callback(result);
    }
  };
  session.setCertificateVerifyProc(proc);
  return {
    async replace(inputs) {
      const hosts = pins.replace(inputs);
      session.setCertificateVerifyProc(proc);
      await session.closeAllConnections();
      return hosts;
    },
  };
}
