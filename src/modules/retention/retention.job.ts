// Starts the retention job (docs/design.md §6.13) on an interval once the app is ready and stops it on
// close. Every instance ticks; the job's lock lets one of them run at a time.
import type { FastifyInstance } from 'fastify';
import type { RetentionService } from './retention.service.js';

export function registerRetentionJob(
  app: FastifyInstance,
  retention: Pick<RetentionService, 'runRetention' | 'preparePartitions'>,
  options: { enabled: boolean; intervalMs: number },
): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = retention
      .runRetention()
      .then((report) => {
        if (report.ran) app.log.info({ retention: report }, 'retention pass finished');
      })
      .catch((error: unknown) => app.log.warn({ err: error }, 'retention pass failed'))
      .finally(() => {
        running = null;
      });
  };
  app.addHook('onReady', async () => {
    if (!options.enabled) return;
    // This week's partitions and those ahead at once, not an interval later (a failure is logged;
    // rows go to the default partition meanwhile and the next pass tries again).
    running = retention
      .preparePartitions()
      .then((created) => {
        if (created.length > 0) app.log.info({ created }, 'context-log partitions created');
      })
      .catch((error: unknown) => app.log.warn({ err: error }, 'creating context-log partitions failed'))
      .finally(() => {
        running = null;
      });
    timer = setInterval(tick, options.intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
