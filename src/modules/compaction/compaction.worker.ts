// Works background compaction jobs on this instance once the app is ready (COMPACTION_WORKERS at
// a time); on close, stops taking jobs and lets the running ones finish or expire.
import type { FastifyInstance } from 'fastify';
import type { CompactionQueue, JobHandler } from './compaction.jobs.js';

export function registerCompactionWorker(
  app: FastifyInstance,
  queue: CompactionQueue,
  handler: JobHandler,
  options: { workers: number },
): void {
  app.addHook('onReady', async () => {
    if (options.workers <= 0) return;
    const logged: JobHandler = async (job) => {
      try {
        const output = await handler(job);
        app.log.info({ job_id: job.id, session_id: job.data.sessionId }, 'compaction job finished');
        return output;
      } catch (error) {
        app.log.warn({ err: error, job_id: job.id, session_id: job.data.sessionId }, 'compaction job failed');
        throw error;
      }
    };
    await queue.work(logged, options.workers);
  });
  app.addHook('onClose', async () => {
    await queue.stop();
  });
}
