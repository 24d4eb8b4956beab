// The retention job (docs/design.md §6.13): per tenant with a retention period, deletes channel messages,
// transcript entries, chunks, idle sessions, derived memories and orphan blobs older than it; for
// everyone, expired memories, orphan chunks, ingest dedupe keys older than
// INGEST_DEDUPE_WINDOW_MS and Idempotency-Key replies older than IDEMPOTENCY_TTL_MS. Safe to start on every instance: one run at a time wins the
// 'retention' lock, the others skip.
import type { Clock } from '../../shared/clock.js';
import type { Config } from '../../config.js';
import type { LockManager } from '../../coord/lock.js';
import type { RetentionRepository } from './retention.repository.js';

const DAY_MS = 86_400_000;
/** How often each instance tries to run the job. */
export const RETENTION_INTERVAL_MS = 3_600_000;
const LOCK_TTL_MS = 60_000;
const BATCH = 2_000;

export interface RetentionCounts {
  channel_messages: number;
  transcript_entries: number;
  transcript_chunks: number;
  sessions: number;
  derived_memories: number;
  expired_memories: number;
  blobs: number;
  ingest_events: number;
  idempotency_records: number;
}

export type RetentionReport =
  | { ran: true; tenants: number; counts: RetentionCounts; complete: boolean }
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
});

export function createRetentionService(deps: {
  retention: RetentionRepository;
  locks: LockManager;
  clock: Clock;
  config: Pick<Config, 'INGEST_DEDUPE_WINDOW_MS' | 'IDEMPOTENCY_TTL_MS'>;
}) {
  const { retention, locks } = deps;

  return {
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
      try {
        const tenants = await retention.tenantsWithRetention();
        for (const tenant of tenants) {
          const p = {
            tenantId: tenant.id,
            before: new Date(now.getTime() - tenant.retention_days * DAY_MS),
            batch: BATCH,
          };
          for (const kind of ['channel_messages', 'transcript_chunks', 'transcript_entries'] as const) {
            await drain(kind, () => retention.deleteAged(kind, p));
          }
          await drain('sessions', () => retention.deleteIdleSessions(p));
          await drain('derived_memories', () => retention.deleteDerivedMemories(p));
          await drain('blobs', () => retention.deleteOrphanBlobs(p));
        }
        await drain('expired_memories', () => retention.deleteExpiredMemories({ now, batch: BATCH }));
        await drain('transcript_chunks', () => retention.deleteOrphanChunks({ batch: BATCH }));
        const windows = {
          ingest_events: deps.config.INGEST_DEDUPE_WINDOW_MS,
          idempotency_records: deps.config.IDEMPOTENCY_TTL_MS,
        };
        for (const [kind, ms] of Object.entries(windows) as [keyof typeof windows, number][]) {
          const before = new Date(now.getTime() - ms);
          await drain(kind, () => retention.deleteAged(kind, { before, batch: BATCH }));
        }
        return { ran: true, tenants: tenants.length, counts, complete: !lock.signal.aborted };
      } finally {
        await lock.release();
      }
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
