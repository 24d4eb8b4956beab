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
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** What a repository method runs on: the database or an open transaction. */
export type Executor = Db | Tx;

export type Database =
  | { kind: 'postgres'; db: Db; sql: postgres.Sql; close(): Promise<void> }
  | { kind: 'pglite'; db: Db; pglite: PGlite; close(): Promise<void> };

export interface DatabaseOptions {
  databaseUrl?: string;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir: string;
  /** Migrated PGlite data directory to start from (tests). */
  loadDataDir?: Blob;
  maxConnections?: number;
  /** Server-side prepared statements for fixed-shape queries (postgres.js only); default true. */
  prepare?: boolean;
  /** Called with the text of every statement sent (postgres.js only; benchmarks count them). */
  onStatement?: (query: string) => void;
}

/**
 * Marks a query to be parsed and planned on every execution: variable-shape SQL (a search whose
 * text depends on the number of terms) and queries whose best plan depends on their parameters.
 */
export const UNPREPARED_MARK = '/* unprepared */';
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

type UnsafeFn = (query: string, params?: unknown[], options?: Record<string, unknown>) => unknown;
type ScopedFn = (...args: unknown[]) => unknown;

/**
 * The postgres.js client drizzle sees: `unsafe` (every drizzle query goes through it) prepares
 * what `shouldPrepare` allows, and the clients of transactions and savepoints are wrapped alike.
 */
function preparingClient(client: postgres.Sql): postgres.Sql {
  const wrapScoped =
    (target: ScopedFn, self: object) =>
    (...args: unknown[]) => {
      const last = args.length - 1;
      const fn = args[last] as (inner: postgres.Sql) => unknown;
      args[last] = (inner: postgres.Sql) => fn(preparingClient(inner));
      return target.apply(self, args);
    };
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'unsafe') {
        const unsafe = value as UnsafeFn;
        return (query: string, params?: unknown[], options?: Record<string, unknown>) =>
          unsafe.call(target, query, params, {
            ...options,
            prepare: options?.prepare === true || shouldPrepare(query, params),
          });
      }
      if (key === 'begin' || key === 'savepoint') return wrapScoped(value as ScopedFn, target);
      return typeof value === 'function' ? (value as ScopedFn).bind(target) : value;
    },
  });
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      connection: { application_name: 'contextd' },
      ...(options.onStatement
        ? { debug: (_connection: number, query: string) => options.onStatement!(query) }
        : {}),
    });
    const client = options.prepare === false ? sql : preparingClient(sql);
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    return { kind: 'postgres', db, sql, close: () => sql.end({ timeout: 5 }) };
  }
  const dataDir = options.dataDir;
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create({
    dataDir,
    extensions: { btree_gin },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  const db = drizzlePglite({ client: pglite, schema }) as unknown as Db;
  return { kind: 'pglite', db, pglite, close: () => pglite.close() };
}

/** Rows of a raw `db.execute(sql)` on either driver. */
export async function queryRows<T extends Record<string, unknown>>(
  executor: Executor,
  query: SQLWrapper,
): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
