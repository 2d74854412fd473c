import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The private downloads directory of download-all: `<dataDir>/downloads/`, owner-only. Files get random
 * names; a name given back by a client is accepted only as a bare file name of a regular file that really
 * lives in this directory (no separators, no `..`, no absolute path, no NUL, no encoded characters, no
 * symbolic link), checked again on the resolved real path.
 */

/** How long a download-all file and its link live. */
export const DOWNLOAD_TTL_SECONDS = 15 * 60;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}\.(csv|zip)$/;

export function downloadsDir(dataDir: string): string {
  const dir = path.join(path.resolve(dataDir), 'downloads');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function writeDownload(dir: string, ext: 'csv' | 'zip', data: string | Uint8Array): string {
  const name = `${crypto.randomBytes(16).toString('hex')}.${ext}`;
  fs.writeFileSync(path.join(dir, name), data, { flag: 'wx', mode: 0o600 });
  return name;
}

export type Resolved = { ok: true; file: string } | { ok: false; reason: 'forbidden' | 'missing' };

/** The real path of a download file named by a client, or why it is refused. */
export function resolveDownload(dir: string, name: unknown): Resolved {
  if (typeof name !== 'string' || name.includes('\0') || path.isAbsolute(name) || path.win32.isAbsolute(name))
    return { ok: false, reason: 'forbidden' };
  if (name.includes('/') || name.includes('\\') || name.includes('..') || !NAME.test(name)) return { ok: false, reason: 'forbidden' };
  let realDir: string;
  try {
    realDir = fs.realpathSync(dir);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  const candidate = path.join(realDir, name);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(candidate);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  if (st.isSymbolicLink() || !st.isFile()) return { ok: false, reason: 'forbidden' };
  const real = fs.realpathSync(candidate);
  if (path.dirname(real) !== realDir) return { ok: false, reason: 'forbidden' };
  return { ok: true, file: real };
}

/** Removes download files older than their link (regular files only; anything else is left alone). */
export function pruneDownloads(dir: string, now = Date.now()): void {
  for (const name of fs.readdirSync(dir)) {
    if (!NAME.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (st.isFile() && now - st.mtimeMs > DOWNLOAD_TTL_SECONDS * 1000) fs.unlinkSync(file);
    } catch {
      // Gone already (another request pruned it).
    }
  }
}
