import fs from 'node:fs';
import path from 'node:path';

/**
 * Files that hold a key, a password hash or a ticket code (the database, pairing QR images, demo ticket QR
 * images, mail .eml files) are written 0600 in 0700 folders (CONTRACT section 3), whatever the process umask:
 * modes are set with chmod after creation, never by changing the process-wide umask.
 */

/**
 * Creates `dir` (and missing parents) as 0700, chmod-ing each folder it created (umask-proof). An existing
 * folder is made 0700 only with `existing: true` (folders that are ours alone, such as `<dataDir>/pairing`): the
 * database's own folder may be one the operator shares, such as /tmp, and is left as it is.
 */
export function privateDir(dir: string, opts: { existing: boolean }): void {
  const abs = path.resolve(dir);
  const first = fs.mkdirSync(abs, { recursive: true, mode: 0o700 });
  if (first !== undefined) {
    for (let d = abs; ; d = path.dirname(d)) {
      fs.chmodSync(d, 0o700);
      if (d === path.resolve(first) || d === path.dirname(d)) break;
    }
  } else if (opts.existing) fs.chmodSync(abs, 0o700);
}

/** Makes an existing file 0600 (a missing one is fine: SQLite's -wal and -shm come and go). */
export function privateFile(file: string): void {
  try {
    fs.chmodSync(file, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Writes `data` to `file` as 0600, atomically (a temporary file renamed over it), replacing any older file and its mode. */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}
