import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

export interface ScanRow {
  id: number;
  started: string;
  finished: string;
  issue_count: number;
  user_id: number;
}

export type IssueStatus = 'new' | 'ignoreP' | 'ignoreC';

export interface IssueRow {
  id: number;
  scan_id: number;
  type: string;
  severity: number;
  status: IssueStatus;
  ignore_key: string;
  detail_hash: string;
  short_msg: string;
  long_msg: string;
  data: string;
  time: string;
  last_updated: string;
}

export async function insertScan(db: Db, s: Omit<ScanRow, 'id'>): Promise<number> {
  return Number(
    (
      await statement(db, 'INSERT INTO security_scans (started, finished, issue_count, user_id) VALUES (?, ?, ?, ?) RETURNING id').run(
        s.started,
        s.finished,
        s.issue_count,
        s.user_id,
      )
    ).lastInsertRowid,
  );
}

export async function latestScan(db: Db): Promise<ScanRow | undefined> {
  return (await statement(db, 'SELECT * FROM security_scans ORDER BY id DESC LIMIT 1').get()) as ScanRow | undefined;
}

export async function insertIssue(db: Db, i: Omit<IssueRow, 'id'>): Promise<void> {
  await statement(
    db,
    'INSERT INTO security_issues (scan_id, type, severity, status, ignore_key, detail_hash, short_msg, long_msg, data, time, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(i.scan_id, i.type, i.severity, i.status, i.ignore_key, i.detail_hash, i.short_msg, i.long_msg, i.data, i.time, i.last_updated);
}

/** Issues of a scan, most severe first; `pending` keeps only those not dismissed. */
export async function listIssues(db: Db, scanId: number, pending: boolean, offset: number, limit: number): Promise<IssueRow[]> {
  return (await statement(
    db,
    "SELECT * FROM security_issues WHERE scan_id = ? AND (? = 0 OR status = 'new') ORDER BY severity DESC, id LIMIT ? OFFSET ?",
  ).all(scanId, pending ? 1 : 0, limit, offset)) as IssueRow[];
}

export async function countIssues(db: Db, scanId: number, pending: boolean): Promise<number> {
  return (
    (await statement(db, "SELECT COUNT(*) AS n FROM security_issues WHERE scan_id = ? AND (? = 0 OR status = 'new')").get(
      scanId,
      pending ? 1 : 0,
    )) as {
      n: number;
    }
  ).n;
}

export async function getIssue(db: Db, id: number): Promise<IssueRow | undefined> {
  return (await statement(db, 'SELECT * FROM security_issues WHERE id = ?').get(id)) as IssueRow | undefined;
}

export async function setIssueStatus(db: Db, id: number, status: IssueStatus, now: string): Promise<void> {
  await statement(db, 'UPDATE security_issues SET status = ?, last_updated = ? WHERE id = ?').run(status, now, id);
}

export interface DismissalRow {
  ignore_key: string;
  status: 'ignoreP' | 'ignoreC';
  detail_hash: string;
  time: string;
}

export async function getDismissal(db: Db, key: string): Promise<DismissalRow | undefined> {
  return (await statement(db, 'SELECT * FROM security_dismissals WHERE ignore_key = ?').get(key)) as DismissalRow | undefined;
}

export async function putDismissal(db: Db, d: DismissalRow): Promise<void> {
  await statement(
    db,
    'INSERT INTO security_dismissals (ignore_key, status, detail_hash, time) VALUES (?, ?, ?, ?) ON CONFLICT(ignore_key) DO UPDATE SET status = excluded.status, detail_hash = excluded.detail_hash, time = excluded.time',
  ).run(d.ignore_key, d.status, d.detail_hash, d.time);
}

export async function deleteDismissal(db: Db, key: string): Promise<void> {
  await statement(db, 'DELETE FROM security_dismissals WHERE ignore_key = ?').run(key);
}
