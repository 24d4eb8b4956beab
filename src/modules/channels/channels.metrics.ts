// Ingest's Prometheus series: channel events applied, by platform and outcome. Counted once the
// batch is committed and not for an Idempotency-Key replay (docs/operations.md, Metrics). And
// backfills from the platform, by outcome: a failed one is a read that served stale data.
import { Counter, type Registry } from 'prom-client';
import { supportedPlatforms } from '../../platforms/index.js';
import type { IngestItemResult } from './ingest.service.js';

/** Normalized events may name any platform; the label keeps the three we know, else `other`. */
function platformLabel(platform: string): string {
  return (supportedPlatforms as readonly string[]).includes(platform) ? platform : 'other';
}

export function createIngestMetrics(registry: Registry) {
  const events = new Counter({
    name: 'contextd_events_ingested_total',
    help: 'Channel events applied, by platform and outcome (created, updated, duplicate, ignored)',
    labelNames: ['platform', 'outcome'] as const,
    registers: [registry],
  });
  return {
    /** `platformOf` gives the platform of the batch's event at an index. */
    observe(results: readonly IngestItemResult[], platformOf: (index: number) => string): void {
      // Summed per series first: a batch's events fall in a few (platform, outcome) series, and
      // each inc with labels hashes them.
      const sums = new Map<string, { platform: string; outcome: IngestItemResult['outcome']; n: number }>();
      for (const item of results) {
        const platform = platformLabel(platformOf(item.index));
        const key = `${platform}\u0000${item.outcome}`;
        const sum = sums.get(key);
        if (sum) sum.n += 1;
        else sums.set(key, { platform, outcome: item.outcome, n: 1 });
      }
      for (const { platform, outcome, n } of sums.values()) events.inc({ platform, outcome }, n);
    },
  };
}

export function createBackfillMetrics(registry: Registry) {
  const backfills = new Counter({
    name: 'contextd_backfills_total',
    help: 'Backfills of cold channels and threads from the platform API, by platform, scope (channel, thread) and outcome (fetched, failed: served what is stored with a note)',
    labelNames: ['platform', 'scope', 'outcome'] as const,
    registers: [registry],
  });
  const calls = new Counter({
    name: 'contextd_backfill_platform_calls_total',
    help: 'Platform API calls made by backfills, by platform',
    labelNames: ['platform'] as const,
    registers: [registry],
  });
  return {
    observe(platform: string, scope: 'channel' | 'thread', outcome: 'fetched' | 'failed', callsMade: number) {
      backfills.inc({ platform: platformLabel(platform), scope, outcome });
      if (callsMade > 0) calls.inc({ platform: platformLabel(platform) }, callsMade);
    },
  };
}

export type BackfillMetrics = ReturnType<typeof createBackfillMetrics>;
