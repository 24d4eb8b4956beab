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

  it('prepares nothing when turned off', async () => {
    await unpreparedDb.db.transaction(async (tx) => {
      await queryRows(tx, sql`select ${1}::int as x /* tag-off */`);
      expect(await preparedWith(tx, 'tag-off')).toBe(0);
    });
  });
});
