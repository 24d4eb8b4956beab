// PostgreSQL lease locks: the lock without Redis, and the fallback when Redis is unreachable. A
// lease row in lock_leases (pg-lock.repository.ts) is taken, renewed every ttl/3 and released by
// compare-and-delete, like the Redis lock; a holder that dies loses it when its lease
// ends. No advisory lock and no pinned connection: it holds through a transaction pooler and does
// not depend on which node of a cluster answers.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { DatabaseTimeoutError } from '../shared/errors.js';
import { DEFAULT_LOCK_TTL_MS, holdLease, retryUntil, type LockHandle, type LockManager } from './lock.js';
import { pgLockSql, type LeaseKey } from './pg-lock.repository.js';

interface PgLockOptions {
  /** An acquisition the server does not answer within this many ms fails (a frozen server); 0: none. */
  timeoutMs?: number;
}

export function createPgLockManager(sql: postgres.Sql, options: PgLockOptions = {}): LockManager {
  const active = new Set<() => Promise<void>>();

  async function tryAcquire(
    resource: string,
    opts?: Parameters<LockManager['acquire']>[1],
  ): Promise<LockHandle | null> {
    const attempt = acquireOnce(resource, opts);
    const timeoutMs = options.timeoutMs ?? 0;
    if (!timeoutMs) return attempt;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      return await Promise.race([attempt, late]);
    } catch (error) {
      // Given up on, the acquisition may still succeed once the server answers: give it back then.
      if (error instanceof DatabaseTimeoutError)
        void attempt.then(
          (handle) => handle?.release(),
          () => {},
        );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async function acquireOnce(
    resource: string,
    opts?: Parameters<LockManager['acquire']>[1],
  ): Promise<LockHandle | null> {
    const key: LeaseKey = { tenantId: opts?.tenantId ?? '', resource };
    const ttl = opts?.ttlMs ?? DEFAULT_LOCK_TTL_MS;
    const token = randomUUID();
    if (!(await pgLockSql.take(sql, key, token, ttl))) return null;
    return holdLease({
      resource,
      token,
      everyMs: Math.max(10, Math.floor(ttl / 3)),
      keep: () =>
        pgLockSql.renew(sql, key, token, ttl).then(
          (held) => (held ? null : 'another holder owns it (lease expired)'),
          (error: Error) => `renewal failed: ${error.message}`,
        ),
      free: async (lost) => {
        if (!lost) await pgLockSql.release(sql, key, token).catch(() => {});
      },
      active,
      options: opts,
    });
  }

  return {
    kind: 'postgres',
    acquire: (resource, opts) => retryUntil(opts?.waitMs ?? 0, () => tryAcquire(resource, opts)),
    close: async () => {
      await Promise.all([...active].map((release) => release()));
    },
  };
}
