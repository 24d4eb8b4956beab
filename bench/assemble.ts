// Assembly benchmark (issue 6): POST /v1/sessions/{id}/context latency (p50/p99, sequential) and
// throughput at concurrency 32, with a channel of 10k and 1M stored messages, a session of 50
// turns, snapshot + thread + memories on — beside the machine's floors measured in the same run
// (Fastify returning a constant; Fastify with one indexed Postgres read). Then cache-prefix reuse
// over a long session: the share of each payload that repeats the previous payload's prefix.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:assemble
//   npm run bench:assemble -- --sizes 10000          (embedded PGlite)
//
// Requests go through app.inject (no sockets), like the floors. Dry runs, so state does not grow.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { LightMyRequestResponse } from 'fastify';
import {
  BENCH_PLATFORM,
  BENCH_TENANT,
  benchMessageId,
  channelSize,
  seedChannel,
  vacuumAnalyze,
} from './lib/channel-fixture.js';
import { openBenchApp } from './lib/bench-app.js';
import { QUESTIONS } from './lib/questions.js';
import { arg, int, latency, latencyRow, ms, printTable, throughput } from './lib/measure.js';

const SEED_CHUNK = 50_000;
const CONCURRENCY = 32;
const POLICY =
  'You are the team assistant for this workspace. Answer from the provided context; say when you do not know. '.repeat(
    12,
  );

const stripCache = (value: unknown) =>
  JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v));

async function main(): Promise<void> {
  const onServer = Boolean(process.env.DATABASE_URL);
  const sizes = (arg('sizes') ?? (onServer ? '10000,1000000' : '10000')).split(',').map(Number);
  if (!onServer && sizes.some((s) => s > 100_000)) {
    console.log('bench:assemble: more than 100,000 messages needs a real Postgres (set DATABASE_URL)');
    return;
  }
  const runs = Number(arg('runs') ?? 300);
  const total = Number(arg('total') ?? 2000);
  const longTurns = Number(arg('long-turns') ?? 200);

  const bench = await openBenchApp('contextd_bench_assemble');
  const { database, floor, inject } = bench;

  console.log(`bench:assemble on ${onServer ? 'PostgreSQL' : 'embedded PGlite'}; sizes ${sizes.join(', ')}`);
  // Memories: 300 tenant-scope facts, some about the topics the question names.
  for (let i = 0; i < 300; i += 1) {
    await inject('POST', '/v1/memories', {
      scope: 'tenant',
      type: 'fact',
      text: `fact ${i}: the ${['rollout', 'migration', 'billing', 'dashboard'][i % 4]} owner for team ${i % 17} is user${i % 50}`,
    });
  }

  const latencyRows: Record<string, string | number>[] = [];
  const throughputRows: Record<string, string | number>[] = [];
  const json: Record<string, unknown> = { concurrency: CONCURRENCY, sizes: {} };
  const runId = Date.now().toString(36);

  for (const size of sizes) {
    const channelId = `assemble${size}`;
    const have = await channelSize(database, channelId);
    for (let from = have; from < size; from += SEED_CHUNK) {
      await seedChannel(database, channelId, from, Math.min(size, from + SEED_CHUNK));
      console.log(`  seeded ${int(Math.min(size, from + SEED_CHUNK))} / ${int(size)} messages`);
    }
    // The 300 memories above are new on every run, the channel only when it was just seeded.
    await vacuumAnalyze(database, have < size ? ['channel_messages', 'memories'] : ['memories']);
    // The anchor: a thread reply near the end (every 10th message is a root with three replies).
    const rootIndex = Math.floor((size - 20) / 10) * 10;
    const root = benchMessageId(rootIndex);
    const anchor = benchMessageId(rootIndex + 2);
    const lane = `thread:${channelId}:${root}`;
    const session = (
      await inject('POST', '/v1/sessions', {
        session_key: `bench-assemble-${size}-${runId}`,
        agent_id: 'bench',
        platform: BENCH_PLATFORM,
        chat_type: 'channel',
        channel_id: channelId,
      })
    ).json().session.id as string;
    const turns = Array.from({ length: 50 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `${i % 2 === 0 ? 'question' : 'answer'} ${i} about the rollout and the database migration plan for the release`,
      lane_key: lane,
    }));
    await inject('POST', `/v1/sessions/${session}/turns`, { turns });
    // A different question on every call (retrieval and the retrieved block change); the anchor
    // stays (snapshot and thread repeat, as on consecutive turns about one message).
    const bodyFor = (i: number, anchorId = anchor) => ({
      message: {
        content: QUESTIONS[i % QUESTIONS.length]!,
        source: { platform: BENCH_PLATFORM, channel_id: channelId, message_id: anchorId },
      },
      system: [{ name: 'policy', text: POLICY }],
      dry_run: true,
    });
    const sample = (await inject('POST', `/v1/sessions/${session}/context`, bodyFor(0))).json();
    const call = (i: number) => inject('POST', `/v1/sessions/${session}/context`, bodyFor(i));
    // Worst case for the pure part: a new anchor each call (another thread's reply), so the
    // snapshot and thread blocks are new text to count.
    const anchorAt = (i: number) => {
      const r = (Math.floor((size - 20) / 10) - 1 - ((i * 7919) % Math.floor(size / 10 - 2))) * 10;
      return benchMessageId(Math.max(0, r) + 1 + (i % 3));
    };
    const callNewAnchor = (i: number) =>
      inject('POST', `/v1/sessions/${session}/context`, bodyFor(i, anchorAt(i)));
    const readFloor = () =>
      floor.inject({ method: 'GET', url: `/read/${BENCH_TENANT}/${BENCH_PLATFORM}/${channelId}/${anchor}` });
    const constFloor = () => floor.inject({ method: 'GET', url: '/constant' });

    console.log(`  ${int(size)} messages: measuring latency (${runs} sequential calls each)…`);
    const cpuLine = async (what: string, fn: (i: number) => Promise<unknown>) => {
      // Inputs far from the latency runs' (and their warm-ups'), so these calls warm none of them.
      const { statements: perCall, ...cpu } = await cpuPerCall(
        runs,
        (i) => fn(i + 1_000_000),
        bench.statementCount,
      );
      console.log(
        `  CPU per call (sequential, ${what}): node ${cpu.node.toFixed(2)} ms, postgres ${cpu.postgres === null ? 'n/a (server not local)' : `${cpu.postgres.toFixed(2)} ms`}, wall ${cpu.wall.toFixed(2)} ms; ${onServer ? `${perCall.toFixed(1)} statements` : 'statements not counted (embedded)'}`,
      );
      return { cpu, perCall };
    };
    const { cpu, perCall } = await cpuLine('same anchor', call);
    const cpuNewAnchor = (await cpuLine('a new anchor each call', callNewAnchor)).cpu;
    // The statements of one assembly as plain indexed reads: what the machine allows for that many
    // round trips before any assembly work.
    const readsPerCall = Math.max(1, Math.round(perCall));
    const readsFloor = () =>
      floor.inject({
        method: 'GET',
        url: `/reads/${readsPerCall}/${BENCH_TENANT}/${BENCH_PLATFORM}/${channelId}/${anchor}`,
      });
    const lat = {
      assemble: await latency(runs, call),
      assembleNewAnchor: await latency(runs, callNewAnchor),
      read: await latency(runs, readFloor),
      constant: await latency(runs, constFloor),
    };
    console.log(`  measuring throughput (${total} calls at concurrency ${CONCURRENCY})…`);
    const thr = {
      assemble: await throughput(total, CONCURRENCY, call),
      read: await throughput(total, CONCURRENCY, readFloor),
      ...(onServer
        ? {
            [`${readsPerCall} reads (one assembly's statements)`]: await throughput(
              total,
              CONCURRENCY,
              readsFloor,
            ),
          }
        : {}),
      constant: await throughput(total, CONCURRENCY, constFloor),
    };
    const label = `${int(size)} msgs`;
    latencyRows.push(
      latencyRow('assemble (POST /context)', lat.assemble, { messages: label }),
      latencyRow('assemble, a new anchor each call', lat.assembleNewAnchor, { messages: label }),
      latencyRow('floor: one indexed read', lat.read, { messages: label }),
      latencyRow('floor: constant', lat.constant, { messages: label }),
    );
    for (const [what, r] of Object.entries(thr)) {
      throughputRows.push({
        what,
        messages: label,
        'calls/s': int(r.perSecond),
        'p50 ms': ms(r.latency.p50),
        'p99 ms': ms(r.latency.p99),
      });
    }
    (json.sizes as Record<string, unknown>)[size] = {
      payload_tokens: sample.budget.used,
      components: sample.budget.components,
      context: {
        snapshot: sample.context.snapshot,
        thread: sample.context.thread,
        retrieved: sample.context.retrieved.length,
      },
      latency_ms: lat,
      cpu_per_call_ms: cpu,
      cpu_per_call_new_anchor_ms: cpuNewAnchor,
      ...(onServer ? { statements_per_call: perCall } : {}),
      throughput: Object.fromEntries(
        Object.entries(thr).map(([k, v]) => [k, { per_second: v.perSecond, latency_ms: v.latency }]),
      ),
    };
    // Printed as soon as measured: a 1M run can be long.
    printTable(`Assemble latency at ${label} (sequential, app.inject)`, latencyRows.slice(-4));
    printTable(
      `Assemble throughput at ${label} (concurrency ${CONCURRENCY}, ${total} calls)`,
      throughputRows.slice(-Object.keys(thr).length),
    );
    console.log(
      `${label}: payload ${int(sample.budget.used)} tokens (snapshot ${sample.context.snapshot}, thread ${sample.context.thread}, ${sample.context.retrieved.length} retrieved)`,
    );
  }

  if (longTurns > 0) json.cache_prefix_reuse = await cachePrefixReuse(inject, longTurns, runId);
  const out = arg('json');
  if (out) writeFileSync(out, JSON.stringify(json, null, 2));
  await bench.close();
}

/** CPU seconds of every local `postgres` process (Linux /proc), in ms; null when there are none. */
function postgresCpuMs(): number | null {
  let ticks = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (!stat.includes('(postgres)')) continue;
    found = true;
    // Fields after "(comm) ": state is 0, utime 11, stime 12 (clock ticks, 100 a second).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return found ? ticks * 10 : null;
}

/** Node and PostgreSQL CPU per sequential call (after 20 warm-up calls), beside the wall time. */
/** CPU, wall time and statements (`statementCount` before and after) per call, warm-up excluded. */
async function cpuPerCall(runs: number, fn: (i: number) => Promise<unknown>, statementCount: () => number) {
  for (let i = 0; i < 20; i += 1) await fn(runs + i);
  const statements0 = statementCount();
  const node0 = process.cpuUsage();
  const pg0 = postgresCpuMs();
  const t0 = performance.now();
  for (let i = 0; i < runs; i += 1) await fn(i);
  const wall = (performance.now() - t0) / runs;
  const node = process.cpuUsage(node0);
  const pg1 = postgresCpuMs();
  return {
    statements: (statementCount() - statements0) / runs,
    wall,
    node: (node.user + node.system) / 1000 / runs,
    postgres: pg0 === null || pg1 === null ? null : (pg1 - pg0) / runs,
  };
}

/** Cache-prefix reuse over a long session (non-dry-run, an assistant reply after each turn). */
async function cachePrefixReuse(
  inject: (method: 'GET' | 'POST', url: string, payload?: unknown) => Promise<LightMyRequestResponse>,
  longTurns: number,
  runId: string,
) {
  console.log(`cache-prefix reuse over ${longTurns} turns…`);
  const longSession = (
    await inject('POST', '/v1/sessions', { session_key: `bench-assemble-long-${runId}` })
  ).json().session.id as string;
  let previous: string | null = null;
  const shares: number[] = [];
  for (let turn = 0; turn < longTurns; turn += 1) {
    const payload: { tools: unknown; system: unknown; messages: unknown } = (
      await inject('POST', `/v1/sessions/${longSession}/context`, {
        message: { content: `turn ${turn}: what about step ${turn} of the rollout plan?` },
        system: [{ name: 'policy', text: POLICY }],
        include: { memories: false },
      })
    ).json().payload;
    const bytes = stripCache({ tools: payload.tools, system: payload.system, messages: payload.messages });
    if (previous !== null) {
      let common = 0;
      const limit = Math.min(previous.length, bytes.length);
      while (common < limit && previous.charCodeAt(common) === bytes.charCodeAt(common)) common += 1;
      // Share of the previous payload (minus its closing brackets) that the new one repeats.
      shares.push(Math.min(1, common / (previous.length - 4)));
    }
    previous = bytes;
    await inject('POST', `/v1/sessions/${longSession}/turns`, {
      turns: [{ role: 'assistant', content: `step ${turn} is scheduled; the owner confirmed it.` }],
    });
  }
  const sorted = [...shares].sort((a, b) => a - b);
  const reuse = {
    turns: longTurns,
    mean: shares.reduce((a, b) => a + b, 0) / Math.max(1, shares.length),
    min: sorted[0] ?? NaN,
  };
  printTable('Cache-prefix reuse (previous payload repeated byte for byte, cache_control aside)', [
    {
      turns: reuse.turns,
      'mean reuse': `${(reuse.mean * 100).toFixed(2)}%`,
      'min reuse': `${(reuse.min * 100).toFixed(2)}%`,
    },
  ]);
  return reuse;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
