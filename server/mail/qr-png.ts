import { createRequire } from 'node:module';

type QrPng = (text: string, opts?: { scale?: number; margin?: number }) => Buffer;
let impl: QrPng | null = null;

/**
 * The QR code of `text` as PNG (qr-png.cjs: plain CommonJS, so the mail thread runs the same code without a
 * TypeScript loader): `scale` pixels per module and a quiet zone of `margin` modules. Loaded on first use.
 */
export function qrPng(text: string, opts?: { scale?: number; margin?: number }): Buffer {
  impl ??= (createRequire(import.meta.url)('./qr-png.cjs') as { qrPng: QrPng }).qrPng;
  return impl(text, opts);
}
