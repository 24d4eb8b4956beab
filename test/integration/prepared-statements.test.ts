// Prepared statements on postgres.js: fixed-shape queries are prepared once per connection (in
// transactions and savepoints too), marked or oversized ones are not, and the switch turns it off.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openDatabase,
  queryRows,
  shouldPrepare,
  unprepared,
  type Database,
  type Executor,
} from '../../src/db/client.js';
import { databaseFailure, NOT_COMMITTED } from '../../src/shared/errors.js';
import { createTestDatabase, usesRealPostgres, type TestDatabase } from '../helpers/app.js';

describe('shouldPrepare', () => {
  it('prepares parameterized queries of bounded shape only', () => {
    expect(shouldPrepare('select $1', [1])).toBe(true);
    expect(shouldPrepare('select 1', [])).toBe(false);
    expect(shouldPrepare('select 1', undefined)).toBe(false);
    expect(shouldPrepare('/* unprepared */ select $1', [1])).toBe(false);
    expect(
      shouldPrepare(
        'select $1',
        Array.from({ length: 64 }, () => 1),
      ),
    ).toBe(true);
    expect(
      shouldPrepare(
        'select $1',
        Array.from({ length: 65 }, () => 1),
      ),
    ).toBe(false);
    expect(shouldPrepare(`select $1 ${' '.repeat(16_000)}`, [1])).toBe(false);
  });
});

/** Statements this connection holds whose text contains `tag`. */
async function preparedWith(tx: Executor, tag: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql.raw(`select count(*)::int as n from pg_prepared_statements where statement like '%${tag}%'`),
  );
  return row!.n;
}

describe.skipIf(!usesRealPostgres)('prepared statements on PostgreSQL', () => {
  let test: TestDatabase;
  let unpreparedDb: Database;

  beforeAll(async () => {
    test = await createTestDatabase();
    unpreparedDb = await openDatabase({
      databaseUrl: test.url,
      dataDir: '',
      maxConnections: 1,
      prepare: false,
    });
  });
  afterAll(async () => {
    await unpreparedDb.close();
    await test.drop();
  });

  it('prepares a fixed-shape query once per connection, inside transactions and savepoints', async () => {
    const { db } = test.database;
    await db.transaction(async (tx) => {
      for (const value of [1, 2, 3]) {
        const rows = await queryRows<{ x: number }>(tx, sql`select ${value}::int as x /* tag-fixed */`);
        expect(rows).toEqual([{ x: value }]);
      }
      expect(await preparedWith(tx, 'tag-fixed')).toBe(1);
      await tx.transaction(async (inner) => {
        await queryRows(inner, sql`select ${'a'}::text as y /* tag-savepoint */`);
        expect(await preparedWith(inner, 'tag-savepoint')).toBe(1);
      });
    });
  });

  it('runs marked queries unprepared', async () => {
    await test.database.db.transaction(async (tx) => {
      const rows = await queryRows<{ x: number }>(
        tx,
        unprepared(sql`select ${7}::int as x /* tag-marked */`),
      );
      expect(rows).toEqual([{ x: 7 }]);
      expect(await preparedWith(tx, 'tag-marked')).toBe(0);
    });
  });

  it('prepares nothing when turned off, not even what postgres.js sends itself', async () => {
    // Two transactions on the one connection: the second sees whatever the first left prepared
    // (postgres.js's own BEGIN and COMMIT were named statements whatever the setting said).
    await unpreparedDb.db.transaction(async (tx) => {
      await queryRows(tx, sql`select ${1}::int as x /* tag-off */`);
    });
    await unpreparedDb.db.transaction(async (tx) => {
      await tx.transaction(async (inner) => {
        await queryRows(inner, sql`select ${2}::int as x /* tag-off */`);
      });
      const [all] = await queryRows<{ n: number }>(
        tx,
        sql.raw('select count(*)::int as n from pg_prepared_statements'),
      );
      expect(all!.n).toBe(0);
    });
  });

  it('fails a transaction whose COMMIT answers ROLLBACK, and nothing is stored', async () => {
    // What a transaction pooler does to a named COMMIT: the backend that runs it lacks the
    // statement, the failed Bind aborts the transaction, postgres.js prepares it again and
    // retries, and the retried COMMIT of the aborted transaction answers ROLLBACK. DEALLOCATE ALL
    // inside the transaction makes this connection's backend lack it the same way.
    const one = await openDatabase({ databaseUrl: test.url, dataDir: '', maxConnections: 1 });
    try {
      await one.db.execute(sql.raw('create table if not exists commit_probe (n int)'));
      await one.db.transaction(async (tx) => {
        await tx.execute(sql`insert into commit_probe values (${1})`);
      });
      const lost = one.db.transaction(async (tx) => {
        await tx.execute(sql`insert into commit_probe values (${2})`);
        await tx.execute(sql.raw('deallocate all'));
      });
      await expect(lost).rejects.toMatchObject({ code: NOT_COMMITTED });
      expect(databaseFailure(await lost.catch((error: unknown) => error))).toBe('not_committed');
      const rows = await queryRows<{ n: number }>(one.db, sql.raw('select n from commit_probe order by n'));
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await one.close();
    }
  });
  it('runs genericPlanDb on connections that always take the generic plan, and only when asked', async () => {
    const mode = async (db: Executor) =>
      (await queryRows<{ mode: string }>(db, sql`select current_setting('plan_cache_mode') as mode`))[0]!
        .mode;
    const { database } = test;
    if (database.kind !== 'postgres') throw new Error('PostgreSQL expected');
    expect(await mode(database.genericPlanDb)).toBe('force_generic_plan');
    expect(await mode(database.db)).toBe('auto');
    // A prepared statement there is planned once, generically: its plan has no literal of the call.
    const generic = database.genericPlanDb;
    for (const value of [1, 2]) {
      await queryRows(
        generic,
        sql`select count(*)::int as n from pg_class where relpages > ${value} /* tag-gen */`,
      );
    }
    const [stats] = await queryRows<{ generic: number; custom: number }>(
      generic,
      sql.raw(
        `select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement like '%tag-gen%' and statement not like '%pg_prepared_statements%'`,
      ),
    );
    expect(stats).toEqual({ generic: 2, custom: 0 });
    // Turned off (or without prepared statements): the main pool itself.
    const off = await openDatabase({
      databaseUrl: test.url,
      dataDir: '',
      maxConnections: 1,
      genericPlans: false,
    });
    try {
      if (off.kind !== 'postgres' || unpreparedDb.kind !== 'postgres') throw new Error('PostgreSQL expected');
      expect(off.genericPlanDb).toBe(off.db);
      expect(unpreparedDb.genericPlanDb).toBe(unpreparedDb.db);
    } finally {
      await off.close();
    }
  });
});
