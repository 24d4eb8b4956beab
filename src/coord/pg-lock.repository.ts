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

  async ping(conn: LockConnection): Promise<void> {
    await conn`select 1`;
  },

  async unlock(conn: LockConnection, resource: string): Promise<void> {
    await conn`select pg_advisory_unlock(hashtextextended(${resource}, 0))`;
  },
};
