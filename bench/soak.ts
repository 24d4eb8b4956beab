// Soak: memory under steady load. Starts the app in this process on loopback (127.0.0.1, an
// ephemeral port), drives a realistic mix at a fixed rate over real HTTP, and every sample
// interval runs a full GC and records heap and RSS. Prints one row per sample and the growth
// after warm-up (the target: RSS within 10% after warm-up, over an hour).
//
//   npm run bench:soak -- --minutes 10 --rps 20          (PGlite in a temporary DATA_DIR)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:soak -- --minutes 60
//       (database contextd_bench_soak; --reset starts it empty)
//   options: --warmup-minutes W (default min(3, minutes/3)), --sample-seconds S (default 30),
//   --database NAME (default contextd_bench_soak; two runs side by side need two databases)
//
// The mix, per step: 45% channel events (1–5 per batch, 12 channels, replies, threads, reactions,
// edits), and 55% a bot turn: a context call on one of the live sessions (varied message text,
// system text, model names — known families, dated ids and free text — and budgets, so
// compaction runs) followed by the assistant's turn with usage. New sessions keep arriving (a
// new conversation every 40 turns), so per-session state is exercised too. The load generator
// shares the process: its own memory is in the numbers (small and steady: no response is kept).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { localDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { openBenchDatabase } from './lib/channel-fixture.js';
import { arg, machineLine, ms, printTable, rng, summarize } from './lib/measure.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:soak does)');
  process.exit(2);
}

const minutes = Number(arg('minutes') ?? 10);
const rps = Number(arg('rps') ?? 20);
const sampleSeconds = Number(arg('sample-seconds') ?? 30);
const warmupMinutes = Number(arg('warmup-minutes') ?? Math.min(3, minutes / 3));
const MAX_IN_FLIGHT = 64;
const MB = 2 ** 20;

const WORDS = (
  'deploy rollout staging migration failed logs database orders table retry queue latency ' +
  'customer invoice refund escalate weekend oncall dashboard alert threshold cache warm cold ' +
  'release candidate freeze branch hotfix review approve merge revert incident postmortem ' +
  '日本語 テスト 部署 数据库 迁移 🚀 ✅ café naïve façade'
).split(' ');
const MODELS = [
  'claude-sonnet-5-5',
  'claude-haiku-5-5',
  'claude-opus-5-5',
  'claude-sonnet-4-5-20250929',
  'us.anthropic.claude-haiku-4-5-20251001-v1:0',
  'gpt-4o-mini',
];

async function openSoakDatabase(): Promise<{ database: Database; url?: string; cleanup: () => void }> {
  if (process.env.DATABASE_URL) {
    const name = arg('database') ?? 'contextd_bench_soak';
    // The job queue (pg-boss) lives in the same database as the app's tables, as in production.
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return { database: await openBenchDatabase(name), url: url.toString(), cleanup: () => {} };
  }
  // On disk, not memory://: an in-memory database would grow with the data and hide our heap.
  const dir = mkdtempSync(join(tmpdir(), 'contextd-soak-'));
  const database = await openDatabase({ dataDir: dir });
  await runMigrations(database);
  return { database, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const { database, url, cleanup } = await openSoakDatabase();
  const config = parseConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000000',
    COMPACTION_WORKERS: '1',
    ...(url ? { DATABASE_URL: url } : {}),
  });
  const deps = localDeps(config, database);
  const app = await buildApp(deps, { logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const tenantId = `soak_${Date.now().toString(36)}`;
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId });
  await app.services.tenants.addApiKey({ tenantId, key, name: 'soak' });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const random = rng(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const sentence = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(random() * (max - min)) }, () => pick(WORDS)).join(' ');

  let failures = 0;
  let lastFailure = '';
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${address}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) {
      failures += 1;
      lastFailure = `${method} ${path} → ${response.status} ${text.slice(0, 200)}`;
      return null;
    }
    return JSON.parse(text) as unknown;
  };

  // Channel events.
  const channels = Array.from({ length: 12 }, (_, i) => `C${i}`);
  const posted: Record<string, string[]> = {};
  let eventSeq = 0;
  const channelEvent = () => {
    eventSeq += 1;
    const channel_id = pick(channels);
    const list = (posted[channel_id] ??= []);
    const ts = new Date(Date.UTC(2026, 0, 1) + eventSeq * 1000).toISOString();
    const earlier = () => list[Math.floor(random() * list.length)]!;
    const r = random();
    if (list.length > 5 && r < 0.12) {
      return {
        type: 'reaction.added',
        platform: 'slack',
        channel_id,
        message_id: earlier(),
        ts,
        reaction: pick(['eyes', 'tada']),
        user_id: `U${Math.floor(random() * 30)}`,
      };
    }
    if (list.length > 5 && r < 0.18) {
      return {
        type: 'message.edited',
        platform: 'slack',
        channel_id,
        message_id: earlier(),
        ts,
        text: sentence(4, 20),
      };
    }
    const message_id = `m${eventSeq}`;
    const placement =
      list.length > 5 && random() < 0.3
        ? random() < 0.5
          ? { reply_to_id: earlier() }
          : { thread_id: earlier() }
        : {};
    list.push(message_id);
    if (list.length > 500) list.shift();
    return {
      type: 'message.created',
      platform: 'slack',
      channel_id,
      message_id,
      ts,
      author: { id: `U${eventSeq % 30}`, name: `user${eventSeq % 30}` },
      text: sentence(5, 40),
      ...placement,
    };
  };
  const ingest = () =>
    call('POST', '/v1/events', {
      events: Array.from({ length: 1 + Math.floor(random() * 5) }, channelEvent),
    });

  // Sessions: a pool of live conversations, one replaced every 40 bot turns.
  let conversationSeq = 0;
  const newSession = async () => {
    conversationSeq += 1;
    const reply = (await call('POST', '/v1/sessions', {
      agent_id: `agent${conversationSeq % 5}`,
      platform: 'slack',
      chat_type: 'channel',
      channel_id: `${pick(channels)}-${conversationSeq}`,
    })) as { session: { id: string } } | null;
    return reply?.session.id ?? null;
  };
  const pool: (string | null)[] = await Promise.all(Array.from({ length: 8 }, newSession));
  const busy = new Set<string>();
  let botTurns = 0;
  const botTurn = async () => {
    const slot = Math.floor(random() * pool.length);
    const id = pool[slot];
    if (!id || busy.has(id)) return ingest();
    busy.add(id);
    try {
      botTurns += 1;
      const model = random() < 0.15 ? `custom-finetune-${botTurns}` : pick(MODELS);
      const total = pick([8_000, 16_000, 50_000, 200_000]);
      await call('POST', `/v1/sessions/${id}/context`, {
        message: {
          content: `${sentence(5, 60)} #${botTurns}`,
          author: { id: `U${botTurns % 30}`, name: 'asker' },
        },
        model,
        budget: { total, max_output_tokens: 1_024 },
        system: [
          { name: 'policy', text: `You are the release bot. ${sentence(20, 80)}` },
          { name: 'today', text: `Today is day ${botTurns % 97}.`, cacheable: false },
        ],
      });
      await call('POST', `/v1/sessions/${id}/turns`, {
        turns: [
          {
            role: 'assistant',
            content: sentence(10, 120),
            model,
            usage: {
              input_tokens: 500 + Math.floor(random() * 5_000),
              output_tokens: 50,
              cache_read_input_tokens: Math.floor(random() * 2_000),
            },
          },
        ],
      });
    } finally {
      busy.delete(id);
    }
    if (botTurns % 40 === 0) pool[slot] = await newSession();
  };

  // Steady rate, open loop: one step every 1000/rps ms, at most MAX_IN_FLIGHT at once.
  let inFlight = 0;
  let skipped = 0;
  let steps = 0;
  let latencies: number[] = [];
  const step = () => {
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped += 1;
      return;
    }
    inFlight += 1;
    steps += 1;
    const started = performance.now();
    (random() < 0.45 ? ingest() : botTurn())
      .catch((error: unknown) => {
        failures += 1;
        lastFailure = String(error);
      })
      .finally(() => {
        inFlight -= 1;
        latencies.push(performance.now() - started);
      });
  };

  interface Sample {
    minute: number;
    heapMb: number;
    heapTotalMb: number;
    rssMb: number;
    externalMb: number;
  }
  const samples: Sample[] = [];
  const rows: Record<string, string | number>[] = [];
  const t0 = performance.now();
  const sample = () => {
    gc!();
    gc!();
    const memory = process.memoryUsage();
    const minute = (performance.now() - t0) / 60_000;
    const s = {
      minute,
      heapMb: memory.heapUsed / MB,
      heapTotalMb: memory.heapTotal / MB,
      rssMb: memory.rss / MB,
      externalMb: memory.external / MB,
    };
    samples.push(s);
    const l = summarize(latencies);
    latencies = [];
    rows.push({
      min: minute.toFixed(1),
      steps,
      failures,
      'heap MB': s.heapMb.toFixed(1),
      'V8 committed MB': s.heapTotalMb.toFixed(1),
      'RSS MB': s.rssMb.toFixed(1),
      'external MB': s.externalMb.toFixed(1),
      'step p50 ms': ms(l.p50),
      'step p99 ms': ms(l.p99),
    });
    console.log(`sample ${JSON.stringify(rows.at(-1))}`);
  };

  console.log(
    `soak: ${minutes} min at ${rps} steps/s on ${address} (${database.kind}), samples every ${sampleSeconds} s, warm-up ${warmupMinutes.toFixed(1)} min`,
  );
  sample();
  const ticker = setInterval(step, 1000 / rps);
  const sampler = setInterval(sample, sampleSeconds * 1000);
  await new Promise((resolve) => setTimeout(resolve, minutes * 60_000));
  clearInterval(ticker);
  clearInterval(sampler);
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  sample();

  printTable(`Soak (${database.kind}, ${rps} steps/s, ${minutes} min)`, rows);
  const steady = samples.filter((s) => s.minute >= warmupMinutes);
  if (steady.length >= 2) {
    const first = steady[0]!;
    const last = steady.at(-1)!;
    const growth = (from: number, to: number) =>
      `${(to - from).toFixed(1)} MB (${(((to - from) / from) * 100).toFixed(1)}%)`;
    // One sample against another moves by tens of MB (allocator pages kept and returned), so the
    // level is also compared as medians of the first and last fifth of the steady samples, and
    // the trend as a least-squares slope over all of them.
    const fifth = Math.max(1, Math.floor(steady.length / 5));
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    const early = median(steady.slice(0, fifth).map((x) => x.rssMb));
    const late = median(steady.slice(-fifth).map((x) => x.rssMb));
    const meanMinute = steady.reduce((a, x) => a + x.minute, 0) / steady.length;
    const meanRss = steady.reduce((a, x) => a + x.rssMb, 0) / steady.length;
    const slopePerMinute =
      steady.reduce((a, x) => a + (x.minute - meanMinute) * (x.rssMb - meanRss), 0) /
      Math.max(
        steady.reduce((a, x) => a + (x.minute - meanMinute) ** 2, 0),
        1e-9,
      );
    console.log(
      `\nafter warm-up (${first.minute.toFixed(1)} → ${last.minute.toFixed(1)} min): heap ${growth(first.heapMb, last.heapMb)}, ` +
        `RSS first→last ${growth(first.rssMb, last.rssMb)}; RSS median of the first and last ${fifth} samples ` +
        `${growth(early, late)}; RSS range ${Math.min(...steady.map((x) => x.rssMb)).toFixed(1)}–` +
        `${Math.max(...steady.map((x) => x.rssMb)).toFixed(1)} MB; RSS least-squares slope ` +
        `${(slopePerMinute * 60).toFixed(1)} MB/h (${((slopePerMinute * 60 * 100) / meanRss).toFixed(1)}% of the mean per hour)`,
    );
  }
  console.log(
    `steps ${steps}, skipped (over ${MAX_IN_FLIGHT} in flight) ${skipped}, failures ${failures}${lastFailure ? ` (last: ${lastFailure})` : ''}`,
  );
  console.log(`conversations ${conversationSeq}, bot turns ${botTurns}, channel events ${eventSeq}`);
  console.log(machineLine());
  await app.close();
  await deps.locks.close();
  await database.close();
  cleanup();
}

await main();
