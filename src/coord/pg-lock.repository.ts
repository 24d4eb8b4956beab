// SQL of the PostgreSQL lease lock (pg-lock.ts): one row per (tenant, resource) in lock_leases holds
// the holder's token and when its lease ends, by the database's clock. Every statement stands alone
// (no session state), so it works through a transaction pooler and on any node.
import type postgres from 'postgres';

export interface LeaseKey {
  /** The tenant the resource belongs to; '' for service-wide resources. */
  tenantId: string;
  resource: string;
}

export const pgLockSql = {
  /** Takes the lease for `token` when it is free (no row, released or over); false: held by another. */
  async take(sql: postgres.Sql, key: LeaseKey, token: string, ttlMs: number): Promise<boolean> {
    const rows = await sql`
      insert into lock_leases as l (tenant_id, resource, holder, expires_at)
      values (${key.tenantId}, ${key.resource}, ${token}, clock_timestamp() + ${ttlMs} * interval '1 millisecond')
      on conflict (tenant_id, resource) do update
        set holder = excluded.holder, expires_at = excluded.expires_at
        where l.holder is null or l.expires_at <= clock_timestamp()
      returning 1`;
    return rows.length === 1;
  },

  /** Extends the lease while `token` still holds it; false: lost (over and taken, or released). */
  async renew(sql: postgres.Sql, key: LeaseKey, token: string, ttlMs: number): Promise<boolean> {
    const rows = await sql`
      update lock_leases set expires_at = clock_timestamp() + ${ttlMs} * interval '1 millisecond'
      where tenant_id = ${key.tenantId} and resource = ${key.resource} and holder = ${token}
        and expires_at > clock_timestamp()
      returning 1`;
    return rows.length === 1;
  },

  /** Gives the lease back if `token` still holds it; the row goes (resources are many and short-lived). */
  async release(sql: postgres.Sql, key: LeaseKey, token: string): Promise<void> {
    await sql`
      delete from lock_leases
      where tenant_id = ${key.tenantId} and resource = ${key.resource} and holder = ${token}`;
  },
};
