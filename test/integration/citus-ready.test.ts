// The schema stays distributable by tenant_id (Citus): read from the migrated database's catalog,
// every table but the reference tables has tenant_id in each unique index and in each foreign key
// between distributed tables; no statement-level trigger or transition table; no sequence; and no
// advisory lock in the service's code but the migration lock. The script in docs/operations.md
// ("Citus") names every table exactly once. On PostgreSQL and PGlite alike.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Executor } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/app.js';

/** Small tables every node holds a copy of (docs/operations.md, "Citus"). */
const REFERENCE_TABLES = ['api_keys', 'tenants'];
/** Where an advisory lock is allowed: the migration lock, taken on the coordinator only. */
const ADVISORY_LOCK_ALLOWED = ['src/db/migrate.ts'];

/** Every reason a table of the public schema could not be distributed by tenant_id. */
async function citusBlockers(db: Executor): Promise<string[]> {
  const blockers: string[] = [];
  const tables = await queryRows<{ name: string; has_tenant: boolean }>(
    db,
    sql`select c.relname as name, exists (select 1 from pg_attribute a
          where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped) as has_tenant
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
  );
  const reference = new Set(REFERENCE_TABLES);
  const distributed = new Set(tables.filter((t) => !reference.has(t.name)).map((t) => t.name));
  for (const t of tables)
    if (distributed.has(t.name) && !t.has_tenant) blockers.push(`${t.name}: no tenant_id`);

  const uniques = await queryRows<{ index: string; table: string }>(
    db,
    sql`select ic.relname as index, tc.relname as table from pg_index i
        join pg_class ic on ic.oid = i.indexrelid join pg_class tc on tc.oid = i.indrelid
        join pg_namespace n on n.oid = tc.relnamespace
        where n.nspname = 'public' and i.indisunique and not exists (
          select 1 from pg_attribute a where a.attrelid = tc.oid and a.attname = 'tenant_id'
            and a.attnum = any (i.indkey::int2[]))
        order by 1`,
  );
  for (const u of uniques)
    if (distributed.has(u.table)) blockers.push(`${u.table}: unique index ${u.index} without tenant_id`);

  const foreignKeys = await queryRows<{ name: string; from: string; to: string; aligned: boolean }>(
    db,
    sql`select con.conname as name, f.relname as from, t.relname as to,
          exists (select 1 from generate_subscripts(con.conkey, 1) k
            join pg_attribute fa on fa.attrelid = con.conrelid and fa.attnum = con.conkey[k]
            join pg_attribute ta on ta.attrelid = con.confrelid and ta.attnum = con.confkey[k]
            where fa.attname = 'tenant_id' and ta.attname = 'tenant_id') as aligned
        from pg_constraint con join pg_class f on f.oid = con.conrelid join pg_class t on t.oid = con.confrelid
        join pg_namespace n on n.oid = f.relnamespace
        where n.nspname = 'public' and con.contype = 'f' order by 1`,
  );
  for (const fk of foreignKeys) {
    if (reference.has(fk.to)) continue; // to a reference table: allowed from anywhere
    if (reference.has(fk.from)) blockers.push(`${fk.from}: foreign key ${fk.name} from a reference table`);
    else if (!fk.aligned)
      blockers.push(`${fk.from}: foreign key ${fk.name} across tenants (not on tenant_id)`);
  }

  const triggers = await queryRows<{ name: string; table: string }>(
    db,
    sql`select tg.tgname as name, c.relname as table from pg_trigger tg
        join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and not tg.tgisinternal
          and ((tg.tgtype & 1) = 0 or tg.tgoldtable is not null or tg.tgnewtable is not null)
        order by 1`,
  );
  for (const t of triggers)
    blockers.push(`${t.table}: statement-level trigger or transition table ${t.name}`);

  const sequences = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'S'
        union all
        select c.relname || '.' || a.attname from pg_attribute a join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and a.attidentity <> '' and not a.attisdropped
        order by 1`,
  );
  for (const s of sequences) blockers.push(`${s.name}: a sequence (ids must be unique across shards)`);
  return blockers;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.drop();
});

describe('a schema distributable by tenant_id', () => {
  it('has no table that Citus could not distribute by tenant_id', async () => {
    expect(await citusBlockers(testDb.database.db)).toEqual([]);
  });

  it('finds each kind of blocker (the check can fail)', async () => {
    const db = testDb.database.db;
    let found: string[] = [];
    const rollback = new Error('rollback');
    await db
      .transaction(async (tx) => {
        await tx.execute(sql`create table blocker_a (tenant_id text not null, id text not null, code text not null,
          primary key (tenant_id, id))`);
        await tx.execute(sql`create unique index blocker_a_code_uq on blocker_a (code)`);
        await tx.execute(sql`create table blocker_b (id text primary key, a_tenant text, a_id text,
          foreign key (a_tenant, a_id) references blocker_a (tenant_id, id))`);
        await tx.execute(sql`create table blocker_c (tenant_id text not null, a_id text, a_tenant text,
          foreign key (a_tenant, a_id) references blocker_a (tenant_id, id))`);
        await tx.execute(sql`create sequence blocker_seq`);
        await tx.execute(
          sql`create function blocker_fn() returns trigger language plpgsql as $$ begin return null; end $$`,
        );
        await tx.execute(sql`create trigger blocker_statement after insert on blocker_a
          for each statement execute function blocker_fn()`);
        found = await citusBlockers(tx);
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
    expect(found).toEqual([
      'blocker_b: no tenant_id',
      'blocker_a: unique index blocker_a_code_uq without tenant_id',
      'blocker_b: unique index blocker_b_pkey without tenant_id',
      'blocker_b: foreign key blocker_b_a_tenant_a_id_fkey across tenants (not on tenant_id)',
      'blocker_c: foreign key blocker_c_a_tenant_a_id_fkey across tenants (not on tenant_id)',
      'blocker_a: statement-level trigger or transition table blocker_statement',
      'blocker_seq: a sequence (ids must be unique across shards)',
    ]);
    expect(await citusBlockers(db)).toEqual([]);
  });

  it('takes no advisory lock outside the migration lock (a lock of one node is not a lock of the cluster)', () => {
    const offenders = sourceFiles('src')
      .filter((path) => /pg_(try_)?advisory/.test(readFileSync(path, 'utf8')))
      .filter((path) => !ADVISORY_LOCK_ALLOWED.includes(path));
    expect(offenders).toEqual([]);
  });

  it('names every table once in the Citus script of docs/operations.md', async () => {
    const docs = readFileSync('docs/operations.md', 'utf8');
    const script = docs.slice(
      docs.indexOf('```sql citus'),
      docs.indexOf('```', docs.indexOf('```sql citus') + 3),
    );
    const named = [...script.matchAll(/create_(distributed|reference)_table\('(\w+)'/g)].map((m) => ({
      table: m[2]!,
      kind: m[1]!,
    }));
    const tables = await queryRows<{ name: string }>(
      testDb.database.db,
      sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
    );
    expect(named.map((n) => n.table).sort()).toEqual(tables.map((t) => t.name));
    expect(
      named
        .filter((n) => n.kind === 'reference')
        .map((n) => n.table)
        .sort(),
    ).toEqual(REFERENCE_TABLES);
  });
});
