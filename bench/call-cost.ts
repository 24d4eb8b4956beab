// Cost of one context call (issue 16): CPU per call, Node and PostgreSQL, in a steady state, beside
// the floors of the same stack measured in the same run (1, 3 and 15 sequential indexed reads
// through Fastify and the same driver). Every call asks about a new anchor (a message of the lane not
// asked about before in this run), as real traffic does, so the snapshot and thread are new text.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:call-cost
//   DATABASE_URL=… npm run bench:call-cost -- --sizes 10000,1000000 --turns 10,50,200,1000
//   npm run bench:call-cost -- --sizes 10000          (embedded PGlite: Node CPU only)
//
// Steady state: `--warmup` calls (default 1,000: V8 is still optimizing the call's code paths after
// 300, which then cost ~20% more Node CPU, docs/benchmarks.md) run unmeasured first; then
// `--window` calls (default 1,000; floors `--floor-window`, default 3,000) are measured: process.cpuUsage for Node, and utime + stime
// (/proc/<pid>/stat) of this benchmark database's own backends (pg_stat_activity, datname) for
// PostgreSQL, which must run on this machine. On PostgreSQL a context call's window runs in
// `--rounds` blocks (default 10), each after a block of the 3-read floor run by a process of its
// own, and `CPU × paired` divides by that paired floor. Dry runs, so state does not grow. Throughput: `--total`
// calls (default 1,000) at concurrency 32 in this process, then split over `--processes` (default 2)
// forked processes, each with its own app (bench/lib/call-workers.ts), beside the 3-read floor.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import {
  BENCH_PLATFORM,
  BENCH_TENANT,
  benchMessageId,
  channelSize,
  openBenchDatabase,
  seedChannel,
  topLevelIndexes,
  vacuumAnalyze,
} from './lib/channel-fixture.js';
import {
  arg,
  floorApp,
  int,
  machineLine,
  ms,
  printTable,
  summarize,
  throughput,
  type Latency,
} from './lib/measure.js';
import { openBenchApp, openWorkerApp, seedBenchSession } from './lib/bench-app.js';
import { contextBody } from './lib/questions.js';
import { backendCpu } from './lib/backend-cpu.js';
import { workerThroughput, type WorkerJob } from './lib/call-workers.js';

const DATABASE = 'contextd_bench_call_cost';
const SEED_CHUNK = 50_000;
const CONCURRENCY = 32;
const WARMUP_BLOCK = 1000;
/** Unmeasured calls before each measured block of a paired window (measurePaired). */
const FLOOR_LEAD_IN = 300;
const CALL_LEAD_IN = 30;
interface Cost {
  node: number;
  /** null: PostgreSQL is embedded (its CPU is in `node`) or not on this machine. */
  postgres: number | null;
  total: number;
  statements: number | null;
  latency: Latency;
}

async function main(): Promise<void> {
  const onServer = Boolean(process.env.DATABASE_URL);
  const sizes = (arg('sizes') ?? '10000').split(',').map(Number);
  const turnCounts = (arg('turns') ?? '10,50,200,1000').split(',').map(Number);
  const warmup = Number(arg('warmup') ?? 1000);
  const callWindow = Number(arg('window') ?? 1000);
  // The floors are cheap: more calls, so PostgreSQL's 10 ms CPU ticks still resolve them.
  const floorWindow = Number(arg('floor-window') ?? 3000);
  const total = Number(arg('total') ?? 1000);
  const processes = Number(arg('processes') ?? 2);
  // Blocks a context call's window is measured in, each beside a block of its 3-read floor.
  const rounds = Math.max(1, Number(arg('rounds') ?? 10));
  if (!onServer && sizes.some((s) => s > 100_000)) {
    console.log('bench:call-cost: more than 100,000 messages needs a real Postgres (set DATABASE_URL)');
    return;
  }

  const bench = await openBenchApp(DATABASE);
  const { database, floor, key, inject } = bench;
  const backends = onServer ? await backendCpu(database) : null;

  // `--cpu-profile DIR`: a V8 CPU profile of each context call's measured window (its paired
  // floor runs in another process).
  const profileDir = arg('cpu-profile');
  const profiler = profileDir ? new Session() : null;
  profiler?.connect();

  /** What a measured window used, summed over its blocks. */
  interface Sums {
    calls: number;
    nodeMs: number;
    pgMs: number | null;
    statements: number;
    times: number[];
  }
  const noSums = (): Sums => ({ calls: 0, nodeMs: 0, pgMs: onServer ? 0 : null, statements: 0, times: [] });
  const costOf = (sums: Sums): Cost => {
    const node = sums.nodeMs / sums.calls;
    const postgres = sums.pgMs === null ? null : sums.pgMs / sums.calls;
    return {
      node,
      postgres,
      total: node + (postgres ?? 0),
      statements: onServer ? sums.statements / sums.calls : null,
      latency: summarize(sums.times),
    };
  };

  /**
   * The warm-up in blocks of WARMUP_BLOCK calls, each block's CPU per call printed for the context
   * calls (`profileAs`): where the figures stop falling is where V8 is done optimizing.
   */
  async function warm(fn: (i: number) => Promise<unknown>, profileAs?: string): Promise<void> {
    const blocks: number[] = [];
    for (let from = 0; from < warmup; from += WARMUP_BLOCK) {
      const to = Math.min(warmup, from + WARMUP_BLOCK);
      const pgBlock = profileAs ? await backends?.start() : undefined;
      const nodeBlock = process.cpuUsage();
      for (let i = from; i < to; i += 1) await fn(i);
      const usage = process.cpuUsage(nodeBlock);
      const pgBlockMs = pgBlock ? await pgBlock.stop() : 0;
      blocks.push(((usage.user + usage.system) / 1000 + pgBlockMs) / (to - from));
    }
    if (profileAs && blocks.length > 1)
      console.log(
        `  ${profileAs}: warm-up CPU ms per call by ${int(WARMUP_BLOCK)}-call block: ${blocks.map(ms).join(' ')}`,
      );
  }

  /** Calls `fn(from)` … `fn(from + n - 1)` one after another, adding what they used to `sums`. */
  async function sample(fn: (i: number) => Promise<unknown>, from: number, n: number, sums: Sums) {
    const pg0 = await backends?.start();
    const statements0 = bench.statementCount();
    const node0 = process.cpuUsage();
    for (let i = from; i < from + n; i += 1) {
      const t0 = performance.now();
      await fn(i);
      sums.times.push(performance.now() - t0);
    }
    const usage = process.cpuUsage(node0);
    sums.statements += bench.statementCount() - statements0;
    if (pg0) sums.pgMs! += await pg0.stop();
    sums.nodeMs += (usage.user + usage.system) / 1000;
    sums.calls += n;
  }

  async function profiled<T>(profileAs: string | undefined, run: () => Promise<T>): Promise<T> {
    const profiling = profiler && profileAs ? profiler : null;
    if (profiling) {
      await profiling.post('Profiler.enable');
      await profiling.post('Profiler.start');
    }
    const result = await run();
    if (profiling) {
      const { profile } = await profiling.post('Profiler.stop');
      mkdirSync(profileDir!, { recursive: true });
      writeFileSync(join(profileDir!, `${profileAs}.cpuprofile`), JSON.stringify(profile));
    }
    return result;
  }

  /** Node and PostgreSQL CPU, statements and latency per call over the window, after the warm-up. */
  async function measure(fn: (i: number) => Promise<unknown>, window = callWindow): Promise<Cost> {
    await warm(fn);
    const sums = noSums();
    await sample(fn, warmup, window, sums);
    return costOf(sums);
  }

  /**
   * A context call's window measured in `rounds` blocks, each after a block of the 3-read floor run
   * by `floor` (a process of its own: floorWorker), so the call and the floor it is divided by see
   * the same machine: on a shared VM the CPU a fixed amount of work costs drifts by tens of percent
   * from one minute to the next, and a floor measured minutes earlier moved the ratio by as much.
   * In its own process the floor pays nothing for the call's garbage or caches (run in this process
   * between the call's blocks, it cost up to half as much again).
   */
  async function measurePaired(
    fn: (i: number) => Promise<unknown>,
    floor3: FloorProcess | null,
    profileAs?: string,
  ): Promise<{ call: Cost; floor: Cost | null }> {
    await warm(fn, profileAs);
    const call = noSums();
    const floorSums = noSums();
    let leadIns = 0;
    await profiled(profileAs, async () => {
      for (let r = 0; r < rounds; r += 1) {
        const share = (n: number) => Math.floor((n * (r + 1)) / rounds) - Math.floor((n * r) / rounds);
        if (floor3) {
          // The lead-in on its own, outside the window of PostgreSQL's CPU.
          await floor3.block(FLOOR_LEAD_IN, 0);
          const pg0 = await backends?.start();
          const block = await floor3.block(0, share(floorWindow));
          if (pg0) floorSums.pgMs! += await pg0.stop();
          floorSums.nodeMs += block.nodeMs;
          floorSums.times.push(...block.times);
          floorSums.statements += 3 * block.times.length;
          floorSums.calls += block.times.length;
        }
        for (let i = 0; i < CALL_LEAD_IN; i += 1) await fn(warmup + callWindow + leadIns++);
        await sample(fn, warmup + call.calls, share(callWindow), call);
      }
    });
    return { call: costOf(call), floor: floor3 ? costOf(floorSums) : null };
  }

  console.log(`bench:call-cost on ${onServer ? 'PostgreSQL' : 'embedded PGlite'}; ${machineLine()}`);
  console.log(
    `  warm-up ${warmup} calls, then ${callWindow} measured (floors ${floorWindow}); sessions of ${turnCounts.join(', ')} turns`,
  );
  const [{ n: memoryCount } = { n: 0 }] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from memories where tenant_id = ${BENCH_TENANT}`,
  );
  for (let i = Number(memoryCount); i < 300; i += 1) {
    await inject('POST', '/v1/memories', {
      scope: 'tenant',
      type: 'fact',
      text: `fact ${i}: the ${['rollout', 'migration', 'billing', 'dashboard'][i % 4]} owner for team ${i % 17} is user${i % 50}`,
    });
  }

  const runId = Date.now().toString(36);
  const rows: Record<string, string | number>[] = [];
  const throughputRows: Record<string, string | number>[] = [];
  for (const size of sizes) {
    const channelId = `assemble${size}`;
    const have = await channelSize(database, channelId);
    for (let from = have; from < size; from += SEED_CHUNK) {
      await seedChannel(database, channelId, from, Math.min(size, from + SEED_CHUNK));
      console.log(`  seeded ${int(Math.min(size, from + SEED_CHUNK))} / ${int(size)} messages`);
    }
    await vacuumAnalyze(database, have < size ? ['channel_messages', 'memories'] : ['memories']);
    const label = `${int(size)} msgs`;
    // Top-level messages (every 10th is a thread root with three replies, the rest stand alone), in
    // an order that visits each once: the session's lane is theirs, so its history is in every payload.
    const topLevel = topLevelIndexes(size);
    let nextAnchor = 0;
    const newAnchor = () => {
      const index = topLevel[(nextAnchor++ * 7919) % topLevel.length]!;
      if (nextAnchor > topLevel.length) throw new Error(`more calls than ${topLevel.length} anchors`);
      return benchMessageId(index);
    };
    const probe = benchMessageId(topLevel.at(-1)!);
    const reads = (n: number) => () =>
      floor.inject({
        method: 'GET',
        url: `/reads/${n}/${BENCH_TENANT}/${BENCH_PLATFORM}/${channelId}/${probe}`,
      });

    console.log(`  ${label}: floors…`);
    const floors = {
      1: await measure(reads(1), floorWindow),
      3: await measure(reads(3), floorWindow),
      15: await measure(reads(15), floorWindow),
    };
    // Ratios to the 3-read floor measured on its own (above), and, for a context call, to the one
    // measured in the blocks between its own (measurePaired).
    const row = (what: string, turns: number | string, cost: Cost, paired?: Cost) => ({
      what,
      messages: label,
      turns,
      'stmts/call': cost.statements === null ? 'n/a' : cost.statements.toFixed(1),
      'node ms': ms(cost.node),
      'pg ms': cost.postgres === null ? 'n/a' : ms(cost.postgres),
      'CPU ms': ms(cost.total),
      'CPU × 3-read': (cost.total / floors[3].total).toFixed(1),
      'paired 3-read ms': paired ? ms(paired.total) : '–',
      'CPU × paired': paired ? (cost.total / paired.total).toFixed(1) : '–',
      'p50 ms': ms(cost.latency.p50),
      'p50 × 3-read': (cost.latency.p50 / floors[3].latency.p50).toFixed(1),
    });
    for (const n of [1, 3, 15] as const)
      rows.push(row(`floor: ${n} indexed read${n > 1 ? 's' : ''}`, '–', floors[n]));

    const byTurns = new Map<number, { call: Cost; floor: Cost | null }>();
    // The paired 3-read floor's process (on PostgreSQL only: an embedded database is per process).
    const floorProcess = onServer
      ? await startFloorProcess({
          database: DATABASE,
          url: `/reads/3/${BENCH_TENANT}/${BENCH_PLATFORM}/${channelId}/${probe}`,
          warmup: floorWindow,
        })
      : null;
    let call50: ((i: number) => Promise<unknown>) | null = null;
    let session50: string | null = null;
    for (const turns of turnCounts) {
      const session = await seedBenchSession(bench, {
        sessionKey: `bench-call-cost-${size}-${turns}-${runId}`,
        channelId,
        turns,
      });
      const call = (i: number) =>
        inject('POST', `/v1/sessions/${session}/context`, contextBody(i, channelId, newAnchor()));
      console.log(`  ${label}: ${turns}-turn session…`);
      const paired = await measurePaired(call, floorProcess, `call-${size}-${turns}`);
      byTurns.set(turns, paired);
      rows.push(row('context call, new anchor', turns, paired.call, paired.floor ?? undefined));
      if (turns === 50) {
        call50 = call;
        session50 = session;
      }
    }
    printTable(
      `Cost per call at ${label} (sequential, app.inject; ${machineLine()})`,
      rows.slice(-(3 + turnCounts.length)),
    );
    floorProcess?.close();
    const [shortest, longest] = [byTurns.get(50), byTurns.get(Math.max(...turnCounts))];
    if (shortest && longest) {
      const ratio = (pick: (c: Cost) => number) => (pick(longest.call) / pick(shortest.call)).toFixed(2);
      const perFloor = (p: { call: Cost; floor: Cost | null }) => p.call.total / (p.floor?.total ?? NaN);
      console.log(
        `  ${Math.max(...turnCounts)}-turn call / 50-turn call: CPU ${ratio((c) => c.total)}×, p50 ${ratio((c) => c.latency.p50)}×; ` +
          `CPU × 3-read ${(perFloor(longest) / perFloor(shortest)).toFixed(2)}× (each to its paired floor)`,
      );
    }

    if (call50 && total > 0) {
      console.log(`  ${label}: throughput, ${total} calls at concurrency ${CONCURRENCY}…`);
      const floorThr = await throughput(total, CONCURRENCY, reads(3));
      const callThr = await throughput(total, CONCURRENCY, call50);
      const rowsThr: [string, { perSecond: number; latency?: Latency }][] = [
        ['floor: 3 indexed reads', floorThr],
        ['context call, new anchor, 50 turns', callThr],
      ];
      // Workers share the data only through a PostgreSQL server (embedded PGlite is per process).
      if (processes > 1 && onServer && session50) {
        // The anchors left, split between the workers; each warms up on its first `--warmup`, as the
        // single process did (until stop 26 on 200, after which V8 was still optimizing the call). A
        // worker gets only the anchors it uses: its job travels in argv, which Linux caps at 128 KiB
        // an argument.
        const left = topLevel.length - nextAnchor;
        const share = Math.floor(left / processes);
        const perWorker = Math.floor(total / processes);
        if (share < perWorker + warmup) throw new Error(`too few anchors left for ${processes} workers`);
        const jobs = Array.from({ length: processes }, (_, w) => ({
          database: DATABASE,
          key,
          session: session50!,
          channelId,
          anchors: Array.from(
            { length: perWorker + warmup },
            (_, k) => topLevel[((nextAnchor + w * share + k) * 7919) % topLevel.length]!,
          ),
          warmup,
          calls: perWorker,
          concurrency: Math.ceil(CONCURRENCY / processes),
        }));
        console.log(`  ${label}: throughput in ${processes} processes…`);
        const multi = await workerThroughput(import.meta.filename, jobs);
        if (multi.failed > 0) throw new Error(`${multi.failed} calls failed in the workers`);
        rowsThr.push([`context call, new anchor, 50 turns, ${processes} processes`, multi]);
      }
      for (const [what, r] of rowsThr) {
        throughputRows.push({
          what,
          messages: label,
          'calls/s': int(r.perSecond),
          '× 3-read floor': (r.perSecond / floorThr.perSecond).toFixed(2),
          'p50 ms': r.latency ? ms(r.latency.p50) : '–',
          'p99 ms': r.latency ? ms(r.latency.p99) : '–',
        });
      }
      printTable(
        `Throughput at ${label} (concurrency ${CONCURRENCY} in all)`,
        throughputRows.slice(-rowsThr.length),
      );
    }
  }
  printTable(`Cost per call, all sizes (${machineLine()})`, rows);
  await bench.close();
}

/** A worker process of workerThroughput: its own app, warm-up, then its calls on the parent's go. */
async function worker(job: WorkerJob): Promise<void> {
  const app = await openWorkerApp(job.database);
  let failed = 0;
  const call = async (i: number) => {
    const response = await app.inject({
      method: 'POST',
      url: `/v1/sessions/${job.session}/context`,
      headers: { authorization: `Bearer ${job.key}` },
      payload: contextBody(i, job.channelId, benchMessageId(job.anchors[i]!)),
    });
    if (response.statusCode !== 200) failed += 1;
  };
  for (let i = 0; i < job.warmup; i += 1) await call(i);
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send!({ ready: true });
  });
  await throughput(job.calls, job.concurrency, (i) => call(job.warmup + i));
  process.send!({ done: true, failed });
  await new Promise(() => {});
}

interface FloorJob {
  database: string;
  /** The floor app's route: GET /reads/3/… */
  url: string;
  warmup: number;
}
type FloorReply = { ready: true } | { nodeMs: number; times: number[] };

interface FloorProcess {
  /** `leadIn` unmeasured reads, then `n` measured: the process's own CPU and each call's time. */
  block(leadIn: number, n: number): Promise<{ nodeMs: number; times: number[] }>;
  close(): void;
}

/** The 3-read floor in a process of its own (floorWorker), warmed up, run a block at a time. */
async function startFloorProcess(job: FloorJob): Promise<FloorProcess> {
  const child = fork(import.meta.filename, ['--floor-worker', JSON.stringify(job)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const next = () =>
    new Promise<FloorReply>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`floor process exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as FloorReply);
      });
    });
  await next();
  return {
    async block(leadIn, n) {
      const reply = next();
      child.send({ leadIn, n });
      const got = await reply;
      if (!('times' in got)) throw new Error('floor process: unexpected reply');
      return got;
    },
    close: () => child.kill(),
  };
}

/** The floor process: the floor app on its own pool, warmed up, then blocks of reads on request. */
async function floorWorker(job: FloorJob): Promise<void> {
  const database = await openBenchDatabase(job.database);
  const app = await floorApp(database.db);
  const read = () => app.inject({ method: 'GET', url: job.url });
  for (let i = 0; i < job.warmup; i += 1) await read();
  process.on('message', (m: { leadIn: number; n: number }) => {
    void (async () => {
      for (let i = 0; i < m.leadIn; i += 1) await read();
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < m.n; i += 1) {
        const t0 = performance.now();
        await read();
        times.push(performance.now() - t0);
      }
      const usage = process.cpuUsage(cpu0);
      process.send!({ nodeMs: (usage.user + usage.system) / 1000, times } satisfies FloorReply);
    })();
  });
  process.send!({ ready: true } satisfies FloorReply);
  await new Promise(() => {});
}

const workerArg = process.argv.indexOf('--worker');
const floorArg = process.argv.indexOf('--floor-worker');
(workerArg >= 0
  ? worker(JSON.parse(process.argv[workerArg + 1]!) as WorkerJob)
  : floorArg >= 0
    ? floorWorker(JSON.parse(process.argv[floorArg + 1]!) as FloorJob)
    : main()
).catch((error) => {
  console.error(error);
  process.exit(1);
});
