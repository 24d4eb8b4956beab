// Statements of the context call's hot path whose SQL drizzle would otherwise rebuild on every call
// (walking a large `sql` tree and a select builder cost ~0.3 ms of Node CPU a call, more
// than the statements' own client work). Their text is built once per shape with drizzle
// placeholders (`sql.placeholder(name)`) where the values go, and each call only fills the values in:
// the same text, the same parameters, the same result mapping as the unprepared statement.
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { rowsOfResult, type Executor } from './client.js';

/** What runs a built statement: drizzle's prepared query of either driver. */
interface BuiltStatement<T> {
  execute(values: Record<string, unknown>): Promise<T>;
  /** Its text and parameters (placeholders where the values go): the SQL snapshots print them. */
  getQuery(): { sql: string; params: unknown[] };
}

/**
 * The placeholder of value `name`, typed as the value it stands for, so the SQL helpers that take
 * values take it as they are (drizzle puts a placeholder where it would put a parameter).
 */
export const slot = <T = string>(name: string): T => sql.placeholder(name) as unknown as T;

// Raw statements hold no columns, so no casing: the dialect's defaults are the database's own.
const dialect = new PgDialect();

/**
 * A cache of built statements per executor (a transaction is an executor of its own) and shape
 * key. The shapes are a caller's fixed variants (an anchor or none, a limit literal): a bounded set.
 */
export function builtStatements() {
  const byExecutor = new WeakMap<Executor, Map<string, BuiltStatement<unknown>>>();
  return function built<T>(
    executor: Executor,
    shape: string,
    build: (executor: Executor) => BuiltStatement<T>,
  ): BuiltStatement<T> {
    let shapes = byExecutor.get(executor);
    if (!shapes) byExecutor.set(executor, (shapes = new Map()));
    let statement = shapes.get(shape) as BuiltStatement<T> | undefined;
    if (!statement) shapes.set(shape, (statement = build(executor)));
    return statement;
  };
}

/**
 * A raw `sql` statement built once: what `executor.execute(query)` does on every call (drizzle turns
 * the tree into text and parameters, then prepares it on the executor's session), done here once.
 * The rows come back as `executor.execute` gives them (an array, or `{ rows }` on PGlite).
 */
export function rawStatement<T>(executor: Executor, query: SQL): BuiltStatement<T[] | { rows: T[] }> {
  return executor._.session.prepareQuery(dialect.sqlToQuery(query), undefined, undefined, false) as never;
}

/** The rows of a raw statement on either driver. */
export async function rowsOf<T>(pending: Promise<T[] | { rows: T[] }>): Promise<T[]> {
  return rowsOfResult(await pending);
}

/**
 * A raw statement whose text and parameter list are built once, then run on whichever executor a
 * call brings: for statements that run in a new transaction each time (ingest's), which
 * `builtStatements` would build again per executor. The same text and parameters as
 * `executor.execute(query)`.
 */
export function sharedStatement<T>(query: () => SQL) {
  let built: ReturnType<PgDialect['sqlToQuery']> | undefined;
  return (executor: Executor, values: Record<string, unknown>): Promise<T[]> => {
    built ??= dialect.sqlToQuery(query());
    const statement = executor._.session.prepareQuery(
      built,
      undefined,
      undefined,
      false,
    ) as unknown as BuiltStatement<T[] | { rows: T[] }>;
    return rowsOf(statement.execute(values));
  };
}
