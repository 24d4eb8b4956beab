// Driver selection: postgres.js when DATABASE_URL is set, embedded PGlite on disk otherwise.
// Both give the same drizzle `Db` type, so repositories never know which one they run on.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import type { ExtractTablesWithRelations, SQLWrapper } from 'drizzle-orm';
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
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      connection: { application_name: 'contextd' },
    });
    const db = drizzlePostgres({ client: sql, schema }) as unknown as Db;
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
