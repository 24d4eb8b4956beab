// Retention deletes (docs/design.md §6.13), each in bounded batches so no statement holds locks for long.
// Every method deletes at most `batch` rows and returns how many it deleted; the service loops.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { WEEK_MS, dropWeeklyPartitions, ensureWeeklyPartitions } from '../../db/partitions.js';

/** Memory types derived from conversations (summaries, slot state): they age out with them. */
const DERIVED_MEMORY_TYPES = ['lane_summary', 'session_summary', 'thread_state'] as const;

/** Row count of a raw `execute` result on either driver. */
function countOf(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  return (result as { rows?: unknown[] }).rows?.length ?? 0;
}

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * The tables whose rows simply age out: primary key and the time compared with the cutoff. Per
 * tenant (its retention period): channel messages, transcript entries and chunks (a chunk goes
 * when any turn it holds is older, so a straddling pair leaves the index whole). For everyone:
 * webhook/event dedupe keys (INGEST_DEDUPE_WINDOW_MS) and stored Idempotency-Key replies
 * (IDEMPOTENCY_TTL_MS). Per tenant, its own period: the context log.
 */
const AGED = {
  channel_messages: {
    table: 'channel_messages',
    key: ['tenant_id', 'platform', 'channel_id', 'message_id'],
    time: 'ts',
  },
  transcript_entries: {
    table: 'transcript_entries',
    key: ['tenant_id', 'session_id', 'seq'],
    time: 'created_at',
  },
  transcript_chunks: {
    table: 'transcript_chunks',
    key: ['tenant_id', 'session_id', 'first_seq'],
    time: 'coalesce(start_ts, created_at)',
  },
  ingest_events: { table: 'ingest_events', key: ['tenant_id', 'source', 'event_id'], time: 'received_at' },
  lock_leases: { table: 'lock_leases', key: ['tenant_id', 'resource'], time: 'expires_at' },
  context_log: {
    table: 'context_log',
    key: ['tenant_id', 'session_id', 'turn_seq', 'created_at'],
    time: 'created_at',
  },
  idempotency_records: {
    table: 'idempotency_records',
    key: ['tenant_id', 'scope', 'key'],
    time: 'created_at',
  },
} as const;
type AgedKind = keyof typeof AGED;

/** A tenant's own retention periods in days (null: the configured default; 0: kept). */
export interface TenantRetention {
  retentionDays: number | null;
  contextLogRetentionDays: number | null;
}

const days = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function createRetentionRepository(db: Executor) {
  const run = async (query: SQL, tx: Executor) => countOf(await tx.execute(query));
  return {
    /** Every tenant with its own periods, by id. */
    async tenantPeriods(tx: Executor = db): Promise<({ id: string } & TenantRetention)[]> {
      const rows = await queryRows<{
        id: string;
        retention_days: unknown;
        context_log_retention_days: unknown;
      }>(tx, sql`select id, retention_days, context_log_retention_days from tenants order by id`);
      return rows.map((r) => ({
        id: r.id,
        retentionDays: days(r.retention_days),
        contextLogRetentionDays: days(r.context_log_retention_days),
      }));
    },

    /** The tenant's own periods; null when there is no such tenant. */
    async getTenantRetention(tenantId: string, tx: Executor = db): Promise<TenantRetention | null> {
      const [row] = await queryRows<{ retention_days: unknown; context_log_retention_days: unknown }>(
        tx,
        sql`select retention_days, context_log_retention_days from tenants where id = ${tenantId}`,
      );
      return row
        ? {
            retentionDays: days(row.retention_days),
            contextLogRetentionDays: days(row.context_log_retention_days),
          }
        : null;
    },

    async setTenantRetention(tenantId: string, value: TenantRetention, tx: Executor = db): Promise<boolean> {
      return (
        (await run(
          sql`update tenants set retention_days = ${value.retentionDays},
            context_log_retention_days = ${value.contextLogRetentionDays}
            where id = ${tenantId} returning 1`,
          tx,
        )) === 1
      );
    },

    /**
     * Payload parts of the tenant in weeks that ended at or before the cutoff: only calls of the
     * same week name a part (src/db/partitions.ts), and those are older than the cutoff too. The
     * parts of the week the cutoff falls in stay until that week is past it.
     */
    async deleteAgedParts(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      const lastWeek = new Date(p.before.getTime() - WEEK_MS);
      return run(
        sql`delete from payload_parts where (tenant_id, week, sha256) in (
          select tenant_id, week, sha256 from payload_parts
          where tenant_id = ${p.tenantId} and week <= ${iso(lastWeek)}
          limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /** The weekly partitions of the week of `now` and the `ahead` weeks after it; the names created. */
    ensurePartitions(p: { now: Date; ahead: number }, tx: Executor = db) {
      return ensureWeeklyPartitions(tx, p);
    },

    /** Drops the weekly partitions of weeks that ended at or before `before`; the names dropped. */
    dropPartitions(p: { before: Date }, tx: Executor = db) {
      return dropWeeklyPartitions(tx, p);
    },

    /**
     * Rows of one of the `AGED` tables older than `before`, oldest first in no particular order;
     * with `tenantId`, only that tenant's.
     */
    async deleteAged(
      kind: AgedKind,
      p: { tenantId?: string; before: Date; batch: number },
      tx: Executor = db,
    ) {
      const { table, key, time } = AGED[kind];
      const keys = sql.raw(key.join(', '));
      const tenant = p.tenantId === undefined ? sql`` : sql`tenant_id = ${p.tenantId} and `;
      return run(
        sql`delete from ${sql.identifier(table)} where (${keys}) in (
          select ${keys} from ${sql.identifier(table)}
          where ${tenant}${sql.raw(time)} < ${iso(p.before)} limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /** Sessions idle since before the cutoff whose transcript is gone, with their per-session rows. */
    async deleteIdleSessions(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      const ids = await queryRows<{ id: string }>(
        tx,
        sql`select s.id::text as id from sessions s where s.tenant_id = ${p.tenantId}
          and s.updated_at < ${iso(p.before)}
          and not exists (select 1 from transcript_entries e where e.tenant_id = s.tenant_id and e.session_id = s.id)
          order by s.id limit ${p.batch}`,
      );
      if (ids.length === 0) return 0;
      const list = sql.join(
        ids.map((r) => sql`${r.id}::uuid`),
        sql`, `,
      );
      for (const table of [
        'lane_states',
        'attachment_manifest',
        'context_log',
        'transcript_chunks',
        'blob_owners',
        'compaction_runs',
      ]) {
        await tx.execute(
          sql`delete from ${sql.identifier(table)} where tenant_id = ${p.tenantId} and session_id in (${list})`,
        );
      }
      return run(
        sql`delete from sessions where tenant_id = ${p.tenantId} and id in (${list}) returning 1`,
        tx,
      );
    },

    async deleteDerivedMemories(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      const types = sql.join(
        DERIVED_MEMORY_TYPES.map((t) => sql`${t}`),
        sql`, `,
      );
      return run(
        sql`delete from memories where (tenant_id, id) in (
          select tenant_id, id from memories where tenant_id = ${p.tenantId} and type in (${types})
          and updated_at < ${iso(p.before)} limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /**
     * Blobs nobody can reach any more: tool results of deleted sessions, and blobs older than the
     * cutoff that no channel message's media and no attachment manifest still names.
     */
    async deleteOrphanBlobs(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      return run(
        sql`delete from blobs where (tenant_id, artifact_id) in (
          select b.tenant_id, b.artifact_id from blobs b
          where b.tenant_id = ${p.tenantId} and (
            (b.session_id is not null and not exists (
              select 1 from blob_owners o join sessions s on s.tenant_id = o.tenant_id and s.id = o.session_id
              where o.tenant_id = b.tenant_id and o.artifact_id = b.artifact_id))
            or (b.created_at < ${iso(p.before)}
              and not exists (select 1 from attachment_manifest a
                where a.tenant_id = b.tenant_id and a.artifact_id = b.artifact_id)
              and not exists (select 1 from channel_messages m where m.tenant_id = b.tenant_id
                and m.media @> jsonb_build_array(jsonb_build_object('artifact_id', b.artifact_id::text))))
          ) limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /**
     * Channels of the tenant with no message left whose newest message is older than the cutoff
     * (or that never had a dated one), with their backfill marks (channel and threads): the next
     * event or read starts them again as new.
     */
    async deleteIdleChannels(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      const gone = await queryRows<{ platform: string; channel_id: string }>(
        tx,
        // Only the row version seen empty (xmin): ingest locks a channel's row by updating it, so a
        // batch that wrote to the channel meanwhile keeps it.
        sql`delete from channels d using (
          select c.tenant_id, c.platform, c.channel_id, c.xmin as seen from channels c
          where c.tenant_id = ${p.tenantId} and coalesce(c.last_ts, c.first_ts, '-infinity') < ${iso(p.before)}
            and not exists (select 1 from channel_messages m where m.tenant_id = c.tenant_id
              and m.platform = c.platform and m.channel_id = c.channel_id)
          limit ${p.batch}) e
          where d.tenant_id = e.tenant_id and d.platform = e.platform and d.channel_id = e.channel_id
            and d.xmin = e.seen
          returning d.platform, d.channel_id`,
      );
      for (const channel of gone) {
        await tx.execute(
          sql`delete from channel_backfills where tenant_id = ${p.tenantId}
            and platform = ${channel.platform} and channel_id = ${channel.channel_id}`,
        );
      }
      return gone.length;
    },

    /**
     * Backfill marks of the tenant made before the cutoff for a channel or thread none of whose
     * messages is left (a thread mark when its thread has none, a channel mark when the channel has
     * none): a later read of it backfills again.
     */
    async deleteStaleBackfills(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      return run(
        sql`delete from channel_backfills where (tenant_id, platform, channel_id, thread_id) in (
          select b.tenant_id, b.platform, b.channel_id, b.thread_id from channel_backfills b
          where b.tenant_id = ${p.tenantId} and b.backfilled_at < ${iso(p.before)}
            and case when b.thread_id = '' then not exists (select 1 from channel_messages m
                where m.tenant_id = b.tenant_id and m.platform = b.platform and m.channel_id = b.channel_id)
              else not exists (select 1 from channel_messages m where m.tenant_id = b.tenant_id
                  and m.platform = b.platform and m.channel_id = b.channel_id and m.thread_id = b.thread_id)
                and not exists (select 1 from channel_messages m where m.tenant_id = b.tenant_id
                  and m.platform = b.platform and m.channel_id = b.channel_id and m.message_id = b.thread_id)
              end
          limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /**
     * Directory entries of the tenant (pushed or resolved names, and "no such user" answers) not
     * written since the cutoff: a later push or lookup stores the user again.
     */
    async deleteStaleUsers(p: { tenantId: string; before: Date; batch: number }, tx: Executor = db) {
      return run(
        sql`delete from platform_users where (tenant_id, platform, user_id) in (
          select tenant_id, platform, user_id from platform_users
          where tenant_id = ${p.tenantId} and fetched_at < ${iso(p.before)} limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /**
     * Every tenant: version rows of search scopes that hold no document any more (their memories or
     * chunks all deleted). A row is deleted only at the version the emptiness was seen at: a write
     * to the scope meanwhile bumps the version (the row triggers), and the row stays. A scope
     * written again later starts past every version it had (0019_citus_ready).
     */
    async deleteEmptySearchScopes(p: { batch: number }, tx: Executor = db) {
      return run(
        sql`delete from search_versions v using (
          select c.tenant_id, c.source, c.scope_key, c.version from search_versions c
          where case c.source
            when 'memories' then not exists (select 1 from memories m where m.tenant_id = c.tenant_id
              and m.scope = split_part(c.scope_key, ':', 1)
              and m.scope_key = substr(c.scope_key, length(split_part(c.scope_key, ':', 1)) + 2))
            else not exists (select 1 from transcript_chunks t where t.tenant_id = c.tenant_id
              and t.session_key = c.scope_key) end
          limit ${p.batch}) e
          where v.tenant_id = e.tenant_id and v.source = e.source and v.scope_key = e.scope_key
            and v.version = e.version returning 1`,
        tx,
      );
    },

    /** Every tenant: summarizer spend of months (`YYYY-MM`) before `beforePeriod`. */
    async deleteOldUsage(p: { beforePeriod: string; batch: number }, tx: Executor = db) {
      return run(
        sql`delete from tenant_usage where (tenant_id, period) in (
          select tenant_id, period from tenant_usage where period < ${p.beforePeriod} limit ${p.batch})
          returning 1`,
        tx,
      );
    },

    /** Every tenant: memories past their expires_at. */
    async deleteExpiredMemories(p: { now: Date; batch: number }, tx: Executor = db) {
      return run(
        sql`delete from memories where (tenant_id, id) in (
          select tenant_id, id from memories where expires_at is not null and expires_at <= ${iso(p.now)}
          limit ${p.batch}) returning 1`,
        tx,
      );
    },

    /** Every tenant: chunks whose first turn no longer exists (a session deleted elsewhere). */
    async deleteOrphanChunks(p: { batch: number }, tx: Executor = db) {
      return run(
        sql`delete from transcript_chunks where (tenant_id, session_id, first_seq) in (
          select c.tenant_id, c.session_id, c.first_seq from transcript_chunks c
          where not exists (select 1 from transcript_entries e where e.tenant_id = c.tenant_id
            and e.session_id = c.session_id and e.seq = c.first_seq)
          limit ${p.batch}) returning 1`,
        tx,
      );
    },
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;
