import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Config } from './config.ts';
import { pairingLink as link } from '../shared/checkin/pairing.ts';
import type { PublicSigningKey } from '../shared/checkin/signature.ts';
import { privateDir, writePrivateFile } from './auth/private-files.ts';

/**
 * The kiosk pairing link for a door key: `{base}/kiosk/#pair=<base64url of {"url","api_key","event_id"}>`, plus
 * `"fingerprint"` (SHA-256 of the certificate, for the device to pin) when the server serves HTTPS itself, and
 * the event's signing key (`signing_key`, `signing_key_id`: CONTRACT section 8) for the device to pin.
 */
export function pairingLink(config: Pick<Config, 'publicUrl' | 'tls'>, apiKey: string, eventId: number, signing?: PublicSigningKey): string {
  const fingerprint = config.tls?.fingerprint;
  return link(config.publicUrl, {
    url: `${config.publicUrl}/en/wp-json/`,
    api_key: apiKey,
    event_id: eventId,
    ...(fingerprint ? { fingerprint } : {}),
    ...(signing ? { signing_key: signing.key, signing_key_id: signing.kid } : {}),
  });
}

/** Where a key's pairing images live: `<dataDir>/pairing/api-key-<id>.png|svg`. */
export function pairingFiles(config: Pick<Config, 'dataDir'>, keyId: number): { dir: string; png: string; svg: string } {
  const dir = path.join(config.dataDir, 'pairing');
  return { dir, png: path.join(dir, `api-key-${keyId}.png`), svg: path.join(dir, `api-key-${keyId}.svg`) };
}

/** Writes the pairing QR as PNG and SVG under `<dataDir>/pairing/`: they hold the key, so 0600 in a 0700 folder. */
export async function writePairingQr(config: Config, keyId: number, link: string): Promise<{ png: string; svg: string }> {
  const { dir, png, svg } = pairingFiles(config, keyId);
  privateDir(config.dataDir, { existing: false });
  privateDir(dir, { existing: true });
  writePrivateFile(png, await QRCode.toBuffer(link, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 512 }));
  writePrivateFile(svg, await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
  return { png, svg };
}

/** Deletes a key's pairing images (on revocation: they hold the key). Returns the paths removed. */
export function removePairingQr(config: Pick<Config, 'dataDir'>, keyId: number): string[] {
  const { png, svg } = pairingFiles(config, keyId);
  const removed: string[] = [];
  for (const f of [png, svg]) {
    if (!fs.existsSync(f)) continue;
    fs.rmSync(f, { force: true });
    removed.push(f);
  }
  return removed;
}
