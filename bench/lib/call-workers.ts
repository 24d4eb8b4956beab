// Throughput of the context call in several Node processes at once (issue 16, "both cores"): each
// worker builds its own app on the benchmark database, warms up unmeasured, then waits for the
// parent's go, so every process runs its share of the calls at the same time. The parent times
// from go to the last worker done.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface WorkerJob {
  database: string;
  key: string;
  session: string;
  channelId: string;
  /** Top-level message indexes this worker asks about, one per call (warm-up first). */
  anchors: number[];
  warmup: number;
  calls: number;
  concurrency: number;
}

type FromWorker = { ready: true } | { done: true; failed: number };

/** Runs `jobs` in one forked process each; returns calls/s over all of them, warm-ups excluded. */
export async function workerThroughput(
  script: string,
  jobs: WorkerJob[],
): Promise<{ perSecond: number; failed: number }> {
  const children = jobs.map((job) =>
    fork(script, ['--worker', JSON.stringify(job)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }),
  );
  const next = (child: (typeof children)[number]) =>
    new Promise<FromWorker>((resolve, reject) => {
      child.once('message', (m) => resolve(m as FromWorker));
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
  await Promise.all(children.map(next));
  const t0 = performance.now();
  const done = children.map(next);
  for (const child of children) child.send('go');
  const results = await Promise.all(done);
  const seconds = (performance.now() - t0) / 1000;
  for (const child of children) child.kill();
  const calls = jobs.reduce((s, j) => s + j.calls, 0);
  return {
    perSecond: calls / seconds,
    failed: results.reduce((s, r) => s + ('failed' in r ? r.failed : 0), 0),
  };
}
