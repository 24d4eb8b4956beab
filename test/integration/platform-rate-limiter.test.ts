// The shared platform rate limiter: three instances on one Redis (three replicas) and one
// in-process instance, hammered in queue mode, never let more than the limit through in any
// period; degrade refuses at once with the delay; a platform 429 blocks the key on every replica.
// The period is shortened to 6 s so a test run covers several of them (the code path is the one
// a per-minute limit takes).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, waitForRedis } from '../../src/deps.js';
import { createPlatformRateLimiter, type PlatformCallKey } from '../../src/coord/platform-rate-limiter.js';
import { TEST_REDIS_URL } from '../helpers/env.js';

const PERIOD_S = 6;
const LIMIT = 8;
const key: PlatformCallKey = { tenantId: 't1', platform: 'slack', workspaceId: 'T1' };

/** The most grants inside any span of `periodMs` (a span starting at each grant). */
function maxInAnyPeriod(times: number[], periodMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while (sorted[end]! - sorted[start]! >= periodMs) start += 1;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

async function hammer(
  limiters: ReturnType<typeof createPlatformRateLimiter>[],
  forMs: number,
  callKey = key,
): Promise<number[]> {
  const grants: number[] = [];
  const until = Date.now() + forMs;
  await Promise.all(
    limiters.flatMap((limiter) =>
      // Two callers per instance, as concurrent requests of one replica.
      [0, 1].map(async () => {
        while (Date.now() < until) {
          const permit = await limiter.acquire(callKey);
          if (permit.granted && Date.now() < until) grants.push(Date.now());
        }
      }),
    ),
  );
  return grants;
}

const redisClients: ReturnType<typeof connectRedis>[] = [];
afterAll(() => {
  for (const client of redisClients) client.disconnect();
});

describe('in-process limiter', () => {
  it('queue: never more than the limit in any period, and close to it sustained', async () => {
    const limiter = createPlatformRateLimiter({
      redis: null,
      prefix: `rl-${randomUUID()}:`,
      limit: LIMIT,
      periodSeconds: PERIOD_S,
      overflow: 'queue',
      queueMaxMs: 60_000,
    });
    const grants = await hammer([limiter], 13_000);
    expect(maxInAnyPeriod(grants, PERIOD_S * 1000)).toBeLessThanOrEqual(LIMIT);
    // limiterWindow(8, 6) = 2 calls per 2 s: 13 s hold 6 or 7 windows.
    expect(grants.length).toBeGreaterThanOrEqual(12);
  });

  it('degrade: refuses at once with the time until a slot frees up', async () => {
    const limiter = createPlatformRateLimiter({
      redis: null,
      prefix: `rl-${randomUUID()}:`,
      limit: 40,
      overflow: 'degrade',
      queueMaxMs: 60_000,
    });
    const permits = [];
    for (let i = 0; i < 4; i += 1) permits.push(await limiter.acquire(key));
    expect(permits.slice(0, 3).every((p) => p.granted)).toBe(true);
    const refused = permits[3]!;
    expect(refused.granted).toBe(false);
    if (!refused.granted) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(5_000);
      expect(refused.waitedMs).toBeLessThan(1_000);
    }
    // Another workspace has its own bucket.
    expect((await limiter.acquire({ ...key, workspaceId: 'T2' })).granted).toBe(true);
  });

  it('queue waits at most queueMaxMs, then degrades', async () => {
    const limiter = createPlatformRateLimiter({
      redis: null,
      prefix: `rl-${randomUUID()}:`,
      limit: 40,
      overflow: 'queue',
      queueMaxMs: 300,
    });
    for (let i = 0; i < 3; i += 1) await limiter.acquire(key);
    const started = Date.now();
    const permit = await limiter.acquire(key);
    expect(permit.granted).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('Redis unreachable', () => {
  it('the in-process insurance limiter keeps counting: the limit is never lifted', async () => {
    // Nothing listens on port 1: the client never becomes ready.
    const redis = connectRedis('redis://127.0.0.1:1');
    redis.on('error', () => {});
    redisClients.push(redis);
    const limiter = createPlatformRateLimiter({
      redis,
      prefix: `rl-${randomUUID()}:`,
      limit: 40,
      overflow: 'degrade',
      queueMaxMs: 0,
    });
    const permits = [];
    for (let i = 0; i < 4; i += 1) permits.push(await limiter.acquire(key));
    expect(permits.map((p) => p.granted)).toEqual([true, true, true, false]);
  });
});

describe.skipIf(!TEST_REDIS_URL)('three replicas on one Redis', () => {
  async function replicas(prefix: string, overrides: { overflow?: 'queue' | 'degrade' } = {}) {
    const out = [];
    for (let i = 0; i < 3; i += 1) {
      const redis = connectRedis(TEST_REDIS_URL!);
      redis.on('error', () => {});
      redisClients.push(redis);
      await waitForRedis(redis);
      out.push(
        createPlatformRateLimiter({
          redis,
          prefix,
          limit: LIMIT,
          periodSeconds: PERIOD_S,
          overflow: overrides.overflow ?? 'queue',
          queueMaxMs: 60_000,
        }),
      );
    }
    return out;
  }

  it('together never exceed the limit in any period', async () => {
    const limiters = await replicas(`rl-test:${randomUUID()}:`);
    const grants = await hammer(limiters, 13_000);
    expect(maxInAnyPeriod(grants, PERIOD_S * 1000)).toBeLessThanOrEqual(LIMIT);
    expect(grants.length).toBeGreaterThanOrEqual(12);
  });

  it('a platform 429 on one replica holds the key back on all of them for Retry-After', async () => {
    const [a, b] = await replicas(`rl-test:${randomUUID()}:`, { overflow: 'degrade' });
    await a!.blockFor(key, 2_000);
    const refused = await b!.acquire(key);
    expect(refused.granted).toBe(false);
    if (!refused.granted) expect(refused.retryAfterMs).toBeGreaterThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await b!.acquire(key)).granted).toBe(true);
  });
});
