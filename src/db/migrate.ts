// Applies the SQL migrations in drizzle/ under a Postgres advisory lock, so replicas starting
// together cannot race: the second waits, then finds nothing left to do.
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { queryRows, type Database } from './client.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
/** Arbitrary constant naming the migration lock in pg_advisory_lock's key space. */
const MIGRATION_LOCK_KEY = 0x636f6e74; // "cont"

export async function runMigrations(database: Database, folder = MIGRATIONS_FOLDER): Promise<void> {
  if (database.kind === 'pglite') {
    // One process owns an embedded database; no lock needed.
    await database.db.execute(sql`create extension if not exists btree_gin`);
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    return;
  }
  const reserved = await database.sql.reserve();
  try {
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await reserved`create extension if not exists btree_gin`;
    // On the bare client: a long migration (an index build) is not held to the statement deadline.
    await migratePostgres(drizzlePostgres({ client: database.sql }), { migrationsFolder: folder });
  } finally {
    await reserved`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    reserved.release();
  }
}

/** Number of applied migrations, or null when the migrations table does not exist yet. */
export async function appliedMigrationCount(database: Database): Promise<number | null> {
  try {
    const rows = await queryRows<{ n: number | string }>(
      database.db,
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    return Number(rows[0]?.n ?? 0);
  } catch {
    return null;
  }
}

/** Whether the database answers (readiness). */
export async function pingDatabase(database: Database): Promise<boolean> {
  return database.db
    .execute(sql`select 1`)
    .then(() => true)
    .catch(() => false);
}
