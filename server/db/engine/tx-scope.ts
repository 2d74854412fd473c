import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which transaction the calling asynchronous flow is in. `transaction(fn)` runs `fn` in a scope of its own, so
 * every statement made from inside it (however deep the calls, across awaits) runs in that transaction, and a
 * request running beside it never does. Handlers need not pass a transaction handle down: the handle they
 * hold (`ctx.db`) finds the flow's transaction here.
 */
export interface TxScope {
  /** The database handle the transaction is on (a flow may read another database outside it). */
  readonly owner: object;
  /** False once COMMIT or ROLLBACK was sent: work the flow started and left running goes outside it. */
  open: boolean;
  /** Savepoint nesting depth. */
  depth: number;
  /** True once the transaction has ended (committed or rolled back). */
  ended?: boolean;
  /** Called once it has ended: see `outsideTransaction`. */
  onEnd?: (() => void)[];
}

/** Ends `scope`: later statements of its flow go outside it, and whoever waits for its end is told. */
export function endScope(scope: TxScope): void {
  scope.open = false;
  if (scope.ended) return;
  scope.ended = true;
  const waiting = scope.onEnd;
  scope.onEnd = undefined;
  if (waiting) for (const f of waiting) f();
}

/**
 * Runs `fn` outside any transaction, once the calling flow's transaction (if it is in one) has ended: work a
 * transaction starts for later (a delivery of the mail it queued) must neither join it nor read before it commits.
 */
export async function outsideTransaction<T>(fn: () => Promise<T>): Promise<T> {
  const s = txScope.getStore();
  if (s && !s.ended) await new Promise<void>((resolve) => (s.onEnd ??= []).push(resolve));
  return txScope.exit(fn);
}

export const txScope = new AsyncLocalStorage<TxScope>();

/** The open transaction of `owner` the calling flow is in, if any. */
export function currentTx<S extends TxScope>(owner: object): S | undefined {
  const s = txScope.getStore();
  return s !== undefined && s.owner === owner && s.open ? (s as S) : undefined;
}
