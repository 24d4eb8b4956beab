// Background compactions as durable jobs (docs/compaction.md, "Jobs"). On PostgreSQL: pg-boss, a
// 'stately' queue keyed by session — at most one job queued and one active per session, any
// replica works them, a job whose instance died expires and is retried, retries back off. On the
// embedded PGlite (one process owns the database): the same contract in process.
import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';

export interface CompactionJobData {
  tenantId: string;
  sessionId: string;
  reason: string;
  laneKeys?: string[];
  /** The effective window of the context call that asked for the job: the lane is judged against it. */
  effectiveWindow?: number;
  /** Set when the job changes the sent view because the caller's window needs it. */
  viewChange?: 'window';
}

type JobState = 'created' | 'retry' | 'active' | 'completed' | 'failed' | 'cancelled';

interface CompactionJob {
  id: string;
  state: JobState;
  data: CompactionJobData;
  output: unknown;
  createdOn: Date;
  completedOn: Date | null;
}

export type JobHandler = (job: { id: string; data: CompactionJobData }) => Promise<unknown>;

export interface CompactionQueue {
  readonly kind: 'pg-boss' | 'in-process';
  /**
   * Queues a job, or with `deduplicated` answers the job of the session that already waits (it
   * will see these turns too); `jobId` is null only when that job finished before it was read.
   */
  enqueue(data: CompactionJobData): Promise<{ jobId: string | null; deduplicated: boolean }>;
  getJob(jobId: string): Promise<CompactionJob | null>;
  /** Jobs waiting (created or retrying) and running, across every instance; null before the queue started. */
  depth(): Promise<{ queued: number; active: number } | null>;
  /** Starts working jobs on this instance (`concurrency` at a time). */
  work(handler: JobHandler, concurrency: number): Promise<void>;
  stop(): Promise<void>;
}

const COMPACTION_QUEUE = 'contextd-compaction';
const RETRY = { retryLimit: 3, retryDelay: 5, retryBackoff: true };
const singletonKey = (data: CompactionJobData) => `${data.tenantId}:${data.sessionId}`;

interface QueueOptions {
  /** A job active longer than this is taken as crashed and retried (seconds). */
  expireInSeconds: number;
  /** How often expired jobs are looked for (seconds; pg-boss maintenance). */
  maintenanceIntervalSeconds?: number;
  pollingIntervalSeconds?: number;
}

export function createCompactionQueue(params: {
  database: Database;
  config: Pick<Config, 'DATABASE_URL' | 'COMPACTION_JOB_EXPIRE_SECONDS'>;
  options?: Partial<QueueOptions>;
}): CompactionQueue {
  const options: QueueOptions = {
    expireInSeconds: params.config.COMPACTION_JOB_EXPIRE_SECONDS,
    ...params.options,
  };
  if (params.database.kind === 'postgres' && params.config.DATABASE_URL) {
    return createPgBossQueue(params.config.DATABASE_URL, options);
  }
  return createInProcessQueue();
}

/** PostgreSQL's deadlock and unique-violation codes: what two concurrent queue creations end in. */
const CREATE_RACE_CODES = new Set(['40P01', '23505']);

/**
 * Creates the compaction queue once per database, however many instances start together.
 * pg-boss's create_queue inserts the queue row and then adds foreign keys to it in one
 * transaction, so two instances creating it at once can deadlock; the loser retries, and by then
 * the winner's row is there.
 */
async function ensureQueue(instance: PgBoss, options: QueueOptions): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    if (await instance.getQueue(COMPACTION_QUEUE)) return;
    try {
      await instance.createQueue(COMPACTION_QUEUE, {
        name: COMPACTION_QUEUE,
        policy: 'stately',
        expireInSeconds: options.expireInSeconds,
        ...RETRY,
      });
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= 5 || typeof code !== 'string' || !CREATE_RACE_CODES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
    }
  }
}

/**
 * The job a deduplicated send met: the session's queued one (the 'stately' policy keeps one queued
 * and one active per key), else its active one. pg-boss 10 has no lookup by singleton key, so its
 * job table is read directly.
 */
async function waitingJobId(instance: PgBoss, key: string): Promise<string | null> {
  const { rows } = await instance.getDb().executeSql(
    `select id from pgboss.job where name = $1 and singleton_key = $2 and state in ('created', 'retry', 'active')
     order by state = 'active', created_on desc limit 1`,
    [COMPACTION_QUEUE, key],
  );
  return (rows[0] as { id?: string } | undefined)?.id ?? null;
}

function createPgBossQueue(connectionString: string, options: QueueOptions): CompactionQueue {
  let started: Promise<PgBoss> | null = null;
  // Started on first use: an instance that never queues or works a compaction opens no connection.
  // A start that failed is not kept: the next use tries again.
  const boss = () =>
    (started ??= (async () => {
      const instance = new PgBoss({
        connectionString,
        max: 3,
        schema: 'pgboss',
        application_name: 'contextd-jobs',
        maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
        monitorStateIntervalSeconds: 60,
      });
      instance.on('error', () => {
        // Connection errors surface on the next call; the queue's own loop retries.
      });
      try {
        await instance.start();
        await ensureQueue(instance, options);
        return instance;
      } catch (error) {
        started = null;
        await instance.stop({ graceful: false, wait: true }).catch(() => {});
        throw error;
      }
    })());
  const workers: string[] = [];
  return {
    kind: 'pg-boss',
    async enqueue(data) {
      const id = await (
        await boss()
      ).send(COMPACTION_QUEUE, data, {
        singletonKey: singletonKey(data),
        expireInSeconds: options.expireInSeconds,
        ...RETRY,
      });
      if (id !== null) return { jobId: id, deduplicated: false };
      return { jobId: await waitingJobId(await boss(), singletonKey(data)), deduplicated: true };
    },
    async getJob(jobId) {
      if (!/^[0-9a-f-]{36}$/i.test(jobId)) return null;
      const job = await (
        await boss()
      ).getJobById<CompactionJobData>(COMPACTION_QUEUE, jobId, {
        includeArchive: true,
      });
      if (!job) return null;
      return {
        id: job.id,
        state: job.state,
        data: job.data,
        output: job.output ?? null,
        createdOn: job.createdOn,
        completedOn: job.completedOn,
      };
    },
    async depth() {
      // A scrape never starts pg-boss: before this instance used the queue there is nothing to read.
      const instance = started ? await started.catch(() => null) : null;
      if (!instance) return null;
      const queued = await instance.getQueueSize(COMPACTION_QUEUE);
      const queuedOrActive = await instance.getQueueSize(COMPACTION_QUEUE, { before: 'completed' });
      return { queued, active: Math.max(0, queuedOrActive - queued) };
    },
    async work(handler, concurrency) {
      const instance = await boss();
      for (let i = 0; i < concurrency; i += 1) {
        workers.push(
          await instance.work<CompactionJobData>(
            COMPACTION_QUEUE,
            { batchSize: 1, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2 },
            async ([job]) => (job ? handler({ id: job.id, data: job.data }) : null),
          ),
        );
      }
    },
    async stop() {
      if (!started) return;
      const instance = await started.catch(() => null);
      await instance?.stop({ graceful: true, timeout: 10_000, wait: true });
    },
  };
}

/** The embedded path's queue: the same contract, in memory (triggers re-fire after a restart). */
export function createInProcessQueue(): CompactionQueue {
  const jobs = new Map<string, CompactionJob & { attempts: number; runAfter: number }>();
  const queued = new Map<string, string>();
  const active = new Set<string>();
  let handler: JobHandler | null = null;
  let concurrency = 0;
  let running = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  // One timer, for the earliest waiting retry.
  let wake: { at: number; timer: NodeJS.Timeout } | null = null;
  const wakeAt = (at: number) => {
    if (wake && wake.at <= at) return;
    if (wake) clearTimeout(wake.timer);
    const timer = setTimeout(
      () => {
        wake = null;
        pump();
      },
      Math.max(1, at - Date.now()),
    );
    timer.unref();
    wake = { at, timer };
  };
  const pump = () => {
    if (!handler || stopped) return;
    for (const [key, id] of [...queued]) {
      if (running >= concurrency) return;
      const job = jobs.get(id)!;
      if (active.has(key)) continue;
      // A waiting retry: pump again when it is due (a timer can fire a little before Date.now()
      // reaches runAfter, so the retry's own timer is not enough).
      if (job.runAfter > Date.now()) {
        wakeAt(job.runAfter);
        continue;
      }
      queued.delete(key);
      active.add(key);
      running += 1;
      job.state = 'active';
      job.attempts += 1;
      const execute = async () => {
        try {
          job.output = await handler!({ id: job.id, data: job.data });
          job.state = 'completed';
          job.completedOn = new Date();
        } catch (error) {
          job.output = { error: error instanceof Error ? error.message : String(error) };
          if (job.attempts <= RETRY.retryLimit && !queued.has(key)) {
            job.state = 'retry';
            job.runAfter = Date.now() + RETRY.retryDelay * 1000 * 2 ** (job.attempts - 1);
            queued.set(key, job.id);
            wakeAt(job.runAfter);
          } else {
            job.state = 'failed';
            job.completedOn = new Date();
          }
        } finally {
          active.delete(key);
          running -= 1;
          setImmediate(pump);
        }
      };
      const run: Promise<void> = execute().finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
  };

  return {
    kind: 'in-process',
    async depth() {
      return { queued: queued.size, active: active.size };
    },
    async enqueue(data) {
      const key = singletonKey(data);
      const waiting = queued.get(key);
      if (waiting) return { jobId: waiting, deduplicated: true };
      const job = {
        id: randomUUID(),
        state: 'created' as const,
        data,
        output: null,
        createdOn: new Date(),
        completedOn: null,
        attempts: 0,
        runAfter: 0,
      };
      jobs.set(job.id, job);
      queued.set(key, job.id);
      // Finished jobs are kept for status reads; bounded.
      if (jobs.size > 10_000) {
        for (const [id, old] of jobs) {
          if (jobs.size <= 5_000) break;
          if (old.state === 'completed' || old.state === 'failed') jobs.delete(id);
        }
      }
      setImmediate(pump);
      return { jobId: job.id, deduplicated: false };
    },
    async getJob(jobId) {
      const job = jobs.get(jobId);
      if (!job) return null;
      const { attempts: _attempts, runAfter: _runAfter, ...view } = job;
      return { ...view };
    },
    async work(next, workers) {
      handler = next;
      concurrency = workers;
      pump();
    },
    async stop() {
      stopped = true;
      await Promise.allSettled([...inFlight]);
    },
  };
}
