// Overload on one instance: a burst of concurrent context calls (one per session, each appending
// its turn) against the service in a process of its own, over real HTTP, with `/healthz` polled
// during the burst. Each limit of MAX_WORK_IN_FLIGHT runs in a fresh server process beside the
// baseline of the same run: no limit (0), every call admitted.
//
//   npm run bench:overload
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:overload -- --burst 200 --limits 0,8,2
//   … -- --profile   # also the server's CPU during the burst: per call, and its top functions
//
// Per limit: how many calls were admitted and refused, the latency of the refusals (503
// `overloaded`) and of the admitted calls (p99 also as a multiple of a lone call's p50, measured
// on the same server before the burst), `/healthz` latency during the burst, and the server's RSS
// before the burst and its peak during it (sampled every 20 ms over IPC), and the server's
// event-loop delay during the burst: the wait every request has before the service sees it, so the
// floor under the latency of a refusal.
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { localDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { BENCH_RATE_LIMIT } from './lib/bench-app.js';
import { openBenchDatabase } from './lib/channel-fixture.js';
import { arg, machineLine, ms, printTable, summarize } from './lib/measure.js';

const DATABASE = 'contextd_bench_overload';
const TENANT = 'bench_overload';
const HISTORY_TURNS = 20;
const LONE_CALLS = 20;
/** The targets of issue 31 for a burst on one instance. */
const TARGETS = { refusedMs: 100, p99OverLone: 4, healthMs: 100, rssGrowth: 0.5 };

/** Self time (ms) of a CPU profile's functions, the largest first. */
function topFunctions(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}): { fn: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url
      ? `${frame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  return [...self].map(([fn, ms]) => ({ fn, ms })).sort((a, b) => b.ms - a.ms);
}

let profiler: Session | null = null;
let cpuAt = process.cpuUsage();
async function cpuStart(): Promise<void> {
  if (process.argv.includes('--profile')) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.post('Profiler.start');
  }
  cpuAt = process.cpuUsage();
}
async function cpuStop(): Promise<{ cpuMs: number; top: { fn: string; ms: number }[] }> {
  const used = process.cpuUsage(cpuAt);
  let top: { fn: string; ms: number }[] = [];
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    profiler = null;
    top = topFunctions(profile).slice(0, 15);
  }
  return { cpuMs: (used.user + used.system) / 1000, top };
}

/** The server: the app with `limit`, listening; answers 'rss' with its resident set size. */
async function serve(limit: number): Promise<void> {
  const database = await openBenchDatabase(DATABASE);
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT),
    MAX_WORK_IN_FLIGHT: String(limit),
  });
  const app = await buildApp(localDeps(config, database), { logger: false });
  // In the server: from Fastify's start of the request (its headers parsed) to the reply sent, per
  // context call, so the client's own share (writing 200 requests, reading 200 replies on the same
  // cores) is apart from the service's.
  const inServer: { status: number; ms: number }[] = [];
  app.addHook('onResponse', async (request, reply) => {
    if (request.url.endsWith('/context')) inServer.push({ status: reply.statusCode, ms: reply.elapsedTime });
  });
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId: TENANT });
  await app.services.tenants.addApiKey({ tenantId: TENANT, key, name: `bench ${limit}` });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  process.on('message', (m) => {
    if (m === 'rss') process.send!({ rss: process.memoryUsage.rss() });
    if (m === 'in-server') process.send!({ replies: inServer.splice(0) });
    if (m === 'lag-reset') {
      lag.reset();
      process.send!({});
    }
    if (m === 'lag') process.send!({ p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 });
    if (m === 'cpu-start') void cpuStart().then(() => process.send!({}));
    if (m === 'cpu-stop') void cpuStop().then((report) => process.send!(report));
  });
  process.send!({ port: Number(new URL(address).port), key });
}

interface Server {
  port: number;
  key: string;
  rss(): Promise<number>;
  /** Event-loop delay of the server since `resetLag` (ms): what every request waits for first. */
  lag(): Promise<{ p99: number; max: number }>;
  resetLag(): Promise<void>;
  /** Context calls answered since the last call, as timed in the server. */
  inServer(): Promise<{ status: number; ms: number }[]>;
  /** The server's CPU (and with --profile its top functions) from `cpuStart` to `cpuStop`. */
  cpuStart(): Promise<void>;
  cpuStop(): Promise<{ cpuMs: number; top: { fn: string; ms: number }[] }>;
  close(): void;
}

async function startServer(limit: number): Promise<Server> {
  const child = fork(
    import.meta.filename,
    ['--serve', String(limit), ...(process.argv.includes('--profile') ? ['--profile'] : [])],
    {
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    },
  );
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`server exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as T);
      });
    });
  const { port, key } = await next<{ port: number; key: string }>();
  return {
    port,
    key,
    async rss() {
      const reply = next<{ rss: number }>();
      child.send('rss');
      return (await reply).rss;
    },
    async lag() {
      const reply = next<{ p99: number; max: number }>();
      child.send('lag');
      return reply;
    },
    async resetLag() {
      const reply = next<unknown>();
      child.send('lag-reset');
      await reply;
    },
    async inServer() {
      const reply = next<{ replies: { status: number; ms: number }[] }>();
      child.send('in-server');
      return (await reply).replies;
    },
    async cpuStart() {
      const reply = next<unknown>();
      child.send('cpu-start');
      await reply;
    },
    cpuStop() {
      const reply = next<{ cpuMs: number; top: { fn: string; ms: number }[] }>();
      child.send('cpu-stop');
      return reply;
    },
    close: () => child.kill(),
  };
}

/** One HTTP request: its status and how long it took (ms). */
function send(
  server: Server,
  agent: Agent,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${server.key}`,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Sessions with HISTORY_TURNS turns each, created one at a time (never shed). */
async function seedSessions(server: Server, count: number, run: string): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const created = await send(server, agent, 'POST', '/v1/sessions', {
      session_key: `overload:${run}:${i}`,
    });
    if (created.status >= 300) throw new Error(`create session: ${created.status} ${created.body}`);
    const id = (JSON.parse(created.body) as { session: { id: string } }).session.id;
    const turns = Array.from({ length: HISTORY_TURNS }, (_, k) => ({
      role: k % 2 === 0 ? 'user' : 'assistant',
      content: `${k % 2 === 0 ? 'question' : 'answer'} ${k} about the rollout of release ${i % 17} and its migration`,
    }));
    const appended = await send(server, agent, 'POST', `/v1/sessions/${id}/turns`, { turns });
    if (appended.status >= 300) throw new Error(`append: ${appended.status} ${appended.body}`);
    ids.push(id);
  }
  agent.destroy();
  return ids;
}

const contextBody = (i: number) => ({
  message: { content: `Is release ${i % 17} still on for Friday, call ${i}?` },
});

async function measure(limit: number, burst: number) {
  const server = await startServer(limit);
  try {
    const run = `${limit}-${Date.now()}`;
    const sessions = await seedSessions(server, burst + LONE_CALLS, run);
    const lone: number[] = [];
    const one = new Agent({ keepAlive: true, maxSockets: 1 });
    await server.cpuStart();
    for (let i = 0; i < LONE_CALLS; i += 1) {
      const reply = await send(
        server,
        one,
        'POST',
        `/v1/sessions/${sessions[burst + i]}/context`,
        contextBody(i),
      );
      if (reply.status !== 200) throw new Error(`lone call: ${reply.status} ${reply.body}`);
      lone.push(reply.ms);
    }
    const loneCpu = await server.cpuStop();
    one.destroy();
    // The burst's connections are opened first (as a client's keep-alive pool would have them), so
    // the burst measures requests, not TCP handshakes.
    const many = new Agent({ keepAlive: true, maxSockets: burst });
    await Promise.all(Array.from({ length: burst }, () => send(server, many, 'GET', '/healthz')));
    await server.inServer();
    const rssBefore = await server.rss();
    await server.resetLag();
    await server.cpuStart();
    let rssPeak = rssBefore;
    let bursting = true;
    const sampler = (async () => {
      while (bursting) {
        rssPeak = Math.max(rssPeak, await server.rss());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const health: number[] = [];
    const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const poller = (async () => {
      while (bursting) {
        health.push((await send(server, healthAgent, 'GET', '/healthz')).ms);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const replies = await Promise.all(
      sessions
        .slice(0, burst)
        .map((id, i) => send(server, many, 'POST', `/v1/sessions/${id}/context`, contextBody(i))),
    );
    bursting = false;
    const cpu = await server.cpuStop();
    const timed = await server.inServer();
    const serverRefused = summarize(timed.filter((r) => r.status === 503).map((r) => r.ms));
    const serverAdmitted = summarize(timed.filter((r) => r.status === 200).map((r) => r.ms));
    await Promise.all([sampler, poller]);
    const lag = await server.lag();
    many.destroy();
    healthAgent.destroy();
    const admitted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 503);
    const other = replies.filter((r) => r.status !== 200 && r.status !== 503);
    if (other.length > 0) throw new Error(`unexpected replies: ${other.map((r) => r.status).join(', ')}`);
    const loneP50 = summarize(lone).p50;
    const admittedLatency = summarize(admitted.map((r) => r.ms));
    const refusedLatency = summarize(refused.map((r) => r.ms));
    const healthLatency = summarize(health);
    const growth = (rssPeak - rssBefore) / rssBefore;
    const misses = [
      refused.length > 0 && refusedLatency.max >= TARGETS.refusedMs ? 'refusal' : null,
      admittedLatency.p99 / loneP50 > TARGETS.p99OverLone ? 'p99' : null,
      healthLatency.max >= TARGETS.healthMs ? '/healthz' : null,
      growth > TARGETS.rssGrowth ? 'RSS' : null,
    ].filter((m) => m !== null);
    const row = {
      MAX_WORK_IN_FLIGHT: limit === 0 ? '0 (no limit: baseline)' : String(limit),
      admitted: admitted.length,
      refused: refused.length,
      'refused p50 ms': ms(refusedLatency.p50),
      'refused max ms': ms(refusedLatency.max),
      'lone p50 ms': ms(loneP50),
      'admitted p50 ms': ms(admittedLatency.p50),
      'admitted p99 ms': ms(admittedLatency.p99),
      'p99 / lone': (admittedLatency.p99 / loneP50).toFixed(1),
      'in server: refused max / admitted p99 ms': `${refused.length > 0 ? ms(serverRefused.max) : '–'} / ${ms(serverAdmitted.p99)}`,
      'loop delay p99 / max ms': `${ms(lag.p99)} / ${ms(lag.max)}`,
      '/healthz p50 ms': ms(healthLatency.p50),
      '/healthz max ms': ms(healthLatency.max),
      'RSS MB before': (rssBefore / 2 ** 20).toFixed(0),
      'RSS MB peak': (rssPeak / 2 ** 20).toFixed(0),
      'RSS growth': `${(growth * 100).toFixed(0)}%`,
      'server CPU ms: lone call / burst': `${ms(loneCpu.cpuMs / LONE_CALLS)} / ${ms(cpu.cpuMs)}`,
      targets: misses.length === 0 ? 'met' : `missed: ${misses.join(', ')}`,
    };
    return { row, top: cpu.top };
  } finally {
    server.close();
  }
}

async function main() {
  if (process.argv.includes('--serve')) return serve(Number(arg('serve')));
  const burst = Number(arg('burst') ?? 200);
  const limits = (arg('limits') ?? '0,16').split(',').map(Number);
  const rows = [];
  const tops: [number, { fn: string; ms: number }[]][] = [];
  for (const limit of limits) {
    const { row, top } = await measure(limit, burst);
    rows.push(row);
    tops.push([limit, top]);
  }
  printTable(
    `${burst} concurrent context calls on one instance (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
    rows,
  );
  console.log(
    `\nTargets: the limited rows' refusals < ${TARGETS.refusedMs} ms (max), admitted p99 ≤ ${TARGETS.p99OverLone}× a lone call's p50, ` +
      `/healthz < ${TARGETS.healthMs} ms (max), RSS growth ≤ ${TARGETS.rssGrowth * 100}% (the baseline row shows what no limit gives).`,
  );
  for (const [limit, top] of tops) {
    if (top.length === 0) continue;
    printTable(
      `Server CPU during the burst, MAX_WORK_IN_FLIGHT ${limit}: top functions by self time`,
      top.map((t) => ({ function: t.fn, 'self ms': ms(t.ms) })),
    );
  }
  console.log(`\n${machineLine()}`);
}

await main();
