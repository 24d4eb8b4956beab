// Locks against their real backends: in-process always; Redis and PostgreSQL lease locks when
// TEST_REDIS_URL / TEST_DATABASE_URL are set (skipped by name otherwise).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFallbackLockManager } from '../../src/coord/fallback-lock.js';
import { sleep, type LockManager } from '../../src/coord/lock.js';
import { createMemoryLockManager } from '../../src/coord/memory-lock.js';
import { createPgLockManager } from '../../src/coord/pg-lock.js';
import { createRedisLockManager } from '../../src/coord/redis-lock.js';
import { connectRedis, waitForRedis } from '../../src/deps.js';
import { createTestDatabase, type TestDatabase } from '../helpers/app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js';

/** Behaviour every implementation shares. */
function lockContract(name: string, make: () => LockManager) {
  describe(`${name}: lock contract`, () => {
    let locks: LockManager;
    beforeAll(() => {
      locks = make();
    });
    afterAll(async () => {
      await locks.close();
    });

    it('excludes a second holder until release, then admits the next one', async () => {
      const resource = `r-${randomUUID()}`;
      const first = await locks.acquire(resource, { ttlMs: 5_000 });
      expect(first).not.toBeNull();
      expect(await locks.acquire(resource, { ttlMs: 5_000 })).toBeNull();
      await first!.release();
      const second = await locks.acquire(resource, { ttlMs: 5_000 });
      expect(second).not.toBeNull();
      expect(second!.token).not.toBe(first!.token);
      await second!.release();
      await second!.release(); // idempotent
    });

    it('waits for a holder that releases within waitMs', async () => {
      const resource = `r-${randomUUID()}`;
      const first = await locks.acquire(resource, { ttlMs: 5_000 });
      setTimeout(() => void first!.release(), 150);
      const second = await locks.acquire(resource, { ttlMs: 5_000, waitMs: 3_000 });
      expect(second).not.toBeNull();
      await second!.release();
    });

    it('admits one holder at a time under contention', async () => {
      const resource = `r-${randomUUID()}`;
      const tokens: string[] = [];
      let inside = 0;
      let maxInside = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const handle = await locks.acquire(resource, { ttlMs: 5_000, waitMs: 10_000 });
          expect(handle).not.toBeNull();
          inside += 1;
          maxInside = Math.max(maxInside, inside);
          tokens.push(handle!.token);
          await sleep(5);
          inside -= 1;
          await handle!.release();
        }),
      );
      expect(maxInside).toBe(1);
      expect(new Set(tokens).size).toBe(8);
    });
  });
}

lockContract('in-process', () => createMemoryLockManager());

describe.skipIf(!TEST_REDIS_URL)('Redis locks (needs TEST_REDIS_URL)', () => {
  let redis: Redis;
  const prefix = `contextd-test:${randomUUID()}:`;
  beforeAll(async () => {
    redis = connectRedis(TEST_REDIS_URL!);
    await waitForRedis(redis);
  });
  afterAll(() => redis?.disconnect());

  lockContract('redis', () => createRedisLockManager(redis, { prefix }));

  it('expires a lease that is not renewed, and the old holder learns it lost the lock', async () => {
    const locks = createRedisLockManager(redis, { prefix });
    const resource = `r-${randomUUID()}`;
    const lost: Error[] = [];
    const first = await locks.acquire(resource, { ttlMs: 300, onLockLost: (e) => lost.push(e) });
    expect(first).not.toBeNull();
    // Simulate a paused holder: its lease runs out because someone else removed and took it.
    await redis.del(`${prefix}lock:${resource}`);
    const second = await locks.acquire(resource, { ttlMs: 5_000 });
    expect(second).not.toBeNull();
    await sleep(250); // the first holder's renewal finds another token
    expect(first!.signal.aborted).toBe(true);
    expect(lost).toHaveLength(1);
    // The lost holder's release must not delete the new holder's lock.
    await first!.release();
    expect(await redis.get(`${prefix}lock:${resource}`)).toBe(second!.token);
    await second!.release();
    await locks.close();
  });

  it('expires a lock whose holder is gone (no renewal) after its ttl', async () => {
    const resource = `r-${randomUUID()}`;
    await redis.set(`${prefix}lock:${resource}`, 'dead-holder', 'PX', 200);
    const locks = createRedisLockManager(redis, { prefix });
    expect(await locks.acquire(resource)).toBeNull();
    const later = await locks.acquire(resource, { waitMs: 2_000 });
    expect(later).not.toBeNull();
    await later!.release();
    await locks.close();
  });

  it('renews the lease while held beyond its ttl', async () => {
    const locks = createRedisLockManager(redis, { prefix });
    const resource = `r-${randomUUID()}`;
    const handle = await locks.acquire(resource, { ttlMs: 200 });
    await sleep(700);
    expect(handle!.signal.aborted).toBe(false);
    expect(await redis.get(`${prefix}lock:${resource}`)).toBe(handle!.token);
    await handle!.release();
    expect(await redis.get(`${prefix}lock:${resource}`)).toBeNull();
    await locks.close();
  });

  it('keeps mutual exclusion between two processes', async () => {
    const resource = `r-${randomUUID()}`;
    const worker = fileURLToPath(new URL('../helpers/lock-worker.ts', import.meta.url));
    const run = () =>
      new Promise<{ spans: [number, number][] }>((resolve, reject) => {
        const child = fork(worker, [TEST_REDIS_URL!, prefix, resource, '10'], {
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
        });
        child.on('message', (m) => resolve(m as { spans: [number, number][] }));
        child.on('error', reject);
        child.on('exit', (code) => code !== 0 && reject(new Error(`worker exited ${code}`)));
      });
    const [a, b] = await Promise.all([run(), run()]);
    const spans = [...a.spans, ...b.spans].sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i += 1) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    expect(spans).toHaveLength(20);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL lease locks (needs TEST_DATABASE_URL)', () => {
  let testDb: TestDatabase;
  let sql: postgres.Sql;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    sql = postgres(testDb.url!, { max: 12, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end();
    await testDb?.drop();
  });

  lockContract('postgres', () => createPgLockManager(sql));

  it('ends a lease that is not renewed: a new holder takes it, the old one learns it lost', async () => {
    const locks = createPgLockManager(sql);
    const resource = `r-${randomUUID()}`;
    const lost: Error[] = [];
    const first = await locks.acquire(resource, {
      tenantId: 'a',
      ttlMs: 300,
      onLockLost: (e) => lost.push(e),
    });
    expect(await locks.acquire(resource, { tenantId: 'a' })).toBeNull();
    // Another tenant's resource of the same name is another lock.
    const otherTenant = await locks.acquire(resource, { tenantId: 'b' });
    expect(otherTenant).not.toBeNull();
    // A paused holder: its lease ends without a renewal.
    await sql`update lock_leases set expires_at = clock_timestamp() - interval '1 second'
      where tenant_id = 'a' and resource = ${resource}`;
    const second = await locks.acquire(resource, { tenantId: 'a', ttlMs: 5_000 });
    expect(second).not.toBeNull();
    await sleep(250); // the first holder's renewal finds another token
    expect(first!.signal.aborted).toBe(true);
    expect(lost).toHaveLength(1);
    // The lost holder's release must not free the new holder's lease.
    await first!.release();
    expect(await locks.acquire(resource, { tenantId: 'a' })).toBeNull();
    await second!.release();
    expect(await locks.acquire(resource, { tenantId: 'a' })).not.toBeNull();
    await locks.close();
  });

  it('falls back to Postgres when Redis is unreachable, and counts it', async () => {
    // A Redis client pointed at a port where nothing listens behaves like a stopped Redis.
    const deadRedis = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    deadRedis.on('error', () => {});
    const fallbacks: Error[] = [];
    const locks = createFallbackLockManager(createRedisLockManager(deadRedis), createPgLockManager(sql), {
      onFallback: (e) => fallbacks.push(e),
    });
    const resource = `r-${randomUUID()}`;
    const first = await locks.acquire(resource);
    expect(first).not.toBeNull();
    expect(fallbacks.length).toBeGreaterThan(0);
    // Still mutually exclusive through the lease row.
    expect(await locks.acquire(resource)).toBeNull();
    await first!.release();
    expect(await locks.acquire(resource)).not.toBeNull();
    await locks.close();
    deadRedis.disconnect();
  });
});
