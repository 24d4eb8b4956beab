// Redis locks: one key per resource, SET NX PX with a random token, renewal every ttl/3 by
// compare-and-pexpire, release by compare-and-delete (each a one-key script, so it runs on a
// Redis Cluster as on one server). The lease mints no fencing token: see lock.ts.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-client.js';
import {
  DEFAULT_LOCK_TTL_MS,
  holdLease,
  retryUntil,
  type AcquireOptions,
  type LockHandle,
  type LockManager,
} from './lock.js';

const RENEW = `
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`;
const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`;

interface RedisLockOptions {
  /** Prefix of every key this manager writes (tests give each worker its own). */
  prefix?: string;
}

export function createRedisLockManager(redis: RedisClient, options: RedisLockOptions = {}): LockManager {
  const prefix = options.prefix ?? 'contextd:';
  const active = new Set<() => Promise<void>>();

  async function tryAcquire(resource: string, opts?: AcquireOptions): Promise<LockHandle | null> {
    const ttl = opts?.ttlMs ?? DEFAULT_LOCK_TTL_MS;
    const token = randomUUID();
    const lockKey = `${prefix}lock:${resource}`;
    if ((await redis.set(lockKey, token, 'PX', ttl, 'NX')) !== 'OK') return null;

    return holdLease({
      resource,
      token,
      everyMs: Math.max(10, Math.floor(ttl / 3)),
      keep: () =>
        redis.eval(RENEW, 1, lockKey, token, ttl).then(
          (ok) => (Number(ok) === 1 ? null : 'another holder owns it (lease expired)'),
          (error: Error) => `renewal failed: ${error.message}`,
        ),
      free: async (lost) => {
        if (lost) return;
        await redis.eval(RELEASE, 1, lockKey, token).catch(() => {
          // Unreachable Redis: the lease expires on its own.
        });
      },
      active,
      options: opts,
    });
  }

  return {
    kind: 'redis',
    acquire: (resource, opts) => retryUntil(opts?.waitMs ?? 0, () => tryAcquire(resource, opts)),
    close: async () => {
      await Promise.all([...active].map((release) => release()));
    },
  };
}
