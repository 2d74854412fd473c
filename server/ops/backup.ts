import Database from 'better-sqlite3';

/**
 * Copies the database file `source` into `target` (an existing empty file) with SQLite's online backup, which
 * a running server may keep writing through, then opens the copy on its own and answers its
 * `integrity_check` lines (`['ok']` when sound) and its page count. Cleaning up or keeping `target` is the caller's.
 */
export async function backupDatabase(source: string, target: string): Promise<{ check: string[]; pages: number }> {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(target);
  } finally {
    db.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    const check = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((r) => String(r.integrity_check));
    const pages = copy.pragma('page_count', { simple: true }) as number;
    return { check, pages };
  } finally {
    copy.close();
  }
}
