// Shared benchmark helpers: deterministic randomness, latency percentiles, throughput at a given
// concurrency, the machine's floors (Fastify returning a constant; Fastify with one indexed
// Postgres read) measured in the same run, and a plain table printer. Used by the channel,
// ingest and assembly benchmarks.
import { loadavg, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import { queryRows, type Db } from '../../src/db/client.js';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export interface Latency {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of ascending samples. */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export function summarize(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((s, t) => s + t, 0) / Math.max(1, sorted.length),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** Sequential latency of `fn` (ms), after `warmup` unmeasured calls. */
export async function latency(
  runs: number,
  fn: (i: number) => Promise<unknown>,
  warmup = 20,
): Promise<Latency> {
  // Warm-up calls get indexes after the measured ones, so callers that vary their input by index
  // do not measure inputs the warm-up already saw.
  for (let i = 0; i < warmup; i += 1) await fn(runs + i);
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return summarize(times);
}

/** Runs `total` calls of `fn` with `concurrency` in flight; returns calls/s and per-call latency. */
export async function throughput(
  total: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ perSecond: number; seconds: number; latency: Latency }> {
  let next = 0;
  const times: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const s = performance.now();
        await fn(i);
        times.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: total / seconds, seconds, latency: summarize(times) };
}

/**
 * The floor apps: `GET /constant` returns a constant; `GET /read/:id` does one primary-key read of
 * channel_messages through the same driver. Both go through app.inject like the measured routes.
 */
export async function floorApp(db: Db): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/constant', async () => ({ ok: true }));
  type ReadParams = { tenant: string; platform: string; channel: string; id: string };
  const readMessage = async ({ tenant, platform, channel, id }: ReadParams) =>
    (
      await queryRows(
        db,
        sql`select message_id, text from channel_messages where tenant_id = ${tenant} and platform = ${platform}
            and channel_id = ${channel} and message_id = ${id}`,
      )
    )[0] ?? null;
  app.get<{ Params: ReadParams }>('/read/:tenant/:platform/:channel/:id', (request) =>
    readMessage(request.params),
  );
  // As many sequential indexed reads as the request names: the statements of a heavier request
  // without any of its work.
  app.get<{ Params: ReadParams & { n: string } }>(
    '/reads/:n/:tenant/:platform/:channel/:id',
    async (request) => {
      let row: unknown = null;
      for (let i = 0; i < Number(request.params.n); i += 1) row = await readMessage(request.params);
      return row;
    },
  );
  await app.ready();
  return app;
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
export const int = (value: number) => Math.round(value).toLocaleString('en-US');

/** Prints rows as a Markdown table (ready to paste into docs/benchmarks.md). */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]!);
  console.log(`\n### ${title}\n`);
  console.log(`| ${headers.join(' | ')} |`);
  console.log(`| ${headers.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${headers.map((h) => String(row[h] ?? '')).join(' | ')} |`);
}

/** One row for a latency table. */
export const latencyRow = (what: string, l: Latency, extra: Record<string, string | number> = {}) => ({
  what,
  ...extra,
  'p50 ms': ms(l.p50),
  'p99 ms': ms(l.p99),
  'mean ms': ms(l.mean),
  n: l.n,
});

/** Machine context printed with every table: other processes' load skews every number. */
export function machineLine(): string {
  const [one, five] = loadavg();
  return `${cpus().length} cores, load average ${one!.toFixed(2)} (1 min) / ${five!.toFixed(2)} (5 min), node ${process.version}`;
}
