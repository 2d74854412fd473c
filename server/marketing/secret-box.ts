import crypto from 'node:crypto';

/**
 * AES-256-GCM for credentials the server must be able to use later (a provider API key), keyed from the site
 * secret with HKDF and a purpose label: `v1.<iv>.<tag>.<ciphertext>` (base64url). Tampering fails decryption.
 */

function key(secret: string, purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), Buffer.from(`doorstep:${purpose}`), 32));
}

export function seal(secret: string, purpose: string, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key(secret, purpose), iv);
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return ['v1', iv, c.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The plaintext, or null when the box is malformed, tampered with or sealed under another secret. */
export function open(secret: string, purpose: string, box: string): string | null {
  const parts = box.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') return null;
  try {
    const [iv, tag, ct] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
    const d = crypto.createDecipheriv('aes-256-gcm', key(secret, purpose), iv);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(ct), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}
