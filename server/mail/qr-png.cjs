'use strict';
// A QR code as a PNG, built synchronously (no stream plumbing, no PNG library at run time): `qrcode` computes the
// modules, this writes a one-bit grayscale PNG (black and white are all a QR code has: an eighth of the bytes of an
// 8-bit image to build, checksum and deflate; a ticket e-mail makes one per attendee, and at 8 bits the PNGs were
// 14% of a server's CPU in a checkout profile). Plain CommonJS, so the mail thread (mail-worker.cjs) runs it without
// a TypeScript loader; the request thread reaches it through qr-png.ts.
const zlib = require('node:zlib');
const QRCode = require('qrcode');

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  // zlib's CRC-32 is PNG's (Node 20.15 and later; package.json asks for 20.19).
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A one-bit grayscale PNG from its filtered rows (`raw`: each row's filter byte, then its bytes). */
function bilevelPng(width, height, raw) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // colour type: grayscale
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The QR code of `text` as PNG: `scale` pixels per module and a quiet zone of `margin` modules.
 * @param {string} text
 * @param {{ scale?: number, margin?: number }} [opts]
 * @returns {Buffer}
 */
function qrPng(text, opts = {}) {
  const scale = opts.scale ?? 8;
  const margin = opts.margin ?? 4;
  // One byte-mode segment: the automatic segmentation costs several times the rest and gains nothing for URLs.
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
  const side = (modules.size + 2 * margin) * scale;
  // One bit a pixel, 1 white: rows of `stride` bytes after their filter byte (0, none); white to begin with.
  const stride = Math.ceil(side / 8);
  const row = stride + 1;
  const raw = Buffer.alloc(row * side, 0xff);
  for (let y = 0; y < side; y++) raw[y * row] = 0;
  for (let r = 0; r < modules.size; r++) {
    // The module row's first pixel row, then copied to the `scale - 1` below it.
    const first = (r + margin) * scale * row + 1;
    for (let c = 0; c < modules.size; c++) {
      if (!modules.get(r, c)) continue;
      const x0 = (c + margin) * scale;
      for (let x = x0; x < x0 + scale; x++) raw[first + (x >> 3)] = raw[first + (x >> 3)] & ~(0x80 >> (x & 7)) & 0xff;
    }
    for (let dy = 1; dy < scale; dy++) raw.copy(raw, first + dy * row, first, first + stride);
  }
  return bilevelPng(side, side, raw);
}

module.exports = { qrPng };
