// Several instances over one PostgreSQL and Redis: migrations do not race, and two app instances
// share state and locks (needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped by name otherwise).
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { appliedMigrationCount, runMigrations } from '../../src/db/migrate.js';
import { createTestApp, createTestDatabase, type TestContext, type TestDatabase } from '../helpers/app.js';
import { databaseUrl, TEST_DATABASE_URL, TEST_DB_PREFIX, TEST_REDIS_URL } from '../helpers/env.js';

describe.skipIf(!TEST_DATABASE_URL)('migrations on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  it('lets two instances migrate an empty database at once without racing', async () => {
    const name = `${TEST_DB_PREFIX}${inject('testRunId')}_race_${randomBytes(4).toString('hex')}`;
    const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    const url = databaseUrl(TEST_DATABASE_URL!, name);
    const [a, b] = await Promise.all([
      openDatabase({ databaseUrl: url, dataDir: '' }),
      openDatabase({ databaseUrl: url, dataDir: '' }),
    ]);
    try {
      await Promise.all([runMigrations(a), runMigrations(b)]);
      const applied = await appliedMigrationCount(a);
      if (a.kind !== 'postgres') throw new Error('expected PostgreSQL');
      const [{ n }] =
        (await a.sql`select count(distinct hash)::int as n from drizzle.__drizzle_migrations`) as unknown as [
          { n: number },
        ];
      expect(applied).toBe(n); // each migration recorded once
      expect(applied).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'two app instances on one PostgreSQL and Redis (needs TEST_DATABASE_URL and TEST_REDIS_URL)',
  () => {
    let testDb: TestDatabase;
    let first: TestContext;
    let second: TestContext;
    beforeAll(async () => {
      testDb = await createTestDatabase();
      // Same Redis key space, as two replicas of one deployment have.
      const redisPrefix = `contextd-test:${randomBytes(6).toString('hex')}:`;
      first = await createTestApp({ testDb, redisPrefix });
      second = await createTestApp({ testDb, redisPrefix });
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
      await testDb?.drop();
    });

    it('serves on two ports, and accepts on one a key created through the other', async () => {
      const [urlA, urlB] = await Promise.all([
        first.app.listen({ host: '127.0.0.1', port: 0 }),
        second.app.listen({ host: '127.0.0.1', port: 0 }),
      ]);
      expect(urlA).not.toBe(urlB);
      const tenant = await first.tenant();
      const viaB = await fetch(`${urlB}/v1/no-such-route`, { headers: tenant.headers });
      expect(viaB.status).toBe(404); // authenticated on B, then no such route
      const readyA = await fetch(`${urlA}/readyz`);
      expect(await readyA.json()).toMatchObject({ checks: { postgres: 'ok', redis: 'ok' } });
    });

    it('shares locks: a resource held through one instance is busy on the other', async () => {
      expect(first.deps.locks.kind).toBe('redis+postgres');
      const resource = `shared-${randomBytes(4).toString('hex')}`;
      const held = await first.deps.locks.acquire(resource, { ttlMs: 5_000 });
      expect(held).not.toBeNull();
      const onSecond = await second.deps.locks.acquire(resource, { ttlMs: 5_000 });
      if (onSecond) await onSecond.release();
      expect(onSecond).toBeNull();
      await held!.release();
      const afterRelease = await second.deps.locks.acquire(resource, { ttlMs: 5_000 });
      expect(afterRelease).not.toBeNull();
      await afterRelease!.release();
    });
  },
);
