// Overload on one instance: a burst of concurrent context calls (one per session, each appending
// its turn) against the service in a process of its own, over real HTTP, with `/healthz` polled
// during the burst. Each limit of MAX_WORK_IN_FLIGHT runs in a fresh server process beside the
// baseline of the same run: no limit (0), every call admitted.
//
//   npm run bench:overload
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:overload -- --burst 200 --limits 0,16,8
//
// Per limit: how many calls were admitted and refused, the latency of the refusals (503
// `overloaded`) and of the admitted calls (p99 also as a multiple of a lone call's p50, measured
// on the same server before the burst), `/healthz` latency during the burst, and the server's RSS
// before the burst and its peak during it (sampled every 20 ms over IPC), and the server's
// event-loop delay during the burst: the wait every request has before the service sees it, so the
// floor under the latency of a refusal.
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
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
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId: TENANT });
  await app.services.tenants.addApiKey({ tenantId: TENANT, key, name: `bench ${limit}` });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  process.on('message', (m) => {
    if (m === 'rss') process.send!({ rss: process.memoryUsage().rss });
    if (m === 'lag-reset') {
      lag.reset();
      process.send!({});
    }
    if (m === 'lag') process.send!({ p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 });
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
  close(): void;
}

async function startServer(limit: number): Promise<Server> {
  const child = fork(import.meta.filename, ['--serve', String(limit)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
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
    one.destroy();
    // The burst's connections are opened first (as a client's keep-alive pool would have them), so
    // the burst measures requests, not TCP handshakes.
    const many = new Agent({ keepAlive: true, maxSockets: burst });
    await Promise.all(Array.from({ length: burst }, () => send(server, many, 'GET', '/healthz')));
    const rssBefore = await server.rss();
    await server.resetLag();
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
    return {
      MAX_WORK_IN_FLIGHT: limit === 0 ? '0 (no limit: baseline)' : String(limit),
      admitted: admitted.length,
      refused: refused.length,
      'refused p50 ms': ms(refusedLatency.p50),
      'refused max ms': ms(refusedLatency.max),
      'lone p50 ms': ms(loneP50),
      'admitted p50 ms': ms(admittedLatency.p50),
      'admitted p99 ms': ms(admittedLatency.p99),
      'p99 / lone': (admittedLatency.p99 / loneP50).toFixed(1),
      'loop delay p99 / max ms': `${ms(lag.p99)} / ${ms(lag.max)}`,
      '/healthz p50 ms': ms(healthLatency.p50),
      '/healthz max ms': ms(healthLatency.max),
      'RSS MB before': (rssBefore / 2 ** 20).toFixed(0),
      'RSS MB peak': (rssPeak / 2 ** 20).toFixed(0),
      'RSS growth': `${(((rssPeak - rssBefore) / rssBefore) * 100).toFixed(0)}%`,
    };
  } finally {
    server.close();
  }
}

async function main() {
  if (process.argv.includes('--serve')) return serve(Number(arg('serve')));
  const burst = Number(arg('burst') ?? 200);
  const limits = (arg('limits') ?? '0,16').split(',').map(Number);
  const rows = [];
  for (const limit of limits) rows.push(await measure(limit, burst));
  printTable(
    `${burst} concurrent context calls on one instance (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
    rows,
  );
  console.log(`\n${machineLine()}`);
}

await main();
