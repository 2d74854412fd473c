import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import type { Config } from './config.ts';
import { pairingLink as link } from '../shared/checkin/pairing.ts';

/** The kiosk pairing link for a door key: `{base}/kiosk/#pair=<base64url of {"url","api_key","event_id"}>`. */
export function pairingLink(config: Config, apiKey: string, eventId: number): string {
  return link(config.publicUrl, { url: `${config.publicUrl}/en/wp-json/`, api_key: apiKey, event_id: eventId });
}

/** Writes the pairing QR as PNG and SVG under `<dataDir>/pairing/`. */
export async function writePairingQr(config: Config, keyId: number, link: string): Promise<{ png: string; svg: string }> {
  const dir = path.join(config.dataDir, 'pairing');
  fs.mkdirSync(dir, { recursive: true });
  const png = path.join(dir, `api-key-${keyId}.png`);
  const svg = path.join(dir, `api-key-${keyId}.svg`);
  await QRCode.toFile(png, link, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 512 });
  fs.writeFileSync(svg, await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
  return { png, svg };
}
