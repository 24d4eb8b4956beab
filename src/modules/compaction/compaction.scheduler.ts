// When compactions run: now (the API with `wait`, the compact_context tool, a blocked payload, a
// purge, a cold provider cache with the lane past its history share) or as a background job (the
// API without `wait`, a payload at should_compact, appends over the thresholds to a session that
// has made no context call yet). Otherwise a change of the sent view waits until the window needs
// it or the cache is cold (docs/compaction.md).
// Jobs go through the durable queue; its worker runs `compact`.
import type { CompactionJobData, CompactionQueue } from './compaction.jobs.js';
import { compactionJobNotFound, compactionRunning, isCompactionRunning } from './compaction.errors.js';
import type { CompactParams, CompactResult, CompactionService } from './compaction.service.js';
import type { CompactionJobView } from './compaction.schemas.js';

type CompactionRequestOutcome =
  { kind: 'done'; result: CompactResult } | { kind: 'queued'; job: CompactionJobView };

export function createCompactionScheduler(deps: {
  service: CompactionService;
  queue: CompactionQueue;
  /** Lanes of the session over their thresholds (one read). */
  lanesOverThresholds: (params: {
    tenantId: string;
    sessionId: string;
    laneKeys: string[];
  }) => Promise<string[]>;
  log?: { warn(obj: unknown, msg: string): void };
}) {
  const { service, queue } = deps;

  const jobView = (
    job: NonNullable<Awaited<ReturnType<CompactionQueue['getJob']>>>,
    sessionId: string,
  ): CompactionJobView => {
    const output = job.output as { result?: CompactResult; error?: string } | null;
    return {
      job_id: job.id,
      session_id: sessionId,
      state: job.state,
      result: output?.result ?? null,
      error: output?.error ?? null,
    };
  };

  return {
    /** Runs a queued job: a compaction that finds another one running is done, not failed. */
    async handleJob(job: { id: string; data: CompactionJobData }): Promise<unknown> {
      try {
        const result = await service.compact({
          tenantId: job.data.tenantId,
          sessionId: job.data.sessionId,
          trigger: 'job',
          ...(job.data.laneKeys ? { laneKeys: job.data.laneKeys } : {}),
          force: job.data.reason === 'api',
          ...(job.data.effectiveWindow !== undefined ? { effectiveWindow: job.data.effectiveWindow } : {}),
          ...(job.data.viewChange ? { viewChange: job.data.viewChange } : {}),
        });
        return { result };
      } catch (error) {
        if (isCompactionRunning(error)) return { error: 'another compaction of the session was running' };
        throw error;
      }
    },

    /** Queues a background compaction (one per session at a time); never throws into the caller's turn. */
    async schedule(data: CompactionJobData): Promise<{ jobId: string | null; deduplicated: boolean } | null> {
      try {
        return await queue.enqueue(data);
      } catch (error) {
        deps.log?.warn({ err: error, session_id: data.sessionId }, 'could not queue a compaction');
        return null;
      }
    },

    /**
     * After turns were appended through /turns to a session that has made no context call yet:
     * lanes over their thresholds get a background job (a rolling summary kept at the thresholds).
     * Such a session has no cached prefix to lose and no caller's window known yet. Once it has
     * made a call, appends never queue one: its sent view changes at its calls, when the window
     * needs it or the cache is cold (docs/compaction.md).
     */
    async afterAppend(params: {
      tenantId: string;
      sessionId: string;
      laneKeys: string[];
      hasCalled: boolean;
    }): Promise<void> {
      if (params.hasCalled) return;
      try {
        const over = await deps.lanesOverThresholds(params);
        if (over.length > 0) {
          await queue.enqueue({
            tenantId: params.tenantId,
            sessionId: params.sessionId,
            reason: 'thresholds',
            laneKeys: over,
          });
        }
      } catch (error) {
        deps.log?.warn({ err: error, session_id: params.sessionId }, 'could not check compaction thresholds');
      }
    },

    /** POST /compact: `wait` runs now (waiting for a running one); otherwise 202 with the job. */
    async requestCompaction(params: {
      tenantId: string;
      sessionId: string;
      laneKeys?: string[];
      wait: boolean;
      force: boolean;
    }): Promise<CompactionRequestOutcome> {
      const base: CompactParams = {
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        trigger: 'api',
        force: params.force,
        ...(params.laneKeys ? { laneKeys: params.laneKeys } : {}),
      };
      if (params.wait) return { kind: 'done', result: await service.compact({ ...base, wait: true }) };
      // Validates the session (404 for another tenant's) and reports a running one as 409.
      const running = await service.running(base);
      if (running.running) throw compactionRunning(params.sessionId, running.holderAgeMs);
      const data: CompactionJobData = {
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        reason: params.force ? 'api' : 'api_thresholds',
        ...(params.laneKeys ? { laneKeys: params.laneKeys } : {}),
      };
      // A request while a job of the session waits answers that job (it will see the new turns
      // too). Its id is read after the send: when it finished in between, the send is repeated.
      let queued = await queue.enqueue(data);
      for (let attempt = 1; queued.jobId === null && attempt < 3; attempt += 1)
        queued = await queue.enqueue(data);
      if (queued.jobId === null) throw compactionRunning(params.sessionId, 0);
      const waiting = queued.deduplicated ? await queue.getJob(queued.jobId) : null;
      const job: CompactionJobView = waiting
        ? jobView(waiting, params.sessionId)
        : { job_id: queued.jobId, session_id: params.sessionId, state: 'created', result: null, error: null };
      return { kind: 'queued', job: { ...job, deduplicated: queued.deduplicated } };
    },

    async getJob(params: { tenantId: string; sessionId: string; jobId: string }): Promise<CompactionJobView> {
      const job = await queue.getJob(params.jobId).catch(() => null);
      if (!job || job.data.tenantId !== params.tenantId || job.data.sessionId !== params.sessionId) {
        throw compactionJobNotFound(params.jobId);
      }
      return jobView(job, params.sessionId);
    },
  };
}

export type CompactionScheduler = ReturnType<typeof createCompactionScheduler>;
