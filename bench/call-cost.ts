// Cost of one context call as users run it: a channel of real IRC traffic (bench/lib/irc-channel.ts:
// a line a second, threads of ten, ≥ 100k lines), a new anchor every call and the channel's next
// line as the question, over real HTTP to the service in a process of its own, beside the floor:
// three sequential indexed reads through Fastify and bare postgres.js (prepared), in another
// process, over the same HTTP. The same three reads through drizzle and the project's client
// wrapper are measured beside it, labelled (what the call's own statements go through). And the
// call's own database work as the floor process does it: the statements (text and parameters) one
// call sent, captured from the app's client wrapper, sent again through bare postgres.js (prepared,
// generic plans where the call's were), then its reply of the same bytes serialised by Fastify — a
// different anchor's statements each time, as each call asks about a new anchor. The call against
// that replay is what its JavaScript layers cost above its own database work.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:call-cost
//   DATABASE_URL=… npm run bench:call-cost -- --size 100000 --turns 50,1000 --runs 3
//
// CPU per call: the server process's own (process.cpuUsage, reported over IPC; the HTTP client's is
// not counted) plus the CPU of this database's PostgreSQL backends (/proc, so the server must run on
// this machine). Each run measures, per session length, `--rounds` blocks of `--block` calls, each
// block of the call right after a block four times as long of each floor (interleaved, so the drift of a
// shared machine falls on both alike); ratios are to the floor of the same run. Statements per call
// are counted by the server's client wrapper. Latency p50/p99 at concurrency 1 (the measured blocks)
// and at concurrency 8 (`--concurrent` calls). The seeded database (contextd_bench_call_cost) is kept
// between runs; `--reset` drops it.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { queryRows, type StatementListener } from '../src/db/client.js';
import { backendCpu } from './lib/backend-cpu.js';
import { openBenchApp, openWorkerApp, seedBenchSession } from './lib/bench-app.js';
import { BENCH_PLATFORM, BENCH_TENANT, openBenchDatabase } from './lib/channel-fixture.js';
import {
  CALL_COST_DATABASE,
  IRC_DATA,
  ircAnchors,
  ircContextBody,
  ircMessageId,
  readIrcLines,
  seedIrcChannel,
} from './lib/irc-channel.js';
import { arg, int, machineLine, ms, printTable, summarize, type Latency } from './lib/measure.js';

const LEAD_IN = 20;
const CONCURRENCY = 8;
/** A floor's block, in context-call blocks. */
const FLOOR_BLOCKS = 4;

/** What a served process reports: its CPU and statements so far. */
interface Mark {
  cpuMs: number;
  statements: number;
}

/** One statement a call sent, as its client wrapper saw it. */
interface SentStatement {
  query: string;
  params: unknown[];
  plans: 'generic' | 'default';
}

/** One captured call: its statements in the order sent, and its reply's body. */
interface Replay {
  statements: SentStatement[];
  reply: string;
}

/** Messages to a served process (each answered by one message). */
type Command =
  | { kind: 'mark' }
  | { kind: 'exit' }
  | { kind: 'capture'; on: boolean }
  | { kind: 'replay'; index: number; replay: Replay };

interface Served {
  port: number;
  mark(): Promise<Mark>;
  /** The app's statements from now until `captured()` (the app's process). */
  capture(): Promise<void>;
  captured(): Promise<SentStatement[]>;
  /** Hands the floor process a captured call to serve at `/replay/{index}`. */
  load(index: number, replay: Replay): Promise<void>;
  close(): Promise<void>;
}

/** Starts `--serve KIND` in a process of its own; resolves once it listens. */
async function serve(kind: 'app' | 'floor', databaseUrl: string): Promise<Served> {
  // BENCH_CPU_PROF=DIR: the app's process writes a V8 CPU profile there when the run ends.
  const profile = kind === 'app' && process.env.BENCH_CPU_PROF;
  const child: ChildProcess = fork(
    import.meta.filename,
    ['--serve', kind, '--database', CALL_COST_DATABASE],
    {
      execArgv: ['--import', 'tsx', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: databaseUrl },
    },
  );
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${kind} process exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as T);
      });
    });
  const { port } = await next<{ port: number }>();
  const ask = <T>(command: Command) => {
    const reply = next<T>();
    child.send(command);
    return reply;
  };
  return {
    port,
    mark: () => ask<Mark>({ kind: 'mark' }),
    capture: () => ask<void>({ kind: 'capture', on: true }),
    captured: () => ask<SentStatement[]>({ kind: 'capture', on: false }),
    load: (index, replay) => ask<void>({ kind: 'replay', index, replay }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ kind: 'exit' } satisfies Command);
      }),
  };
}

/** drizzle's type parsers and serializers (postgres-js/driver.js), so captured parameters mean what they meant. */
function asDrizzleDoes(client: postgres.Sql): postgres.Sql {
  const same = (value: unknown) => value;
  const { parsers, serializers } = client.options as unknown as Record<string, Record<string, unknown>>;
  for (const type of ['1184', '1082', '1083', '1114', '1182', '1185', '1115', '1231']) {
    parsers![type] = same;
    serializers![type] = same;
  }
  serializers!['114'] = same;
  serializers!['3802'] = same;
  return client;
}

/** The served process: the app (or the floor app) listening on a free port, reporting marks. */
async function served(kind: 'app' | 'floor'): Promise<void> {
  let statements = 0;
  let capturing: SentStatement[] | null = null;
  const onStatement: StatementListener = (query, params, plans) => {
    statements += 1;
    capturing?.push({ query, params: [...(params ?? [])], plans });
  };
  const replays: { statements: SentStatement[]; reply: unknown }[] = [];
  const cpu0 = process.cpuUsage();
  let app;
  if (kind === 'app') {
    app = await openWorkerApp(CALL_COST_DATABASE, { onStatement });
  } else {
    // Three reads through bare postgres.js (the floor), and through drizzle and the client wrapper.
    const database = await openBenchDatabase(CALL_COST_DATABASE, { onStatement });
    const target = new URL(process.env.DATABASE_URL!);
    target.pathname = `/${CALL_COST_DATABASE}`;
    const bare = postgres(target.toString(), { max: 4, onnotice: () => {} });
    app = Fastify({ logger: false });
    type Params = { channel: string; id: string };
    app.get<{ Params: Params }>('/bare/:channel/:id', async (req) => {
      let row: unknown = null;
      for (let i = 0; i < 3; i += 1) {
        statements += 1;
        [row] = await bare`select message_id, text from channel_messages where tenant_id = ${BENCH_TENANT}
          and platform = ${BENCH_PLATFORM} and channel_id = ${req.params.channel} and message_id = ${req.params.id}`;
      }
      return row;
    });
    app.get<{ Params: Params }>('/wrapped/:channel/:id', async (req) => {
      let row: unknown = null;
      for (let i = 0; i < 3; i += 1)
        [row] = await queryRows(
          database.db,
          sql`select message_id, text from channel_messages where tenant_id = ${BENCH_TENANT}
            and platform = ${BENCH_PLATFORM} and channel_id = ${req.params.channel} and message_id = ${req.params.id}`,
        );
      return row;
    });
    // A captured call again: its statements through bare postgres.js, prepared, each on the plans
    // the call's went to (Database.genericPlanDb's connections force generic ones), then its reply.
    const plans = {
      default: asDrizzleDoes(bare),
      generic: asDrizzleDoes(
        postgres(target.toString(), {
          max: 4,
          onnotice: () => {},
          connection: { plan_cache_mode: 'force_generic_plan' },
        }),
      ),
    };
    app.get<{ Params: { index: number } }>('/replay/:index', async (req) => {
      const replay = replays[Number(req.params.index)]!;
      for (const s of replay.statements) {
        statements += 1;
        await plans[s.plans].unsafe(s.query, s.params as never[], { prepare: true });
      }
      return replay.reply;
    });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('message', (m: Command) => {
    // A clean exit, so --cpu-prof writes its profile.
    if (m.kind === 'exit') process.exit(0);
    if (m.kind === 'capture') {
      if (m.on) capturing = [];
      process.send!(m.on ? null : capturing);
      if (!m.on) capturing = null;
      return;
    }
    if (m.kind === 'replay') {
      // Parsed here, unmeasured: the call's reply is an object too when it is serialised.
      replays[m.index] = { statements: m.replay.statements, reply: JSON.parse(m.replay.reply) as unknown };
      process.send!(null);
      return;
    }
    const usage = process.cpuUsage(cpu0);
    process.send!({ cpuMs: (usage.user + usage.system) / 1000, statements } satisfies Mark);
  });
  // Served as long as the parent lives (its IPC channel closes when it exits, whatever the cause).
  process.once('disconnect', () => process.exit(0));
  process.send!({ port: (app.server.address() as AddressInfo).port });
  await new Promise(() => {});
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One HTTP request; anything but 200 throws. Resolves with the reply's body. */
function call(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: payload ? { ...headers, 'content-type': 'application/json' } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface Sums {
  calls: number;
  nodeMs: number;
  pgMs: number;
  statements: number;
  times: number[];
}
const noSums = (): Sums => ({ calls: 0, nodeMs: 0, pgMs: 0, statements: 0, times: [] });
const cpuOf = (s: Sums) => (s.nodeMs + s.pgMs) / s.calls;

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('bench:call-cost: needs DATABASE_URL (PostgreSQL on this machine: its CPU is read in /proc)');
    return;
  }
  const lines = readIrcLines();
  if (!lines) {
    console.log(`bench:call-cost: skipped, the Ubuntu IRC excerpts are not at ${IRC_DATA}`);
    return;
  }
  const size = Number(arg('size') ?? 100_000);
  const turnCounts = (arg('turns') ?? '50,1000').split(',').map(Number);
  const runs = Math.max(1, Number(arg('runs') ?? 3));
  const rounds = Math.max(1, Number(arg('rounds') ?? 4));
  const block = Number(arg('block') ?? 100);
  const warmup = Number(arg('warmup') ?? 1000);
  const concurrent = Number(arg('concurrent') ?? 400);

  const bench = await openBenchApp(CALL_COST_DATABASE);
  const t0 = performance.now();
  const channelId = await seedIrcChannel(bench.database, lines, size, console.log);
  console.log(`bench:call-cost on PostgreSQL; ${machineLine()}`);
  console.log(
    `  ${int(size)} IRC lines in ${channelId} (ready in ${((performance.now() - t0) / 1000).toFixed(1)} s); ` +
      `sessions of ${turnCounts.join(', ')} turns; ${runs} runs of ${rounds} × ${block} calls beside each floor`,
  );
  const [{ n: memoryCount } = { n: 0 }] = await queryRows<{ n: number }>(
    bench.database.db,
    sql`select count(*)::int as n from memories where tenant_id = ${BENCH_TENANT}`,
  );
  for (let i = Number(memoryCount); i < 300; i += 1) {
    await bench.inject('POST', '/v1/memories', {
      scope: 'tenant',
      type: 'fact',
      text: `fact ${i}: ${lines[(i * 37) % lines.length]!.text}`,
    });
  }
  const sessions = new Map<number, string>();
  const runId = Date.now().toString(36);
  for (const turns of turnCounts)
    sessions.set(
      turns,
      await seedBenchSession(bench, { sessionKey: `bench-call-cost-${turns}-${runId}`, channelId, turns }),
    );
  const key = bench.key;
  await bench.close();

  const backends = await backendCpu(await openBenchDatabase(CALL_COST_DATABASE));
  const [server, floor] = [await serve('app', url), await serve('floor', url)];
  const auth = { authorization: `Bearer ${key}` };
  const anchors = ircAnchors(size);
  let nextAnchor = 0;
  const anchor = () => {
    if (nextAnchor >= anchors.length) throw new Error(`more calls than the ${anchors.length} anchors`);
    return anchors[nextAnchor++]!;
  };
  const probe = ircMessageId(anchors[0]!);
  /** What a block calls: `run` makes one request and resolves with its reply's body. */
  type Target = { served: Served; run: () => Promise<string> };
  const floors: Record<'bare' | 'wrapped', Target> = {
    bare: { served: floor, run: () => call(floor.port, 'GET', `/bare/${channelId}/${probe}`, {}) },
    wrapped: { served: floor, run: () => call(floor.port, 'GET', `/wrapped/${channelId}/${probe}`, {}) },
  };
  const contextCall = (session: string): Target => ({
    served: server,
    run: () =>
      call(
        server.port,
        'POST',
        `/v1/sessions/${session}/context`,
        auth,
        ircContextBody(lines, channelId, anchor()),
      ),
  });

  /**
   * Each session's replays: `calls` calls about new anchors, their statements captured from the app
   * and handed to the floor process (unmeasured); the replay target runs them in order, from the
   * first again after the last (the warm-up and concurrency phases go round them).
   */
  let replayCount = 0;
  async function captureReplays(session: string, calls: number): Promise<Target & { bytes: number }> {
    const first = replayCount;
    let bytes = 0;
    for (let i = 0; i < calls; i += 1) {
      await server.capture();
      const reply = await contextCall(session).run();
      const statements = await server.captured();
      bytes += reply.length;
      await floor.load(replayCount++, { statements, reply });
    }
    let next = 0;
    return {
      served: floor,
      run: () => call(floor.port, 'GET', `/replay/${first + (next++ % calls)}`, {}),
      bytes: bytes / calls,
    };
  }

  /** `n` calls one after another, what they used added to `sums` (after LEAD_IN unmeasured ones). */
  async function measureBlock(target: Target, n: number, sums: Sums): Promise<void> {
    for (let i = 0; i < LEAD_IN; i += 1) await target.run();
    const mark0 = await target.served.mark();
    const pg = await backends.start();
    for (let i = 0; i < n; i += 1) {
      const t = performance.now();
      await target.run();
      sums.times.push(performance.now() - t);
    }
    const pgMs = await pg.stop();
    const mark1 = await target.served.mark();
    sums.calls += n;
    sums.nodeMs += mark1.cpuMs - mark0.cpuMs;
    sums.pgMs += pgMs;
    sums.statements += mark1.statements - mark0.statements;
  }

  async function concurrentLatency(target: Target, n: number): Promise<Latency> {
    const times: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < n) {
          const t = performance.now();
          await target.run();
          times.push(performance.now() - t);
        }
      }),
    );
    return summarize(times);
  }

  console.log('  warming up…');
  for (let i = 0; i < warmup; i += 1) await floors.bare.run();
  for (let i = 0; i < warmup; i += 1) await floors.wrapped.run();
  for (const session of sessions.values()) {
    const target = contextCall(session);
    for (let i = 0; i < warmup / sessions.size; i += 1) await target.run();
  }
  // Captured after the warm-up, so the replays are of warm calls (no first reads of an API key).
  console.log('  capturing the statements of the calls to replay…');
  const replays = new Map<number, Target & { bytes: number }>();
  for (const [turns, session] of sessions) {
    const replay = await captureReplays(session, runs * rounds * (LEAD_IN + block));
    for (let i = 0; i < warmup / sessions.size; i += 1) await replay.run();
    replays.set(turns, replay);
    console.log(`  ${turns} turns: replies of ${int(replay.bytes)} bytes on average`);
  }

  type Result = { call: Sums; bare: Sums; wrapped: Sums; replay: Sums };
  const results = new Map<number, Result[]>();
  for (let r = 0; r < runs; r += 1) {
    for (const [turns, session] of sessions) {
      const result: Result = { call: noSums(), bare: noSums(), wrapped: noSums(), replay: noSums() };
      for (let b = 0; b < rounds; b += 1) {
        // The floors' blocks are longer: PostgreSQL's CPU is read in 10 ms ticks, and a floor call
        // uses ~0.2 ms of it.
        await measureBlock(floors.bare, FLOOR_BLOCKS * block, result.bare);
        await measureBlock(floors.wrapped, FLOOR_BLOCKS * block, result.wrapped);
        await measureBlock(contextCall(session), block, result.call);
        await measureBlock(replays.get(turns)!, block, result.replay);
      }
      results.set(turns, [...(results.get(turns) ?? []), result]);
      console.log(
        `  run ${r + 1}, ${turns} turns: call ${ms(cpuOf(result.call))} ms CPU, bare floor ${ms(cpuOf(result.bare))} ms: ` +
          `${(cpuOf(result.call) / cpuOf(result.bare)).toFixed(2)}×; replay ${ms(cpuOf(result.replay))} ms: ` +
          `${(cpuOf(result.call) / cpuOf(result.replay)).toFixed(2)}×`,
      );
    }
  }
  console.log(`  concurrency ${CONCURRENCY}…`);
  const atEight = new Map<string, Latency>();
  atEight.set('bare', await concurrentLatency(floors.bare, concurrent));
  atEight.set('wrapped', await concurrentLatency(floors.wrapped, concurrent));
  for (const [turns, session] of sessions) {
    atEight.set(`call${turns}`, await concurrentLatency(contextCall(session), concurrent));
    atEight.set(`replay${turns}`, await concurrentLatency(replays.get(turns)!, concurrent));
  }
  await Promise.all([server.close(), floor.close()]);

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const total = (list: Sums[]): Sums =>
    list.reduce(
      (s, x) => ({
        calls: s.calls + x.calls,
        nodeMs: s.nodeMs + x.nodeMs,
        pgMs: s.pgMs + x.pgMs,
        statements: s.statements + x.statements,
        times: [...s.times, ...x.times],
      }),
      noSums(),
    );
  const all = [...results.values()].flat();
  const bareAll = total(all.map((x) => x.bare));
  const row = (
    what: string,
    s: Sums,
    ratios: number[] | null,
    c8: Latency,
    toReplay: number[] | null = null,
  ) => {
    const c1 = summarize(s.times);
    return {
      what,
      'stmts/call': (s.statements / s.calls).toFixed(1),
      'node ms': ms(s.nodeMs / s.calls),
      'pg ms': ms(s.pgMs / s.calls),
      'CPU ms': ms(cpuOf(s)),
      'pg share': `${Math.round((100 * s.pgMs) / (s.nodeMs + s.pgMs))}%`,
      '× bare floor (median of runs)': ratios
        ? median(ratios).toFixed(2)
        : (cpuOf(s) / cpuOf(bareAll)).toFixed(2),
      'runs ×': ratios ? ratios.map((x) => x.toFixed(2)).join(' ') : '–',
      '× replay (median of runs)': toReplay ? median(toReplay).toFixed(2) : '–',
      'p50 ms c1': ms(c1.p50),
      'p99 ms c1': ms(c1.p99),
      'p50 ms c8': ms(c8.p50),
      'p99 ms c8': ms(c8.p99),
    };
  };
  const rows = [
    row('floor: 3 indexed reads, bare postgres.js', bareAll, null, atEight.get('bare')!),
    row(
      'floor: 3 indexed reads, drizzle + client wrapper',
      total(all.map((x) => x.wrapped)),
      null,
      atEight.get('wrapped')!,
    ),
  ];
  for (const [turns, list] of results)
    rows.push(
      row(
        `replay, ${turns} turns: the call's own statements, raw through bare postgres.js, + the reply serialised`,
        total(list.map((x) => x.replay)),
        list.map((x) => cpuOf(x.replay) / cpuOf(x.bare)),
        atEight.get(`replay${turns}`)!,
      ),
      row(
        `context call, ${turns} turns, new anchor`,
        total(list.map((x) => x.call)),
        list.map((x) => cpuOf(x.call) / cpuOf(x.bare)),
        atEight.get(`call${turns}`)!,
        list.map((x) => cpuOf(x.call) / cpuOf(x.replay)),
      ),
    );
  printTable(`Context call at ${int(size)} IRC lines, over HTTP (${machineLine()})`, rows);
  const [shortest, longest] = [results.get(50), results.get(Math.max(...turnCounts))];
  if (shortest && longest && longest !== shortest)
    console.log(
      `  ${Math.max(...turnCounts)}-turn call / 50-turn call, CPU (median of runs): ` +
        median(longest.map((x, i) => cpuOf(x.call) / cpuOf(shortest[i]!.call))).toFixed(2),
    );
  process.exit(0);
}

const serveArg = process.argv.indexOf('--serve');
(serveArg >= 0 ? served(process.argv[serveArg + 1] as 'app' | 'floor') : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
