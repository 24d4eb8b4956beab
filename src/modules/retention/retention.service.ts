// The retention job (docs/design.md §6.13, every table's rule in docs/operations.md): per tenant
// with a retention period (its own, else RETENTION_DAYS), deletes channel messages, transcript
// entries, chunks, idle sessions, derived memories, orphan blobs, emptied channels with their
// backfill marks, and directory entries older than it; per tenant with a
// context-log period (its own, else CONTEXT_LOG_RETENTION_DAYS), context-log rows older than it and
// the payload parts of the weeks past it; for everyone, whole weekly partitions of the context log
// and its parts past the longest context-log period in force (src/db/partitions.ts), after
// creating those of the current week and CONTEXT_LOG_PARTITIONS_AHEAD weeks ahead, expired memories, orphan chunks, the
// versions of emptied search scopes, summarizer spend of months over a year back, ingest dedupe
// keys older than
// INGEST_DEDUPE_WINDOW_MS and Idempotency-Key replies older than IDEMPOTENCY_TTL_MS. Safe to start on every instance: one run at a time wins the
// 'retention' lock, the others skip.
import type { Clock } from '../../shared/clock.js';
import type { Config } from '../../config.js';
import type { LockManager } from '../../coord/lock.js';
import { tenantNotFound } from './retention.errors.js';
import type { Executor } from '../../db/client.js';
import type { RetentionRepository, TenantRetention } from './retention.repository.js';
import { REDACTION_RULES_VERSION } from '../memory/core/redaction.js';
import {
  REDACTED_SOURCES,
  type PageKey,
  type RedactedSource,
  type SearchRedactionRepository,
} from './search-redaction.repository.js';

const DAY_MS = 86_400_000;
const LEASE_ROW_GRACE_MS = 3_600_000;
const LOCK_TTL_MS = 60_000;
const BATCH = 2_000;
/** Rows re-redacted a page: each is redacted in JS (some 50 µs per KB), so pages stay short. */
const REDACT_BATCH = 200;

interface RetentionCounts {
  channel_messages: number;
  transcript_entries: number;
  transcript_chunks: number;
  sessions: number;
  derived_memories: number;
  expired_memories: number;
  blobs: number;
  ingest_events: number;
  idempotency_records: number;
  context_log: number;
  payload_parts: number;
  lock_leases: number;
  channels: number;
  channel_backfills: number;
  platform_users: number;
  search_versions: number;
  tenant_usage: number;
}

/** A tenant's retention periods as the API shows them: its own (null: the default) and in effect. */
interface RetentionSettings {
  conversation_days: number | null;
  context_log_days: number | null;
  effective: { conversation_days: number; context_log_days: number };
}

/** Stored search documents whose text the current redaction rules changed, per source. */
type RedactedCounts = Record<RedactedSource, number>;

/** Weekly partitions created and dropped by a pass, and the steps that failed (tried next pass). */
interface PartitionReport {
  created: string[];
  dropped: string[];
  failed: string[];
}

type RetentionReport =
  | {
      ran: true;
      tenants: number;
      counts: RetentionCounts;
      redacted: RedactedCounts;
      partitions: PartitionReport;
      complete: boolean;
    }
  | { ran: false; reason: 'locked' };

const emptyCounts = (): RetentionCounts => ({
  channel_messages: 0,
  transcript_entries: 0,
  transcript_chunks: 0,
  sessions: 0,
  derived_memories: 0,
  expired_memories: 0,
  blobs: 0,
  ingest_events: 0,
  idempotency_records: 0,
  context_log: 0,
  payload_parts: 0,
  lock_leases: 0,
  channels: 0,
  channel_backfills: 0,
  platform_users: 0,
  search_versions: 0,
  tenant_usage: 0,
});

export function createRetentionService(deps: {
  retention: RetentionRepository;
  searchRedaction: SearchRedactionRepository;
  locks: LockManager;
  clock: Clock;
  config: Pick<
    Config,
    | 'INGEST_DEDUPE_WINDOW_MS'
    | 'IDEMPOTENCY_TTL_MS'
    | 'RETENTION_DAYS'
    | 'CONTEXT_LOG_RETENTION_DAYS'
    | 'CONTEXT_LOG_PARTITIONS_AHEAD'
  >;
}) {
  const { retention, locks, config } = deps;
  const effective = (own: TenantRetention) => ({
    conversation_days: own.retentionDays ?? config.RETENTION_DAYS,
    context_log_days: own.contextLogRetentionDays ?? config.CONTEXT_LOG_RETENTION_DAYS,
  });
  const settingsOf = (own: TenantRetention): RetentionSettings => ({
    conversation_days: own.retentionDays,
    context_log_days: own.contextLogRetentionDays,
    effective: effective(own),
  });

  /**
   * Search documents stored before the current redaction rules (docs/memory.md "Existing data"):
   * every tenant's memories, chunks and channel messages' search text not yet re-redacted with
   * REDACTION_RULES_VERSION are read in key order, REDACT_BATCH rows a page, and rewritten where
   * the rules change them; a source read to its end is marked clean for the version, so later
   * passes skip it until the rules change. A pass cut short (the lock lost) starts it again.
   */
  const redactStoredSearch = async (stopped: () => boolean): Promise<RedactedCounts> => {
    const redacted = Object.fromEntries(REDACTED_SOURCES.map((s) => [s, 0])) as RedactedCounts;
    for (const { tenantId, source } of await deps.searchRedaction.pending(REDACTION_RULES_VERSION)) {
      let after: PageKey | null = null;
      for (;;) {
        if (stopped()) return redacted;
        const page = await deps.searchRedaction.page(source, { tenantId, after, batch: REDACT_BATCH });
        redacted[source] += page.changed;
        if (page.read < REDACT_BATCH) break;
        after = page.last;
      }
      await deps.searchRedaction.markDone({ tenantId, source, version: REDACTION_RULES_VERSION });
    }
    return redacted;
  };

  const failure = (step: string, error: unknown) =>
    `${step}: ${error instanceof Error ? error.message : String(error)}`;

  return {
    /**
     * The weekly partitions of the current week and CONTEXT_LOG_PARTITIONS_AHEAD weeks ahead (each
     * pass does it too; the job calls it at start). Concurrent callers take turns.
     */
    async preparePartitions(now: Date = deps.clock.now()): Promise<string[]> {
      return retention.ensurePartitions({ now, ahead: config.CONTEXT_LOG_PARTITIONS_AHEAD });
    },

    /** One pass; `now` is the reference time (tests pass their clock's). */
    async runRetention(now: Date = deps.clock.now()): Promise<RetentionReport> {
      const lock = await locks.acquire('retention', { ttlMs: LOCK_TTL_MS, waitMs: 0 });
      if (!lock) return { ran: false, reason: 'locked' };
      const counts = emptyCounts();
      // Deletes in batches until a batch comes back short; stops early if the lock is lost.
      const drain = async (key: keyof RetentionCounts, step: () => Promise<number>) => {
        for (;;) {
          if (lock.signal.aborted) return;
          const n = await step();
          counts[key] += n;
          if (n < BATCH) return;
        }
      };
      const partitions: PartitionReport = { created: [], dropped: [], failed: [] };
      try {
        const tenants = await retention.tenantPeriods();
        const cutoff = (days: number) => new Date(now.getTime() - days * DAY_MS);
        try {
          partitions.created = await retention.ensurePartitions({
            now,
            ahead: config.CONTEXT_LOG_PARTITIONS_AHEAD,
          });
        } catch (error) {
          partitions.failed.push(failure('create', error));
        }
        // A week is dropped whole once past the longest context-log period in force (the default's
        // too: tenants without a row of their own); none while any period keeps the log for good.
        const longest = [
          config.CONTEXT_LOG_RETENTION_DAYS,
          ...tenants.map((t) => effective(t).context_log_days),
        ];
        if (!longest.includes(0) && !lock.signal.aborted) {
          try {
            partitions.dropped = await retention.dropPartitions({ before: cutoff(Math.max(...longest)) });
          } catch (error) {
            partitions.failed.push(failure('drop', error));
          }
        }
        let withRetention = 0;
        for (const tenant of tenants) {
          const periods = effective(tenant);
          if (periods.context_log_days > 0) {
            const p = { tenantId: tenant.id, before: cutoff(periods.context_log_days), batch: BATCH };
            await drain('context_log', () => retention.deleteAged('context_log', p));
            await drain('payload_parts', () => retention.deleteAgedParts(p));
          }
          if (periods.conversation_days <= 0) continue;
          withRetention += 1;
          const p = { tenantId: tenant.id, before: cutoff(periods.conversation_days), batch: BATCH };
          for (const kind of ['channel_messages', 'transcript_chunks', 'transcript_entries'] as const) {
            await drain(kind, () => retention.deleteAged(kind, p));
          }
          await drain('sessions', () => retention.deleteIdleSessions(p));
          await drain('derived_memories', () => retention.deleteDerivedMemories(p));
          await drain('blobs', () => retention.deleteOrphanBlobs(p));
          await drain('channels', () => retention.deleteIdleChannels(p));
          await drain('channel_backfills', () => retention.deleteStaleBackfills(p));
          await drain('platform_users', () => retention.deleteStaleUsers(p));
        }
        await drain('expired_memories', () => retention.deleteExpiredMemories({ now, batch: BATCH }));
        await drain('transcript_chunks', () => retention.deleteOrphanChunks({ batch: BATCH }));
        await drain('search_versions', () => retention.deleteEmptySearchScopes({ batch: BATCH }));
        // The cap reads the current month only; a year of history is kept for the operator.
        const yearAgo = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth(), 1));
        const beforePeriod = yearAgo.toISOString().slice(0, 7);
        await drain('tenant_usage', () => retention.deleteOldUsage({ beforePeriod, batch: BATCH }));
        const windows = {
          ingest_events: deps.config.INGEST_DEDUPE_WINDOW_MS,
          idempotency_records: deps.config.IDEMPOTENCY_TTL_MS,
          // A lease expired an hour ago has no holder: its row is only left by a crashed one.
          lock_leases: LEASE_ROW_GRACE_MS,
        };
        for (const [kind, ms] of Object.entries(windows) as [keyof typeof windows, number][]) {
          const before = new Date(now.getTime() - ms);
          await drain(kind, () => retention.deleteAged(kind, { before, batch: BATCH }));
        }
        const redacted = await redactStoredSearch(() => lock.signal.aborted);
        return {
          ran: true,
          tenants: withRetention,
          counts,
          redacted,
          partitions,
          complete: !lock.signal.aborted,
        };
      } finally {
        await lock.release();
      }
    },

    async getSettings(tenantId: string): Promise<RetentionSettings> {
      const own = await retention.getTenantRetention(tenantId);
      if (!own) throw tenantNotFound(tenantId);
      return settingsOf(own);
    },

    /** Sets the tenant's own periods (null: the configured default). */
    async setSettings(
      tenantId: string,
      value: { conversation_days: number | null; context_log_days: number | null },
      tx?: Executor,
    ): Promise<RetentionSettings> {
      const own = { retentionDays: value.conversation_days, contextLogRetentionDays: value.context_log_days };
      if (!(await retention.setTenantRetention(tenantId, own, tx))) throw tenantNotFound(tenantId);
      return settingsOf(own);
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
