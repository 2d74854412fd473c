import { createRequire } from 'node:module';

/**
 * The QR code of `text` as PNG (qr-png.cjs: plain CommonJS, so the mail thread runs the same code without a
 * TypeScript loader): `scale` pixels per module and a quiet zone of `margin` modules.
 */
export const qrPng: (text: string, opts?: { scale?: number; margin?: number }) => Buffer = createRequire(import.meta.url)('./qr-png.cjs').qrPng;
