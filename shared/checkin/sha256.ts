/**
 * A small synchronous SHA-256 (FIPS 180-4), over text (`sha256Hex`: security codes) or bytes (`sha256`: the
 * kiosk PIN's PBKDF2 where WebCrypto is missing).
 *
 * Why not WebCrypto: `crypto.subtle` exists only in secure contexts, and a kiosk served at
 * `http://<venue LAN address>:8080/kiosk/` is not one. It is also async, which does not fit inside a Dexie
 * transaction. Inputs here are short (a security code), so speed is not a concern.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const encoder = new TextEncoder();
// Reused between calls: hashing 100,000 codes during a download should not allocate per call.
const w = new Int32Array(64);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex32(x: number): string {
  return HEX[(x >>> 24) & 255] + HEX[(x >>> 16) & 255] + HEX[(x >>> 8) & 255] + HEX[x & 255];
}

/** The eight words of the SHA-256 state, reused between calls like `w`. */
const state = new Int32Array(8);

/** Runs SHA-256 over `data`; the digest is left in `state` (big-endian words). */
function digest(data: Uint8Array): void {
  const length = data.length;
  // Message + 0x80 + zero padding + 64-bit big-endian bit length, rounded up to whole 64-byte blocks.
  const total = ((length + 9 + 63) >> 6) << 6;
  const bytes = new Uint8Array(total);
  bytes.set(data);
  bytes[length] = 0x80;
  const bitsHigh = Math.floor(length / 0x20000000);
  const bitsLow = (length << 3) >>> 0;
  bytes[total - 8] = bitsHigh >>> 24;
  bytes[total - 7] = bitsHigh >>> 16;
  bytes[total - 6] = bitsHigh >>> 8;
  bytes[total - 5] = bitsHigh;
  bytes[total - 4] = bitsLow >>> 24;
  bytes[total - 3] = bitsLow >>> 16;
  bytes[total - 2] = bitsLow >>> 8;
  bytes[total - 1] = bitsLow;

  let h0 = 0x6a09e667 | 0,
    h1 = 0xbb67ae85 | 0,
    h2 = 0x3c6ef372 | 0,
    h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0,
    h5 = 0x9b05688c | 0,
    h6 = 0x1f83d9ab | 0,
    h7 = 0x5be0cd19 | 0;
  for (let offset = 0; offset < total; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15],
        y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
  state[4] = h4;
  state[5] = h5;
  state[6] = h6;
  state[7] = h7;
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  digest(encoder.encode(text));
  return (
    hex32(state[0]) + hex32(state[1]) + hex32(state[2]) + hex32(state[3]) + hex32(state[4]) + hex32(state[5]) + hex32(state[6]) + hex32(state[7])
  );
}

/** SHA-256 of `data`, as 32 bytes. */
export function sha256(data: Uint8Array): Uint8Array {
  digest(data);
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) view.setInt32(i * 4, state[i]);
  return out;
}
