import { lockAttendees } from '../db/repos/locks.ts';
import type { Db } from '../db/connection.ts';
import { dropHeldChanges, holdChanges, releaseChanges } from '../db/change-feed.ts';
import { execute, executeInline, executeRun, type Prepared } from './dispatch.ts';
import { HttpError } from '../kernel/errors.ts';
import { errorResult, type Result } from '../kernel/result.ts';

/**
 * Runs the items of a batch in order, each in its own transaction, sharing one commit.
 *
 * On this kind of disk a SQLite commit costs far more than a check-in's statements (and on PostgreSQL a commit
 * is a round trip), so consecutive items whose handlers only talk to the database run inside one outer
 * transaction: `executeInline` wraps each write handler in a transaction, which becomes a SAVEPOINT inside the
 * outer one. Each item still commits or rolls back on its own (a failing item undoes only its own writes; an
 * `errorResult` keeps its log row), and items see the effects of earlier ones, exactly as with separate
 * transactions. What the items share is durability: they reach the disk together when the batch ends, before
 * the 207 is sent; a crash before that loses the whole batch and the client, having had no answer, sends it
 * again (check-ins carry nonces, so a replay is safe).
 *
 * With shared state in the database the group appends ONE change-log row, the union of what its committed items
 * changed, just before its COMMIT (server/db/change-feed.ts `holdChanges`), instead of a row (a round trip on
 * PostgreSQL) per item. An item whose handler awaits other I/O (scrypt, the network: `endpoint.async`) ends the
 * group first and runs on its own, so no transaction is held open across it.
 */
/**
 * Where a group's set-based runs start, and how long each is: consecutive items of one endpoint that has a
 * set-based way to run them (Endpoint.many) and whose input fits it.
 */
function setRuns(group: readonly (Prepared | HttpError)[]): Map<number, number> {
  const runs = new Map<number, number>();
  for (let k = 0; k < group.length; ) {
    const p = group[k] as Prepared | HttpError;
    const fits = (q: Prepared | HttpError | undefined): q is Prepared =>
      q !== undefined && !(q instanceof HttpError) && q.endpoint === (p as Prepared).endpoint && q.endpoint.many?.fits(q.input, q.ctx) === true;
    if (!fits(p)) {
      k++;
      continue;
    }
    let end = k + 1;
    while (fits(group[end])) end++;
    runs.set(k, end - k);
    k = end;
  }
  return runs;
}

export async function runGrouped(db: Db, items: readonly (Prepared | HttpError)[]): Promise<Result[]> {
  const results: Result[] = [];
  let i = 0;
  while (i < items.length) {
    const first = items[i] as Prepared | HttpError;
    if (first instanceof HttpError) {
      results.push(errorResult(first));
      i++;
      continue;
    }
    if (first.endpoint.async) {
      results.push(await execute(first));
      i++;
      continue;
    }
    let end = i;
    while (end < items.length) {
      const p = items[end] as Prepared | HttpError;
      if (!(p instanceof HttpError) && p.endpoint.async) break;
      end++;
    }
    const group = items.slice(i, end);
    const runs = setRuns(group);
    const attendees: number[] = [];
    for (const p of group) if (!(p instanceof HttpError)) attendees.push(...(p.endpoint.locks?.(p.input).attendees ?? []));
    const answers = await db.transaction(
      async () => {
        // The rows every item will lock, at once and in one order (db/repos/locks.ts), before the first item runs;
        // a group that is one set-based run locks them in its own first statement, in the same order.
        const whole = runs.size === 1 && runs.get(0) === group.length;
        if (!whole) await lockAttendees(db, attendees);
        holdChanges(db);
        try {
          const out: Result[] = [];
          for (let k = 0; k < group.length; ) {
            const p = group[k] as Prepared | HttpError;
            const run = runs.get(k);
            if (run !== undefined) {
              // A run that is the whole group needs no savepoint: its failure fails the group's transaction.
              out.push(...(await executeRun(group.slice(k, k + run) as Prepared[], { savepoint: !whole })));
              k += run;
              continue;
            }
            out.push(p instanceof HttpError ? errorResult(p) : await executeInline(p));
            k++;
          }
          // The group's one change-log row (what its committed items changed), in the transaction it describes.
          await releaseChanges(db);
          return out;
        } finally {
          // Nothing held may outlive the group: a later write would record into a set no one appends.
          dropHeldChanges(db);
        }
      },
      { immediate: true },
    );
    results.push(...answers);
    i = end;
  }
  return results;
}
