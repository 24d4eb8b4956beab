// SQL of the Postgres advisory-lock fallback, on the reserved connection that holds the lock
// (advisory locks belong to a session).
import type postgres from 'postgres';

export type LockConnection = postgres.ReservedSql;

export const pgLockSql = {
  async tryLock(conn: LockConnection, resource: string): Promise<boolean> {
    const [row] = await conn<{ ok: boolean }[]>`
      select pg_try_advisory_lock(hashtextextended(${resource}, 0)) as ok`;
    return Boolean(row?.ok);
  },

  /** The next fence of the resource (lock_fences), taken while the lock is held. */
  async nextFence(conn: LockConnection, resource: string): Promise<number> {
    const [row] = await conn<{ fence: string }[]>`
      insert into lock_fences (resource, fence) values (${resource}, 1)
      on conflict (resource) do update set fence = lock_fences.fence + 1
      returning fence`;
    return Number(row?.fence);
  },

  async ping(conn: LockConnection): Promise<void> {
    await conn`select 1`;
  },

  async unlock(conn: LockConnection, resource: string): Promise<void> {
    await conn`select pg_advisory_unlock(hashtextextended(${resource}, 0))`;
  },
};
