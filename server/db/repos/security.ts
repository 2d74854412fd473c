import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';

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

export function insertScan(db: Db, s: Omit<ScanRow, 'id'>): number {
  return Number(
    stmt(db, 'INSERT INTO security_scans (started, finished, issue_count, user_id) VALUES (?, ?, ?, ?)').run(
      s.started,
      s.finished,
      s.issue_count,
      s.user_id,
    ).lastInsertRowid,
  );
}

export function latestScan(db: Db): ScanRow | undefined {
  return stmt(db, 'SELECT * FROM security_scans ORDER BY id DESC LIMIT 1').get() as ScanRow | undefined;
}

export function insertIssue(db: Db, i: Omit<IssueRow, 'id'>): void {
  stmt(
    db,
    'INSERT INTO security_issues (scan_id, type, severity, status, ignore_key, detail_hash, short_msg, long_msg, data, time, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(i.scan_id, i.type, i.severity, i.status, i.ignore_key, i.detail_hash, i.short_msg, i.long_msg, i.data, i.time, i.last_updated);
}

/** Issues of a scan, most severe first; `pending` keeps only those not dismissed. */
export function listIssues(db: Db, scanId: number, pending: boolean, offset: number, limit: number): IssueRow[] {
  return stmt(db, "SELECT * FROM security_issues WHERE scan_id = ? AND (? = 0 OR status = 'new') ORDER BY severity DESC, id LIMIT ? OFFSET ?").all(
    scanId,
    pending ? 1 : 0,
    limit,
    offset,
  ) as IssueRow[];
}

export function countIssues(db: Db, scanId: number, pending: boolean): number {
  return (
    stmt(db, "SELECT COUNT(*) AS n FROM security_issues WHERE scan_id = ? AND (? = 0 OR status = 'new')").get(scanId, pending ? 1 : 0) as {
      n: number;
    }
  ).n;
}

export function getIssue(db: Db, id: number): IssueRow | undefined {
  return stmt(db, 'SELECT * FROM security_issues WHERE id = ?').get(id) as IssueRow | undefined;
}

export function setIssueStatus(db: Db, id: number, status: IssueStatus, now: string): void {
  stmt(db, 'UPDATE security_issues SET status = ?, last_updated = ? WHERE id = ?').run(status, now, id);
}

export interface DismissalRow {
  ignore_key: string;
  status: 'ignoreP' | 'ignoreC';
  detail_hash: string;
  time: string;
}

export function getDismissal(db: Db, key: string): DismissalRow | undefined {
  return stmt(db, 'SELECT * FROM security_dismissals WHERE ignore_key = ?').get(key) as DismissalRow | undefined;
}

export function putDismissal(db: Db, d: DismissalRow): void {
  stmt(
    db,
    'INSERT INTO security_dismissals (ignore_key, status, detail_hash, time) VALUES (?, ?, ?, ?) ON CONFLICT(ignore_key) DO UPDATE SET status = excluded.status, detail_hash = excluded.detail_hash, time = excluded.time',
  ).run(d.ignore_key, d.status, d.detail_hash, d.time);
}

export function deleteDismissal(db: Db, key: string): void {
  stmt(db, 'DELETE FROM security_dismissals WHERE ignore_key = ?').run(key);
}
