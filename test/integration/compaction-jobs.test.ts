// Durable compaction jobs on PostgreSQL (pg-boss): a job whose worker process is killed with
// SIGKILL mid-job is picked up again by another worker and completed exactly once; at most one
// job per session is queued at a time. The embedded path runs jobs in process (no crash to survive).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompactionQueue, createInProcessQueue } from '../../src/modules/compaction/compaction.jobs.js';
import { createTestDatabase, usesRealPostgres, type TestDatabase } from '../helpers/app.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

describe.runIf(usesRealPostgres)('compaction jobs on PostgreSQL (pg-boss)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it(
    'a job survives a kill -9 of the worker that took it and completes once',
    async () => {
      const options = { maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 };
      const config = { DATABASE_URL: db.url!, COMPACTION_JOB_EXPIRE_SECONDS: 2 };
      const queue = createCompactionQueue({ database: db.database, config, options });
      const { jobId } = await queue.enqueue({ tenantId: 't1', sessionId: 's1', reason: 'test' });
      expect(jobId).not.toBeNull();
      // A second request for the session answers the job that waits.
      expect(await queue.enqueue({ tenantId: 't1', sessionId: 's1', reason: 'again' })).toEqual({
        jobId,
        deduplicated: true,
      });

      const worker = fileURLToPath(new URL('../helpers/compaction-job-worker.ts', import.meta.url));
      const child = fork(worker, [db.url!], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      });
      const taken = await new Promise<string>((resolve, reject) => {
        child.on('message', (m: { taken?: string }) => m.taken && resolve(m.taken));
        child.on('error', reject);
      });
      expect(taken).toBe(jobId);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('exit', resolve));

      const completions: string[] = [];
      await queue.work(async (job) => {
        completions.push(job.id);
        return { result: 'done by the second worker' };
      }, 1);
      let job = await queue.getJob(jobId!);
      await waitUntil(async () => (job = await queue.getJob(jobId!))?.state === 'completed', {
        intervalMs: 250,
      });
      await queue.stop();
      expect(job?.state).toBe('completed');
      expect(job?.output).toEqual({ result: 'done by the second worker' });
      expect(completions).toEqual([jobId]);
    },
    SLOW_TEST_TIMEOUT_MS,
  );

  it(
    'instances starting together on a fresh database all create and use the one queue',
    async () => {
      const fresh = await createTestDatabase();
      try {
        const config = { DATABASE_URL: fresh.url!, COMPACTION_JOB_EXPIRE_SECONDS: 60 };
        const queues = Array.from({ length: 6 }, () =>
          createCompactionQueue({ database: fresh.database, config }),
        );
        try {
          // pg-boss's create_queue deadlocks when two run at once; every start must still succeed.
          const results = await Promise.all(
            queues.map((queue, i) =>
              queue.enqueue({ tenantId: 't1', sessionId: `s${i % 2}`, reason: 'start' }),
            ),
          );
          const created = results.filter((r) => !r.deduplicated);
          expect(created).toHaveLength(2);
          expect(new Set(results.map((r) => r.jobId))).toEqual(new Set(created.map((r) => r.jobId)));
        } finally {
          await Promise.all(queues.map((queue) => queue.stop()));
        }
      } finally {
        await fresh.drop();
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});

describe('compaction jobs in process (embedded)', () => {
  it(
    'runs one job per session at a time, dedupes queued ones, and retries a failure',
    async () => {
      const queue = createInProcessQueue();
      let active = 0;
      let maxActive = 0;
      let failures = 1;
      const done: string[] = [];
      await queue.work(async (job) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 20));
        active -= 1;
        if (job.data.sessionId === 'flaky' && failures-- > 0) throw new Error('transient');
        done.push(job.data.sessionId);
        return { ok: true };
      }, 4);
      const first = await queue.enqueue({ tenantId: 't', sessionId: 'a', reason: 'x' });
      const second = await queue.enqueue({ tenantId: 't', sessionId: 'a', reason: 'x' });
      expect(first.deduplicated).toBe(false);
      expect(second).toEqual({ jobId: first.jobId, deduplicated: true });
      await queue.enqueue({ tenantId: 't', sessionId: 'b', reason: 'x' });
      const flaky = await queue.enqueue({ tenantId: 't', sessionId: 'flaky', reason: 'x' });
      await waitUntil(async () => (await queue.getJob(flaky.jobId!))?.state === 'completed', {
        intervalMs: 50,
      });
      expect((await queue.getJob(flaky.jobId!))?.state).toBe('completed');
      expect((await queue.getJob(first.jobId!))?.output).toEqual({ ok: true });
      expect(done.filter((s) => s === 'a')).toHaveLength(1);
      expect(maxActive).toBeLessThanOrEqual(4);
      await queue.stop();
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});
