// postgres.js queue under saturation (issue 16, item 2): Node CPU per query over minutes while
// queries outnumber connections, for postgres.js 3.4.9's own Queue and for the one our patch
// carries (patches/postgres+3.4.9.patch). 3.4.9 left a hole per shift() in a queue that never
// drains (connections cycling through `busy`) and scanned every hole on each remove(), so CPU per
// query grew with uptime. The 3.4.9 variant is rebuilt in the same run: a copy of the installed
// package with only the queue.js hunk of our patch reversed (`git apply -R`). Each window is
// compared with the first window of the same client after warm-up (the floor of this run).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:pg-queue
//   npm run bench:pg-queue -- --seconds 120 --window 10 --connections 4 --in-flight 64
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type postgres from 'postgres';
import { arg, int, machineLine, printTable } from './lib/measure.js';

const DATABASE = 'contextd_bench_cost';
type Postgres = typeof postgres;

/** The installed (patched) package and a copy of it with postgres.js 3.4.9's queue.js restored. */
async function variants(): Promise<{ name: string; postgres: Postgres; cleanup: () => void }[]> {
  const require = createRequire(import.meta.url);
  const installed = dirname(dirname(dirname(require.resolve('postgres'))));
  const root = mkdtempSync(join(tmpdir(), 'contextd-pg-queue-'));
  const copy = join(root, 'node_modules/postgres');
  cpSync(installed, copy, { recursive: true });
  execFileSync(
    'git',
    ['apply', '-R', '--include=node_modules/postgres/src/queue.js', resolve('patches/postgres+3.4.9.patch')],
    { cwd: root },
  );
  if (
    readFileSync(join(copy, 'src/queue.js'), 'utf8') === readFileSync(join(installed, 'src/queue.js'), 'utf8')
  ) {
    throw new Error('bench:pg-queue: reversing the queue.js hunk changed nothing');
  }
  const load = async (dir: string) =>
    ((await import(pathToFileURL(join(dir, 'src/index.js')).href)) as { default: Postgres }).default;
  return [
    {
      name: 'postgres.js 3.4.9 queue',
      postgres: await load(copy),
      cleanup: () => rmSync(root, { recursive: true }),
    },
    { name: 'patched queue', postgres: await load(installed), cleanup: () => {} },
  ];
}

interface Window {
  second: number;
  queries: number;
  cpuUs: number;
}

/** Keeps `inFlight` queries outstanding on `connections` connections for `seconds`, sampling windows. */
async function saturate(
  make: Postgres,
  url: string,
  opts: { connections: number; inFlight: number; seconds: number; window: number; warmup: number },
): Promise<Window[]> {
  const sql = make(url, { max: opts.connections, onnotice: () => {} });
  let done = 0;
  let stop = false;
  const windows: Window[] = [];
  const worker = async () => {
    while (!stop) {
      await sql`select 1 as one`;
      done += 1;
    }
  };
  const workers = Array.from({ length: opts.inFlight }, worker);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(opts.warmup * 1000);
  const t0 = performance.now();
  for (let s = opts.window; s <= opts.seconds; s += opts.window) {
    const q0 = done;
    const c0 = process.cpuUsage();
    await sleep(t0 + s * 1000 - performance.now());
    const cpu = process.cpuUsage(c0);
    windows.push({ second: s, queries: done - q0, cpuUs: cpu.user + cpu.system });
  }
  stop = true;
  await Promise.all(workers);
  await sql.end({ timeout: 5 });
  return windows;
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('bench:pg-queue: needs a real PostgreSQL (set DATABASE_URL)');
    return;
  }
  const opts = {
    connections: Number(arg('connections') ?? 4),
    inFlight: Number(arg('in-flight') ?? 64),
    seconds: Number(arg('seconds') ?? 120),
    window: Number(arg('window') ?? 10),
    warmup: Number(arg('warmup') ?? 5),
  };
  const target = new URL(url);
  target.pathname = `/${DATABASE}`;
  const all = await variants();
  {
    const admin = all[1]!.postgres(url, { max: 1, onnotice: () => {} });
    const [exists] = await admin`select 1 from pg_database where datname = ${DATABASE}`;
    if (!exists) await admin.unsafe(`create database "${DATABASE}"`);
    await admin.end();
  }
  const results: { name: string; windows: Window[] }[] = [];
  for (const variant of all) {
    results.push({ name: variant.name, windows: await saturate(variant.postgres, target.toString(), opts) });
    variant.cleanup();
  }
  const perQuery = (w: Window) => w.cpuUs / Math.max(1, w.queries);
  const rows = results[0]!.windows.map((_, i) => {
    const row: Record<string, string> = { 'after s': String(results[0]!.windows[i]!.second) };
    for (const { name, windows } of results) {
      const w = windows[i]!;
      row[`${name}: queries/s`] = int(w.queries / opts.window);
      row[`${name}: µs CPU/query`] = perQuery(w).toFixed(1);
      row[`${name}: × first window`] = (perQuery(w) / perQuery(windows[0]!)).toFixed(2);
    }
    return row;
  });
  printTable(
    `Node CPU per query at saturation: ${opts.inFlight} queries in flight on ${opts.connections} connections, ` +
      `${opts.window}-s windows after ${opts.warmup} s of warm-up`,
    rows,
  );
  console.log(`\n${machineLine()}`);
}

await main();
