// Applies the SQL migrations in drizzle/. On PostgreSQL all pending migrations run in one
// transaction that first takes a transaction-level advisory lock, so instances starting together
// cannot race (the second waits, then finds nothing left to do), and no session state is left
// behind: it works through a transaction pooler.
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { queryRows, type Database } from './client.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
/** Arbitrary constant naming the migration lock in pg_advisory_xact_lock's key space. */
const MIGRATION_LOCK_KEY = 0x636f6e74; // "cont"

export async function runMigrations(database: Database, folder = MIGRATIONS_FOLDER): Promise<void> {
  if (database.kind === 'pglite') {
    // One process owns an embedded database; no lock needed.
    await database.db.execute(sql`create extension if not exists btree_gin`);
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    return;
  }
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  // On the bare client: a long migration (an index build) is not held to the statement deadline.
  // What drizzle's migrator does (the same table, hashes and order), inside the locked transaction.
  await database.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx`create extension if not exists btree_gin`;
    await tx`create schema if not exists drizzle`;
    await tx`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`;
    const [last] = await tx<{ created_at: string }[]>`
      select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`;
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.folderMillis) continue;
      for (const statement of migration.sql) await tx.unsafe(statement);
      await tx`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`;
    }
  });
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
