// Postgres advisory locks: the fallback when Redis is configured but unreachable. Each held lock
// pins one pooled connection (advisory locks belong to a session). Losing the connection loses
// the lock.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { DatabaseTimeoutError } from '../shared/errors.js';
import { holdLease, retryUntil, type LockHandle, type LockManager } from './lock.js';
import { pgLockSql } from './pg-lock.repository.js';

const HEALTH_CHECK_MS = 5_000;

export interface PgLockOptions {
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
    const conn = await sql.reserve();
    let locked = false;
    try {
      locked = await pgLockSql.tryLock(conn, resource);
      if (!locked) {
        conn.release();
        return null;
      }
      return holdLease({
        resource,
        token: randomUUID(),
        everyMs: HEALTH_CHECK_MS,
        keep: () =>
          pgLockSql.ping(conn).then(
            () => null,
            (error: Error) => `connection lost: ${error.message}`,
          ),
        // The session's advisory lock goes with its connection: unlock (if still reachable), return it.
        free: async () => {
          await pgLockSql.unlock(conn, resource).catch(() => {});
          conn.release();
        },
        active,
        options: opts,
      });
    } catch (error) {
      if (locked) await pgLockSql.unlock(conn, resource).catch(() => {});
      conn.release();
      throw error;
    }
  }

  return {
    kind: 'postgres',
    acquire: (resource, opts) => retryUntil(opts?.waitMs ?? 0, () => tryAcquire(resource, opts)),
    close: async () => {
      await Promise.all([...active].map((release) => release()));
    },
  };
}
