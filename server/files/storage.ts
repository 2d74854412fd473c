import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UPLOAD_TYPES, type UploadExt } from '../../shared/routes/protected-files.ts';

/**
 * Files on disk: `<dataDir>/files/public/` and `<dataDir>/files/protected/`, each file under a random name.
 * Nothing a client sends ever becomes part of a path: files are addressed by post ID, the stored relative path
 * must match a fixed shape, and the resolved real path must stay inside the files directory.
 */

export type Area = 'public' | 'protected';
const STORED = /^(public|protected)\/([a-f0-9]{32}\.[a-z0-9]{1,5})$/;

export function filesRoot(dataDir: string): string {
  return path.resolve(dataDir, 'files');
}

function ensureArea(root: string, area: Area): string {
  const dir = path.join(root, area);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The absolute path of a stored file, or null if the stored path is malformed or escapes the directory. */
export function resolveStored(dataDir: string, rel: string | null): string | null {
  if (!rel || !STORED.test(rel)) return null;
  const root = filesRoot(dataDir);
  const abs = path.resolve(root, rel);
  if (!abs.startsWith(root + path.sep)) return null;
  try {
    // A symlink planted in the directory must not lead outside it.
    const real = fs.realpathSync(abs);
    const realRoot = fs.realpathSync(root);
    return real.startsWith(realRoot + path.sep) ? real : null;
  } catch {
    return null;
  }
}

export function storedExists(dataDir: string, rel: string | null): boolean {
  const abs = resolveStored(dataDir, rel);
  return abs !== null && fs.statSync(abs).isFile();
}

/** Writes new bytes under a random name; returns the stored relative path. */
export function writeNew(dataDir: string, area: Area, ext: UploadExt, bytes: Buffer): string {
  const dir = ensureArea(filesRoot(dataDir), area);
  const name = `${crypto.randomBytes(16).toString('hex')}.${ext === 'jpeg' ? 'jpg' : ext}`;
  fs.writeFileSync(path.join(dir, name), bytes, { flag: 'wx', mode: 0o600 });
  return `${area}/${name}`;
}

/** Deletes a stored file (only ever inside the files directory). */
export function removeStored(dataDir: string, rel: string): void {
  const abs = resolveStored(dataDir, rel);
  if (abs) fs.rmSync(abs, { force: true });
}

/** Moves a stored file to the other area; returns its new relative path (unchanged if already there). */
export function moveTo(dataDir: string, rel: string, area: Area): string {
  const m = STORED.exec(rel);
  const abs = resolveStored(dataDir, rel);
  if (!m || !abs) throw new Error('stored file missing');
  if (m[1] === area) return rel;
  const dir = ensureArea(filesRoot(dataDir), area);
  fs.renameSync(abs, path.join(dir, m[2]));
  return `${area}/${m[2]}`;
}

/** The type the bytes really are, from their signature; text must be UTF-8 without NUL bytes. */
export function sniff(bytes: Buffer): 'png' | 'jpg' | 'gif' | 'webp' | 'pdf' | 'text' | null {
  const head = (n: number) => bytes.subarray(0, n);
  if (head(8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head(3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpg';
  if (['GIF87a', 'GIF89a'].includes(head(6).toString('latin1'))) return 'gif';
  if (head(4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (head(5).toString('latin1') === '%PDF-') return 'pdf';
  if (bytes.includes(0)) return null;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'text';
  } catch {
    return null;
  }
}

/** Whether the sniffed type is what the extension claims. */
export function typeMatches(ext: UploadExt, sniffed: ReturnType<typeof sniff>): boolean {
  if (sniffed === null) return false;
  if (ext === 'txt' || ext === 'csv') return sniffed === 'text';
  if (ext === 'jpeg') return sniffed === 'jpg';
  return sniffed === ext;
}

export function mimeOf(ext: UploadExt): string {
  return UPLOAD_TYPES[ext];
}
