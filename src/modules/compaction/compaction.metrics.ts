// Compaction's Prometheus series, on the app's registry: compactions by strategy and outcome,
// duration, lock contention, summarizer fallbacks, summarizer tokens per tenant, and the job
// queue's depth.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CompactionQueue } from './compaction.jobs.js';

/** contextd_compaction_jobs{state}: the queue's waiting and running jobs, read at each scrape. */
export function observeQueueDepth(registry: Registry, queue: Pick<CompactionQueue, 'depth'>): void {
  new Gauge({
    name: 'contextd_compaction_jobs',
    help: 'Compaction jobs in the queue (all instances): queued (waiting or retrying) and active',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const depth = await queue.depth().catch(() => null);
      if (!depth) return;
      this.set({ state: 'queued' }, depth.queued);
      this.set({ state: 'active' }, depth.active);
    },
  });
}

export function createCompactionMetrics(registry: Registry) {
  return {
    compactions: new Counter({
      name: 'contextd_compactions_total',
      help: 'Lane compactions by strategy run and outcome (committed, fenced, skipped, failed)',
      labelNames: ['strategy', 'outcome'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'contextd_compaction_duration_seconds',
      help: 'Duration of a session compaction, lock to release',
      labelNames: ['trigger'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    lockContention: new Counter({
      name: 'contextd_compaction_lock_contention_total',
      help: 'Compactions that found another compaction of the session running',
      registers: [registry],
    }),
    fallbacks: new Counter({
      name: 'contextd_summarizer_fallbacks_total',
      help: 'Summaries made by the extractive summarizer instead of the LLM, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    summarizerTokens: new Counter({
      name: 'contextd_summarizer_tokens_total',
      help: 'Provider-reported summarizer tokens by tenant and direction (input, output)',
      labelNames: ['tenant', 'direction'] as const,
      registers: [registry],
    }),
  };
}

export type CompactionMetrics = ReturnType<typeof createCompactionMetrics>;
