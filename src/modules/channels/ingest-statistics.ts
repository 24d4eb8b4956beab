// Planner statistics after bulk loads. Prepared statements take their generic plan from the
// statistics they find; a table that was never analyzed (a new deployment, a restored dump) or
// that a bulk load or backfill has grown far past its last ANALYZE gets plans made for a table it
// no longer is (hash joins over a tenant's rows instead of primary-key loads), until autovacuum
// analyzes it — and with autovacuum off or behind, never. So ingest checks, after its first batch
// and then every CHECK_EVERY_EVENTS events this process applied, whether a table is due (never
// analyzed, or grown far past its last ANALYZE: table-statistics.repository.ts), and analyzes it in
// the background (one at a time; never on the request).
import type { TableStatisticsRepository } from './table-statistics.repository.js';

const CHECK_EVERY_EVENTS = 2_000;

export function createIngestStatistics(repo: TableStatisticsRepository) {
  let sinceCheck = CHECK_EVERY_EVENTS;
  let running: Promise<void> | null = null;
  const refresh = async () => {
    for (const table of await repo.dueForAnalyze()) await repo.analyze(table);
  };
  return {
    /** Counts `events` applied; starts a check (and the ANALYZE it asks for) when one is due. */
    applied(events: number): void {
      sinceCheck += events;
      if (sinceCheck < CHECK_EVERY_EVENTS || running) return;
      sinceCheck = 0;
      // A failed check (the database going away, a shutdown) is retried after the next events.
      running = refresh()
        .catch(() => {})
        .finally(() => (running = null));
    },
    /** Resolves when no check or ANALYZE is running (shutdown waits for it). */
    settled: (): Promise<void> => running ?? Promise.resolve(),
  };
}

export type IngestStatistics = ReturnType<typeof createIngestStatistics>;
