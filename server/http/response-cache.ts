import type { Db } from '../db/connection.ts';
import { stmt } from '../db/connection.ts';
import type { Result } from './result.ts';

/**
 * Reuse of anonymous GET answers of routes marked `publicCache` (public event, venue, organizer and term
 * reads; indexes and docs). An entry is valid while nothing was written: our own writes bump the app's
 * `contentVersion`, other processes' commits (the CLI) change SQLite's `data_version`; a TTL bounds answers
 * that depend on the clock (the archive's default date window moves at midnight).
 */
export interface CachedAnswer {
  result: Result;
  allow: string;
  routeKey: string;
  /** The body as UTF-8 JSON, serialised and encoded once. */
  json: Buffer;
}

interface Entry extends CachedAnswer {
  version: string;
  expires: number;
}

const TTL_MS = 60_000;
const MAX_ENTRIES = 2_000;
const MAX_BYTES = 4 * 1024 * 1024;

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly enabled: boolean;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  private version(db: Db, contentVersion: number): string {
    return `${contentVersion}:${stmt(db, 'PRAGMA data_version').pluck().get() as number}`;
  }

  get(db: Db, contentVersion: number, key: string): CachedAnswer | undefined {
    if (!this.enabled) return undefined;
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires < Date.now() || e.version !== this.version(db, contentVersion)) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Stores an answer; returns its serialised body (also when it is too large to keep), or undefined when off. */
  set(db: Db, contentVersion: number, key: string, answer: Omit<CachedAnswer, 'json'>): Buffer | undefined {
    if (!this.enabled) return undefined;
    const json = Buffer.from(JSON.stringify(answer.result.body));
    if (json.length > MAX_BYTES) return json;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { ...answer, json, version: this.version(db, contentVersion), expires: Date.now() + TTL_MS });
    return json;
  }
}
