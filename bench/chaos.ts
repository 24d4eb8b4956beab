// Chaos run (docs/operations.md): its own PostgreSQL, Redis and 3 contextd instances on free ports
// of 127.0.0.1; channel events delivered 1–4 times each, shuffled, under injected faults; then
// lost, duplicated and wrong final states. Exits 1 when an acknowledged event was lost or a 500 came.
//
//   npm run chaos -- --events 2000 --faults 10 --seed 1
//   … --pause-ms 3000 (instance SIGSTOP length; default past the 30 s lock TTL) --logs ./chaos-logs
import { arg } from './lib/measure.js';
import { stopLiveClusters } from './lib/chaos/cluster.js';
import { chaosFailed, formatReport, runChaos } from './lib/chaos/run.js';

const number = (name: string, fallback: number) => {
  const value = Number(arg(name) ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
  return value;
};

const deadlineMs = number('deadline-s', 1_200) * 1000;
const stopEarly = (code: number) => async () => {
  await stopLiveClusters();
  process.exit(code);
};
process.on('SIGINT', stopEarly(130));
process.on('SIGTERM', stopEarly(143));
// Retries stop at the deadline; this ends the harness if something still hangs after it.
setTimeout(stopEarly(2), deadlineMs + 120_000).unref();

const logDir = arg('logs');
try {
  const report = await runChaos({
    events: number('events', 2_000),
    faults: number('faults', 10),
    seed: number('seed', 1),
    concurrency: number('concurrency', 8),
    deadlineMs,
    ...(arg('pause-ms') ? { instancePauseMs: number('pause-ms', 0) } : {}),
    ...(logDir ? { logDir } : {}),
    progress: (line) => console.warn(line),
  });
  console.log(formatReport(report));
  process.exit(chaosFailed(report) ? 1 : 0);
} catch (error) {
  console.error(error);
  await stopLiveClusters();
  process.exit(2);
}
