// A short chaos run (bench/lib/chaos): its own PostgreSQL cluster, Redis and 3 contextd processes,
// 2,000 events delivered 1–4 times each, shuffled, under 10 faults (kill -9, SIGSTOP of an instance
// and of the postmaster, pg_terminate_backend, Redis killed). Nothing acknowledged may be lost, no
// reply may be a 500, every final state must equal in-order delivery, and no instance may crash.
import { describe, expect, it } from 'vitest';
import { formatReport, runChaos } from '../../bench/lib/chaos/run.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js';

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'chaos run (needs PostgreSQL and Redis binaries)',
  () => {
    it(
      'loses nothing, duplicates nothing, ends in the in-order state and answers no 500 under faults',
      { timeout: 180_000 },
      async () => {
        const report = await runChaos({
          events: 2_000,
          faults: 10,
          seed: 7,
          // Short pauses keep the run near a minute; `npm run chaos` pauses past the lock TTL.
          instancePauseMs: 3_000,
          deadlineMs: 150_000,
        });
        console.warn(formatReport(report));
        expect(report.faults.length).toBe(10);
        expect(report.faults.filter((f) => f.error)).toEqual([]);
        expect(report.notAcked).toBe(0);
        expect(report.lost).toBe(0);
        expect(report.statuses['500'] ?? 0).toBe(0);
        expect(report.duplicated).toBe(0);
        expect(Object.entries(report.wrong).filter(([, n]) => n > 0)).toEqual([]);
        expect(report.unplannedExits).toEqual([]);
      },
    );
  },
);
