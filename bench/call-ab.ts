// Two builds of the context call, side by side (issue 16): this checkout (A) and `--other DIR` (B,
// another checkout of contextd with its node_modules and this bench/ copied in), each in a process
// of its own on bench:call-cost's database, called in alternating blocks (A B B A, B A A B, …) so
// that the minute-to-minute drift of this shared machine's CPU falls on both alike. Per block: the
// process's own CPU (process.cpuUsage) and the CPU of the database's backends (only the block's
// process is calling then). Every call asks about a new anchor, as in bench:call-cost.
//
//   npm run bench:call-cost -- --size 100000   (seeds the IRC channel first)
//   git worktree add /tmp/before <rev> && ln -s "$PWD/node_modules" /tmp/before/node_modules
//   cp -r bench /tmp/before/ && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     npm run bench:call-ab -- --other /tmp/before --size 100000 --turns 50
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { backendCpu } from './lib/backend-cpu.js';
import { openBenchApp, openWorkerApp, seedBenchSession } from './lib/bench-app.js';
import { channelSize } from './lib/channel-fixture.js';
import {
  CALL_COST_DATABASE,
  IRC_DATA,
  ircAnchors,
  ircChannelId,
  ircContextBody,
  readIrcLines,
} from './lib/irc-channel.js';
import { arg, int, machineLine, ms, printTable, summarize } from './lib/measure.js';

const CALL_LEAD_IN = 30;

interface Job {
  key: string;
  session: string;
  channelId: string;
  /** Top-level line indexes, one per call (warm-up first). */
  anchors: number[];
  warmup: number;
}
type Reply = { ready: true } | { nodeMs: number; times: number[] };

interface Side {
  label: string;
  /** `leadIn` unmeasured calls, then `n` measured: the process's CPU and each call's time. */
  block(leadIn: number, n: number): Promise<{ nodeMs: number; times: number[] }>;
  close(): void;
}

async function startSide(label: string, dir: string, job: Job): Promise<Side> {
  const child: ChildProcess = fork(
    resolve(dir, 'bench/call-ab.ts'),
    ['--ab-worker', JSON.stringify(job), '--database', CALL_COST_DATABASE],
    {
      cwd: dir,
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    },
  );
  const next = () =>
    new Promise<Reply>((done, fail) => {
      const onExit = (code: number | null) => fail(new Error(`${label} exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        done(m as Reply);
      });
    });
  await next();
  return {
    label,
    async block(leadIn, n) {
      const reply = next();
      child.send({ leadIn, n });
      const got = await reply;
      if (!('times' in got)) throw new Error(`${label}: unexpected reply`);
      return got;
    },
    close: () => child.kill(),
  };
}

async function main(): Promise<void> {
  const other = arg('other');
  if (!other || !process.env.DATABASE_URL) {
    console.log('bench:call-ab: needs DATABASE_URL (PostgreSQL on this machine) and --other DIR');
    return;
  }
  const lines = readIrcLines();
  if (!lines) {
    console.log(`bench:call-ab: skipped, the Ubuntu IRC excerpts are not at ${IRC_DATA}`);
    return;
  }
  const size = Number(arg('size') ?? 100_000);
  const turns = Number(arg('turns') ?? 50);
  const warmup = Number(arg('warmup') ?? 1000);
  const blocks = Math.max(2, Number(arg('blocks') ?? 16));
  const blockCalls = Number(arg('block') ?? 150);

  const bench = await openBenchApp(CALL_COST_DATABASE);
  const { database, key } = bench;
  const channelId = ircChannelId(size);
  if ((await channelSize(database, channelId)) < size) {
    console.log(`bench:call-ab: seed ${int(size)} lines with bench:call-cost --size ${size} first`);
    await bench.close();
    return;
  }
  const backends = await backendCpu(database);
  const session = await seedBenchSession(bench, {
    sessionKey: `bench-call-ab-${size}-${turns}-${Date.now().toString(36)}`,
    channelId,
    turns,
  });
  // Both sides draw new anchors from the same top-level lines (bench:call-cost's), interleaved.
  const anchors = ircAnchors(size);
  const perSide = warmup + blocks * (blockCalls + CALL_LEAD_IN);
  if (perSide * 2 > anchors.length) throw new Error('too few anchors for these blocks');
  const anchorsOf = (side: number) => Array.from({ length: perSide }, (_, k) => anchors[2 * k + side]!);

  console.log(`bench:call-ab; ${machineLine()}`);
  console.log(
    `  A: ${process.cwd()}, B: ${resolve(other)}; ${int(size)} messages, ${turns}-turn session; warm-up ${warmup} calls each, then ${blocks} blocks of ${blockCalls} per side`,
  );
  const sides = [
    await startSide('A', process.cwd(), { key, session, channelId, anchors: anchorsOf(0), warmup }),
    await startSide('B', other, { key, session, channelId, anchors: anchorsOf(1), warmup }),
  ];
  const sums = sides.map(() => ({ calls: 0, nodeMs: 0, pgMs: 0, times: [] as number[] }));
  const perBlock = sides.map(() => [] as number[]);
  for (let b = 0; b < blocks; b += 1) {
    // A B B A B A A B …: each pair of blocks swaps who goes first, and so does each pair of pairs.
    const first = (b + (b >> 1)) % 2;
    for (const s of [first, 1 - first]) {
      await sides[s]!.block(CALL_LEAD_IN, 0);
      const pg = await backends.start();
      const got = await sides[s]!.block(0, blockCalls);
      const pgMs = await pg.stop();
      sums[s]!.calls += got.times.length;
      sums[s]!.nodeMs += got.nodeMs;
      sums[s]!.pgMs += pgMs;
      sums[s]!.times.push(...got.times);
      perBlock[s]!.push((got.nodeMs + pgMs) / got.times.length);
    }
  }
  for (const side of sides) side.close();

  const cpu = sums.map((s) => (s.nodeMs + s.pgMs) / s.calls);
  const pairRatios = perBlock[1]!.map((b, i) => b / perBlock[0]![i]!).sort((x, y) => x - y);
  printTable(
    `Context call, A against B (${int(size)} messages, ${turns} turns; ${machineLine()})`,
    sides.map((side, i) => ({
      build: side.label,
      calls: sums[i]!.calls,
      'node ms': ms(sums[i]!.nodeMs / sums[i]!.calls),
      'pg ms': ms(sums[i]!.pgMs / sums[i]!.calls),
      'CPU ms': ms(cpu[i]!),
      'CPU × A': (cpu[i]! / cpu[0]!).toFixed(3),
      'p50 ms': ms(summarize(sums[i]!.times).p50),
    })),
  );
  const at = (q: number) => pairRatios[Math.min(pairRatios.length - 1, Math.floor(q * pairRatios.length))]!;
  console.log(
    `  B/A CPU by block pair: median ${at(0.5).toFixed(3)}, quartiles ${at(0.25).toFixed(3)}–${at(0.75).toFixed(3)}, range ${pairRatios[0]!.toFixed(3)}–${pairRatios.at(-1)!.toFixed(3)}`,
  );
  await bench.close();
}

/** One side: its build's app on its own pool, warmed up, then blocks of calls on request. */
async function abWorker(job: Job): Promise<void> {
  const app = await openWorkerApp(CALL_COST_DATABASE);
  const lines = readIrcLines()!;
  let next = 0;
  const call = async () => {
    const payload = ircContextBody(lines, job.channelId, job.anchors[next++]!);
    const response = await app.inject({
      method: 'POST',
      url: `/v1/sessions/${job.session}/context`,
      headers: { authorization: `Bearer ${job.key}` },
      payload,
    });
    if (response.statusCode !== 200) throw new Error(`context call: ${response.statusCode} ${response.body}`);
  };
  for (let i = 0; i < job.warmup; i += 1) await call();
  process.on('message', (m: { leadIn: number; n: number }) => {
    void (async () => {
      for (let i = 0; i < m.leadIn; i += 1) await call();
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < m.n; i += 1) {
        const t0 = performance.now();
        await call();
        times.push(performance.now() - t0);
      }
      const usage = process.cpuUsage(cpu0);
      process.send!({ nodeMs: (usage.user + usage.system) / 1000, times } satisfies Reply);
    })().catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
  // A worker lives as long as its parent: when the parent exits (the other side failed, a ^C),
  // the IPC channel closes, and a worker left behind would hold its pool's connections.
  process.once('disconnect', () => process.exit(0));
  process.send!({ ready: true } satisfies Reply);
  await new Promise(() => {});
}

const workerArg = process.argv.indexOf('--ab-worker');
(workerArg >= 0 ? abWorker(JSON.parse(process.argv[workerArg + 1]!) as Job) : main()).catch(
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
