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
}

export const txScope = new AsyncLocalStorage<TxScope>();

/** The open transaction of `owner` the calling flow is in, if any. */
export function currentTx<S extends TxScope>(owner: object): S | undefined {
  const s = txScope.getStore();
  return s !== undefined && s.owner === owner && s.open ? (s as S) : undefined;
}
