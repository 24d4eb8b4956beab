// Postgres advisory locks: the fallback when Redis is configured but unreachable. Each held lock
// pins one pooled connection (advisory locks belong to a session); the fence comes from the
// lock_fences table, incremented while the lock is held. Losing the connection loses the lock.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { notifyLost, retryUntil, LockLostError, type LockHandle, type LockManager } from './lock.js';

const HEALTH_CHECK_MS = 5_000;

export function createPgLockManager(sql: postgres.Sql): LockManager {
  const active = new Set<() => Promise<void>>();

  async function tryAcquire(
    resource: string,
    opts?: Parameters<LockManager['acquire']>[1],
  ): Promise<LockHandle | null> {
    const conn = await sql.reserve();
    let locked = false;
    try {
      const [row] = await conn<{ ok: boolean }[]>`
        select pg_try_advisory_lock(hashtextextended(${resource}, 0)) as ok`;
      locked = Boolean(row?.ok);
      if (!locked) {
        conn.release();
        return null;
      }
      const [fenceRow] = await conn<{ fence: string }[]>`
        insert into lock_fences (resource, fence) values (${resource}, 1)
        on conflict (resource) do update set fence = lock_fences.fence + 1
        returning fence`;
      const fence = Number(fenceRow?.fence);
      const controller = new AbortController();
      let released = false;
      const timer = setInterval(() => {
        conn`select 1`.catch((error: Error) => {
          if (released) return;
          clearInterval(timer);
          const lost = new LockLostError(resource, `connection lost: ${error.message}`);
          controller.abort(lost);
          notifyLost(opts, lost);
        });
      }, HEALTH_CHECK_MS);
      timer.unref();
      const release = async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        active.delete(release);
        await conn`select pg_advisory_unlock(hashtextextended(${resource}, 0))`.catch(() => {});
        conn.release();
      };
      active.add(release);
      return { resource, token: randomUUID(), fence, signal: controller.signal, release };
    } catch (error) {
      if (locked) await conn`select pg_advisory_unlock(hashtextextended(${resource}, 0))`.catch(() => {});
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
