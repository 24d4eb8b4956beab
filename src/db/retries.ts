// What runs again when PostgreSQL fails a statement for a reason a retry fixes: a read whose
// connection was cut, a transaction rolled back for a deadlock or a serialization failure; and the
// work a transaction leaves for after its commit (afterCommit).
import { databaseFailure } from '../shared/errors.js';
import type { Db, Executor } from './client.js';

const RETRY_PAUSE_MS = 50;
/** Retries of a read (or a BEGIN) whose connection was cut. */
const READ_RETRIES = 2;
/** A read outside a transaction can run again on a new connection when its connection was cut. */
export const READ_STATEMENT = /^\s*(\/\*[^*]*\*\/\s*)*select\b/i;

/**
 * Runs `attempt` again (at most READ_RETRIES times) while it fails because its connection was cut
 * and `safe()` says nothing was done. One cut connection can fail two statements in a row (the
 * one that found the socket reset, then the server's termination notice), and connections cut
 * together close together: a pause lets the pool see them close.
 */
export async function retryConnectionLoss<T>(attempt: () => Promise<T>, safe: () => boolean): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= READ_RETRIES || !safe() || databaseFailure(error) !== 'connection_lost') throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
}

/** Retries of a transaction (or a statement outside one) the server rolled back for a conflict. */
const CONFLICT_RETRIES = 3;
const CONFLICT_PAUSE_MS = 20;

/**
 * Runs `attempt` again (at most CONFLICT_RETRIES times) while the server rolls it back for a
 * deadlock or a serialization failure: nothing of it was applied, and the transaction it met has
 * usually finished by the next try. The pause doubles and is jittered, so two transactions that
 * deadlocked do not meet again in step. Past the retries the error goes on (503
 * storage.write_conflict).
 */
export async function retryWriteConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= CONFLICT_RETRIES || databaseFailure(error) !== 'write_conflict') throw error;
      await new Promise((resolve) =>
        setTimeout(resolve, CONFLICT_PAUSE_MS * 2 ** retry * (0.5 + Math.random())),
      );
    }
  }
}

/** Work to run once a top-level transaction has committed, by its transaction object. */
const commitWork = new WeakMap<object, (() => void)[]>();

/**
 * Runs `work` once the transaction `tx` has committed (nothing if it rolls back; an attempt rolled
 * back for a conflict drops what it registered, and its retry registers again); on the database
 * itself or a savepoint, at once. For background work that must see the transaction's writes
 * (queueing a job whose worker reads them); `work` must not throw.
 */
export function afterCommit(tx: Executor, work: () => void): void {
  const list = commitWork.get(tx);
  if (list) list.push(work);
  else work();
}

/**
 * The database with its top-level transactions retried on a write conflict: `transaction(fn)` runs
 * `fn` again in a new transaction, so a callback writes only through its transaction (what it
 * computes besides is computed again). Savepoints (`tx.transaction`) are not retried: the
 * conflict aborts the whole transaction, which is retried from its start. Work registered with
 * `afterCommit` runs after the commit.
 */
export function retryingTransactions(db: Db): Db {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== 'transaction') return value;
      const transaction = value as Db['transaction'];
      return (async (fn, config) => {
        let committed: (() => void)[] = [];
        const result = await retryWriteConflicts(() => {
          const work: (() => void)[] = [];
          committed = work;
          return transaction.call(
            target,
            (tx) => {
              commitWork.set(tx, work);
              return fn(tx);
            },
            config,
          );
        });
        for (const work of committed) work();
        return result;
      }) as Db['transaction'];
    },
  });
}
