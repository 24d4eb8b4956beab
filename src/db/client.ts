// Driver selection: postgres.js when DATABASE_URL is set, embedded PGlite on disk otherwise.
// Both give the same drizzle `Db` type, so repositories never know which one they run on.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { sql as drizzleSql, type ExtractTablesWithRelations, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { DatabaseTimeoutError, databaseFailure } from '../shared/errors.js';
import { READ_STATEMENT, retryConnectionLoss, retryingTransactions, retryWriteConflicts } from './retries.js';
import * as schema from './schema.js';

type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** What a repository method runs on: the database or an open transaction. */
export type Executor = Db | Tx;

export interface PoolState {
  inUse: number;
  idle: number;
  waiting: number;
}

export type Database =
  | {
      kind: 'postgres';
      db: Db;
      sql: postgres.Sql;
      /** The statement deadline of `db` (0: none); advisory locks on `sql` keep it too. */
      statementTimeoutMs: number;
      /**
       * `db` on connections of their own whose prepared statements always use their generic plan
       * (plan_cache_mode = force_generic_plan; a small pool, opened as used), for read-only
       * statements whose custom plan costs far more to make than to run and whose generic plan is
       * right for every input (full-text candidate reads of rare lexemes: a 0.75 ms plan for a
       * 0.05 ms read). Nothing else runs there. `db` itself when turned off (`genericPlans`).
       */
      genericPlanDb: Db;
      /**
       * `db` for reads that tolerate replication lag (docs/operations.md, "Read replicas"): the
       * replica of `readUrl`, each read falling back to the primary while the replica cannot be
       * reached; `db` itself without one.
       */
      readDb: Db;
      /** The primary pool's connections running queries, idle ones, and queries waiting for one. */
      pool(): PoolState | null;
      close(): Promise<void>;
    }
  | { kind: 'pglite'; db: Db; readDb: Db; pglite: PGlite; close(): Promise<void> };

export interface DatabaseOptions {
  databaseUrl?: string;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir: string;
  /** Migrated PGlite data directory to start from (tests). */
  loadDataDir?: Blob;
  maxConnections?: number;
  /** Server-side prepared statements for fixed-shape queries (postgres.js only); default true. */
  prepare?: boolean;
  /** Database.genericPlanDb on connections of its own (postgres.js with `prepare` only); default true. */
  genericPlans?: boolean;
  /**
   * A statement (or the BEGIN of a transaction) not answered within this many ms fails with
   * DatabaseTimeoutError; 0 waits forever (postgres.js only).
   */
  statementTimeoutMs?: number;
  /** Opening a connection gives up after this many ms (postgres.js only; default 30 s). */
  connectTimeoutMs?: number;
  /**
   * Called with every statement drizzle sends (postgres.js only; benchmarks count them, and
   * bench:call-cost replays them): its text, its parameters, and whether it went to
   * Database.genericPlanDb's connections. Seen in the client wrapper, not through postgres.js's
   * `debug` option, which makes every query capture a stack trace (~15 µs) and so would weigh on
   * what a benchmark measures.
   */
  onStatement?: StatementListener;
  /** A read replica for Database.readDb (postgres.js only). */
  readUrl?: string;
  /** Called when a read meant for the replica runs on the primary because the replica failed. */
  onReplicaFallback?: (error: unknown) => void;
}

/**
 * Marks a query to be parsed and planned on every execution: variable-shape SQL (a search whose
 * text depends on the number of terms) and queries whose best plan depends on their parameters.
 */
const UNPREPARED_MARK = '/* unprepared */';
export const unprepared = (query: SQL): SQL => drizzleSql`${drizzleSql.raw(UNPREPARED_MARK)} ${query}`;

/** Queries above these sizes are run unprepared: their text usually varies with the input's length. */
const PREPARE_MAX_PARAMS = 64;
const PREPARE_MAX_CHARS = 16_000;

/**
 * Whether postgres.js should run a query as a named prepared statement. Prepared, a query is
 * parsed once per connection and then costs one round trip (Bind/Execute); unprepared,
 * postgres.js sends Parse/Describe, waits, then Bind/Execute — two round trips and a parse and a
 * plan every time. Statements are cached per connection by text, so only fixed-shape queries
 * (bounded parameter count, no marker) are prepared; PostgreSQL still chooses between custom and
 * generic plans as usual.
 */
export function shouldPrepare(query: string, params: readonly unknown[] | undefined): boolean {
  const count = params?.length ?? 0;
  return (
    count > 0 &&
    count <= PREPARE_MAX_PARAMS &&
    query.length <= PREPARE_MAX_CHARS &&
    !query.includes(UNPREPARED_MARK)
  );
}

type PendingQuery = PromiseLike<unknown> & { values(): PendingQuery };
type UnsafeFn = (query: string, params?: unknown[], options?: Record<string, unknown>) => PendingQuery;
type ScopedFn = (...args: unknown[]) => unknown;

export type StatementListener = (
  query: string,
  params: readonly unknown[] | undefined,
  plans: 'generic' | 'default',
) => void;

interface ClientPolicy {
  prepare: boolean;
  statementTimeoutMs: number;
  onStatement?: StatementListener | undefined;
  plans: 'generic' | 'default';
}

/**
 * One statement under a deadline: awaited (drizzle awaits `unsafe(…)` or `unsafe(…).values()`),
 * it runs, rejects with DatabaseTimeoutError past the deadline, and — a read outside a
 * transaction — runs again when its connection was cut (pg_terminate_backend, a restart, a proxy
 * dropping idle connections).
 */
function statement(
  run: () => PendingQuery,
  policy: ClientPolicy,
  scope: { retryReads: boolean; readOnly: boolean; onTimeout?: (error: DatabaseTimeoutError) => void },
) {
  let valuesMode = false;
  let result: Promise<unknown> | undefined;
  const attempt = (): Promise<unknown> => {
    const query = valuesMode ? run().values() : run();
    if (!policy.statementTimeoutMs) return Promise.resolve(query);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Not cancelled: postgres.js drops the promise of its cancel request, so a cancel that
        // cannot connect (the frozen server) would be an unhandled rejection. The statement
        // keeps its connection until the server answers.
        const error = new DatabaseTimeoutError(policy.statementTimeoutMs);
        scope.onTimeout?.(error);
        reject(error);
      }, policy.statementTimeoutMs);
      query.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (error: unknown) => (clearTimeout(timer), reject(error)),
      );
    });
  };
  // Outside a transaction a statement is its own transaction: rolled back for a conflict, it runs again.
  const settle = () =>
    (result ??= scope.retryReads
      ? retryWriteConflicts(() => (scope.readOnly ? retryConnectionLoss(attempt, () => true) : attempt()))
      : attempt());
  return deferredQuery(() => (valuesMode = true), settle);
}

/**
 * What drizzle awaits in place of `unsafe(…)`: `values()` (array rows) is called before the first
 * await, and `settle` runs the statement when it is awaited.
 */
function deferredQuery(onValues: () => void, settle: () => Promise<unknown>) {
  const pending = {
    values() {
      onValues();
      return pending;
    },
    then<A, B>(onValue?: (value: unknown) => A, onError?: (error: unknown) => B) {
      return settle().then(onValue, onError);
    },
  };
  return pending;
}

/**
 * The postgres.js client drizzle sees: `unsafe` (every drizzle query goes through it) prepares
 * what `shouldPrepare` allows and runs under the statement deadline; transactions and savepoints
 * hand their callbacks a client wrapped alike. A transaction whose statement timed out rejects at
 * once: its ROLLBACK would wait on the same unanswering connection.
 */
function wrapClient(
  client: postgres.Sql,
  policy: ClientPolicy,
  inTransaction?: (error: DatabaseTimeoutError) => void,
): postgres.Sql {
  const scopedBegin =
    (target: ScopedFn, self: object) =>
    (...args: unknown[]) => {
      const last = args.length - 1;
      const fn = args[last] as (inner: postgres.Sql) => unknown;
      if (inTransaction) {
        // A savepoint inside a transaction: the transaction's deadline handling covers it.
        args[last] = (inner: postgres.Sql) => fn(wrapClient(inner, policy, inTransaction));
        return target.apply(self, args);
      }
      let abort: (error: unknown) => void = () => {};
      const aborted = new Promise<never>((_, reject) => (abort = reject));
      // BEGIN itself (and waiting for a connection) is under the deadline until the callback runs.
      const timer = policy.statementTimeoutMs
        ? setTimeout(
            () => abort(new DatabaseTimeoutError(policy.statementTimeoutMs)),
            policy.statementTimeoutMs,
          )
        : undefined;
      // A transaction that failed on a cut connection before its callback ran did nothing: run again.
      let started = false;
      args[last] = (inner: postgres.Sql) => {
        started = true;
        clearTimeout(timer);
        return fn(wrapClient(inner, policy, abort));
      };
      const done = retryConnectionLoss(
        () => Promise.resolve(target.apply(self, args)),
        () => !started,
      );
      done.catch(() => {});
      return Promise.race([done, aborted]).finally(() => clearTimeout(timer));
    };
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'unsafe') {
        const unsafe = value as UnsafeFn;
        return (query: string, params?: unknown[], options?: Record<string, unknown>) => {
          policy.onStatement?.(query, params, policy.plans);
          return statement(
            () =>
              unsafe.call(target, query, params, {
                ...options,
                prepare: options?.prepare === true || (policy.prepare && shouldPrepare(query, params)),
              }),
            policy,
            { retryReads: !inTransaction, readOnly: READ_STATEMENT.test(query), onTimeout: inTransaction },
          );
        };
      }
      if (key === 'begin' || key === 'savepoint') return scopedBegin(value as ScopedFn, target);
      return typeof value === 'function' ? (value as ScopedFn).bind(target) : value;
    },
  });
}

/** After a replica failure, reads go to the primary this long before the replica is tried again. */
const REPLICA_RETRY_MS = 5_000;
/** Connection failures, and a standby cancelling a read that conflicts with recovery (40001). */
const REPLICA_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  '40001',
]);

const replicaFailed = (error: unknown): boolean => {
  const failure = databaseFailure(error);
  if (failure === 'connection_lost' || failure === 'timeout') return true;
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).code ??
    (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' && (REPLICA_UNREACHABLE.has(code) || code.startsWith('57P'));
};

/**
 * The client of Database.readDb: every query on the replica, and on the primary when the replica
 * fails to answer (then for REPLICA_RETRY_MS, so an unreachable replica costs one failed attempt,
 * not one per read). A read run twice is harmless. Transactions go to the primary.
 */
function replicaClient(
  replica: postgres.Sql,
  primary: postgres.Sql,
  onFallback: (error: unknown) => void,
): postgres.Sql {
  let primaryUntil = 0;
  return new Proxy(primary, {
    get(target, key, receiver) {
      if (key !== 'unsafe') return Reflect.get(target, key, receiver) as unknown;
      return (query: string, params?: unknown[], options?: Record<string, unknown>) => {
        let valuesMode = false;
        const run = (client: postgres.Sql) => {
          const pending = (client.unsafe as unknown as UnsafeFn)(query, params, options);
          return Promise.resolve(valuesMode ? pending.values() : pending);
        };
        let result: Promise<unknown> | undefined;
        const settle = () =>
          (result ??= (async () => {
            if (Date.now() < primaryUntil) return run(primary);
            try {
              return await run(replica);
            } catch (error) {
              if (!replicaFailed(error)) throw error;
              primaryUntil = Date.now() + REPLICA_RETRY_MS;
              onFallback(error);
              return run(primary);
            }
          })());
        return deferredQuery(() => (valuesMode = true), settle);
      };
    },
  });
}

/** Connections of Database.genericPlanDb (beside `maxConnections`): opened when first used. */
const GENERIC_PLAN_CONNECTIONS = 4;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      // The connection-wide default covers what postgres.js sends itself (BEGIN, COMMIT,
      // ROLLBACK, savepoints); the wrapper below decides per statement only for queries.
      prepare: options.prepare !== false,
      ...(options.connectTimeoutMs ? { connect_timeout: options.connectTimeoutMs / 1000 } : {}),
      onnotice: () => {},
      connection: { application_name: 'contextd' },
    });
    const client = wrapClient(sql, {
      prepare: options.prepare !== false,
      statementTimeoutMs: options.statementTimeoutMs ?? 0,
      onStatement: options.onStatement,
      plans: 'default',
    });
    const db = retryingTransactions(drizzlePostgres({ client, schema }) as unknown as Db);
    const genericSql =
      options.prepare !== false && options.genericPlans !== false
        ? postgres(options.databaseUrl, {
            max: GENERIC_PLAN_CONNECTIONS,
            ...(options.connectTimeoutMs ? { connect_timeout: options.connectTimeoutMs / 1000 } : {}),
            onnotice: () => {},
            connection: { application_name: 'contextd', plan_cache_mode: 'force_generic_plan' },
          })
        : null;
    const genericPlanDb = genericSql
      ? (drizzlePostgres({
          client: wrapClient(genericSql, {
            prepare: true,
            statementTimeoutMs: options.statementTimeoutMs ?? 0,
            onStatement: options.onStatement,
            plans: 'generic',
          }),
          schema,
        }) as unknown as Db)
      : db;
    const readSql = options.readUrl
      ? postgres(options.readUrl, {
          max: options.maxConnections ?? 10,
          prepare: options.prepare !== false,
          ...(options.connectTimeoutMs ? { connect_timeout: options.connectTimeoutMs / 1000 } : {}),
          onnotice: () => {},
          connection: { application_name: 'contextd-reads' },
        })
      : null;
    if (readSql) {
      // drizzle sets its pass-through parsers and serializers (timestamps, json/jsonb parameters as
      // the text it built) on the client it is given: the proxy below hands it the primary's, so
      // the replica's connection gets the same, or a jsonb parameter would be encoded twice.
      Object.assign(readSql.options.parsers, sql.options.parsers);
      Object.assign(readSql.options.serializers, sql.options.serializers);
    }
    const readDb = readSql
      ? (drizzlePostgres({
          client: replicaClient(
            wrapClient(readSql, {
              prepare: options.prepare !== false,
              statementTimeoutMs: options.statementTimeoutMs ?? 0,
              onStatement: options.onStatement,
              plans: 'default',
            }),
            client,
            options.onReplicaFallback ?? (() => {}),
          ),
          schema,
        }) as unknown as Db)
      : db;
    return {
      kind: 'postgres',
      db,
      sql,
      statementTimeoutMs: options.statementTimeoutMs ?? 0,
      genericPlanDb,
      readDb,
      // poolState is what patches/postgres+3.4.9.patch adds to postgres.js (null on a copy
      // installed without the patch: the pool series are then left out, not a failed scrape).
      pool: () => (sql as unknown as { poolState?: () => PoolState }).poolState?.() ?? null,
      close: async () => {
        await Promise.all([
          sql.end({ timeout: 5 }),
          genericSql?.end({ timeout: 5 }),
          readSql?.end({ timeout: 5 }),
        ]);
      },
    };
  }
  const dataDir = options.dataDir;
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create({
    dataDir,
    extensions: { btree_gin },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  const db = retryingTransactions(drizzlePglite({ client: pglite, schema }) as unknown as Db);
  return { kind: 'pglite', db, readDb: db, pglite, close: () => pglite.close() };
}

/** The rows of a raw statement's result: postgres.js gives an array, PGlite `{ rows }`. */
export const rowsOfResult = <T>(result: T[] | { rows: T[] }): T[] =>
  Array.isArray(result) ? result : result.rows;

/** Rows of a raw `db.execute(sql)` on either driver. */
export async function queryRows<T extends Record<string, unknown>>(
  executor: Executor,
  query: SQLWrapper,
): Promise<T[]> {
  return rowsOfResult((await executor.execute(query)) as unknown as T[] | { rows: T[] });
}
