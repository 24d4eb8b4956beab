// Backfill cost against the fake Slack Web API (test/helpers/fake-slack.ts, real HTTP on
// 127.0.0.1). 1. A 10,000-message channel backfilled in full pages: calls made against the least
// the API allows (ceil(n / page)), time waited on the shared limiter, and beside it the floor of
// the same run: the same pages fetched straight from the fake, no limiter, no ingest.
// 2. With REDIS_URL: three replicas (three buildApp on one database, one Redis) read cold threads
// of one workspace as fast as they can; the fake records each call's time and the table gives the
// most calls inside any 60 s against PLATFORM_RATE_LIMIT_PER_MINUTE (40).
//
//   npm run bench:backfill [-- --messages 10000 --seconds 75]
//   DATABASE_URL=postgres://… REDIS_URL=redis://… npm run bench:backfill
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { closeDeps, connectRedis, createDeps, createLocks, waitForRedis, type AppDeps } from '../src/deps.js';
import { createMetrics } from '../src/http/metrics.js';
import { createPlatformRateLimiter } from '../src/coord/platform-rate-limiter.js';
import { rateLimitGate } from '../src/platforms/api/rate-limit-gate.js';
import type { PlatformCallGate } from '../src/platforms/api/platform-call.js';
import { minimumCalls, SLACK_HISTORY_MAX_LIMIT } from '../src/platforms/history.js';
import { startFakeSlack, type FakeSlack } from '../test/helpers/fake-slack.js';
import { arg, machineLine, printTable } from './lib/measure.js';

const MESSAGES = Number(arg('messages') ?? 10_000);
const SECONDS = Number(arg('seconds') ?? 75);
const LIMIT = 40;
const BASE_S = 1_767_261_600;

/** The gate, timed: how long calls waited for a slot. */
function timedGate(gate: PlatformCallGate) {
  const stats = { waitedMs: 0, refused: 0 };
  const timed: PlatformCallGate = {
    async acquire(key) {
      const started = performance.now();
      try {
        await gate.acquire(key);
      } catch (error) {
        stats.refused += 1;
        throw error;
      } finally {
        stats.waitedMs += performance.now() - started;
      }
    },
    onRateLimited: (key, ms) => gate.onRateLimited?.(key, ms),
  };
  return { gate: timed, stats };
}

function envFor(slack: FakeSlack, overflow: 'queue' | 'degrade') {
  return parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    COMPACTION_WORKERS: '0',
    DATA_DIR: 'memory://',
    SLACK_API_URL: slack.apiUrl,
    PLATFORM_FETCH_ALLOW: '127.0.0.1',
    PLATFORM_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    PLATFORM_RATE_OVERFLOW: overflow,
    PLATFORM_RATE_QUEUE_MAX_MS: '120000',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
}

/** One replica: its own Redis client and limiter (shared through Redis under `prefix`). */
async function replica(base: AppDeps, prefix: string, overflow: 'queue' | 'degrade') {
  const redis = base.config.REDIS_URL ? connectRedis(base.config.REDIS_URL) : null;
  redis?.on('error', () => {});
  if (redis) await waitForRedis(redis);
  const limiter = createPlatformRateLimiter({
    redis,
    prefix,
    limit: LIMIT,
    overflow,
    queueMaxMs: 120_000,
  });
  const timed = timedGate(rateLimitGate(limiter));
  const metrics = createMetrics();
  const deps: AppDeps = {
    ...base,
    redis,
    metrics,
    locks: createLocks(base.database, redis, metrics, prefix),
    redisPrefix: prefix,
    platformGate: timed.gate,
  };
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    app,
    stats: timed.stats,
    close: async () => {
      await app.close();
      await deps.locks.close();
      redis?.disconnect();
    },
  };
}

async function tenantWithToken(app: FastifyInstance, slack: FakeSlack) {
  const tenantId = `bench_${randomUUID().slice(0, 8)}`;
  await app.services.tenants.ensureTenant({ tenantId });
  await app.services.platformCredentials.put({
    tenantId,
    platform: 'slack',
    botToken: slack.token,
    workspaceId: slack.teamId,
  });
  return tenantId;
}

/** The floor: the same pages straight from the fake (HTTP and JSON only). */
async function fetchOnly(
  slack: FakeSlack,
  channel: string,
  page: number,
): Promise<{ ms: number; calls: number }> {
  const started = performance.now();
  let cursor = '';
  let calls = 0;
  do {
    const response = await fetch(`${slack.apiUrl}/conversations.history`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${slack.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ channel, limit: String(page), ...(cursor ? { cursor } : {}) }).toString(),
    });
    const body = (await response.json()) as { response_metadata?: { next_cursor?: string } };
    cursor = body.response_metadata?.next_cursor ?? '';
    calls += 1;
  } while (cursor);
  return { ms: performance.now() - started, calls };
}

async function fullChannelRun(base: AppDeps, slack: FakeSlack) {
  slack.channels.set(
    'CBENCH',
    Array.from({ length: MESSAGES }, (_, i) => ({
      ts: `${BASE_S + i}.000100`,
      user: `U${i % 40}`,
      text: `message ${i}: the rollout of build ${i % 97} is ${i % 3 === 0 ? 'green' : 'blocked on review'}`,
    })),
  );
  const rows: Record<string, string | number>[] = [];
  for (const page of [SLACK_HISTORY_MAX_LIMIT, 200]) {
    const r = await replica(base, `contextd-bench:${randomUUID()}:`, 'queue');
    const tenantId = await tenantWithToken(r.app, slack);
    const before = slack.requests.length;
    const started = performance.now();
    const report = await r.app.services.backfill.history(
      { tenantId, platform: 'slack', channelId: 'CBENCH' },
      { maxMessages: MESSAGES * 2, pageSize: page },
    );
    const totalMs = performance.now() - started;
    const made = slack.requests.length - before;
    const stored = await r.app.services.channels.listMessages({
      tenantId,
      platform: 'slack',
      channelId: 'CBENCH',
      limit: 1,
    });
    const floor = await fetchOnly(slack, 'CBENCH', page);
    rows.push({
      page,
      messages: report.messages,
      'calls made': made,
      'minimum ceil(n/page)': minimumCalls(MESSAGES, page, 'slack'),
      complete: String(report.complete),
      'limiter wait s': (r.stats.waitedMs / 1000).toFixed(1),
      'total s': (totalMs / 1000).toFixed(1),
      'floor: fetch only s': (floor.ms / 1000).toFixed(2),
      'ingest+http s': ((totalMs - r.stats.waitedMs) / 1000).toFixed(1),
      stored: stored.messages.length > 0 ? 'yes' : 'no',
    });
    await r.close();
  }
  printTable(`Backfill of a ${MESSAGES}-message Slack channel (limit ${LIMIT}/min, queue)`, rows);
}

function maxInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while (sorted[end]! - sorted[start]! >= windowMs) start += 1;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

async function replicasRun(base: AppDeps, slack: FakeSlack, shared: boolean) {
  const threads = 2_000;
  const channel = `CTHREADS${shared ? 'S' : 'U'}`;
  const messages = [];
  for (let i = 0; i < threads; i += 1) {
    messages.push({ ts: `${BASE_S + i * 10}.000100`, user: 'U1', text: `root ${i}` });
    messages.push({
      ts: `${BASE_S + i * 10 + 1}.000100`,
      user: 'U2',
      text: `reply ${i}`,
      thread_ts: `${BASE_S + i * 10}.000100`,
    });
  }
  slack.channels.set(channel, messages);
  const prefix = `contextd-bench:${randomUUID()}:`;
  const replicas = [];
  for (let i = 0; i < 3; i += 1)
    replicas.push(await replica(base, shared ? prefix : `${prefix}${i}:`, 'queue'));
  const tenantId = await tenantWithToken(replicas[0]!.app, slack);
  const apiKey = `k_${randomUUID()}`;
  await replicas[0]!.app.services.tenants.addApiKey({ tenantId, key: apiKey, name: 'bench' });
  const headers = { authorization: `Bearer ${apiKey}` };
  const from = slack.requests.length;
  const until = Date.now() + SECONDS * 1000;
  let next = 0;
  let reads = 0;
  let stale = 0;
  await Promise.all(
    replicas.flatMap((r) =>
      [0, 1, 2, 3].map(async () => {
        while (Date.now() < until && next < threads) {
          const i = next++;
          const response = await r.app.inject({
            method: 'GET',
            url: `/v1/channels/slack/${channel}/threads/${BASE_S + i * 10}.000100`,
            headers,
          });
          reads += 1;
          if ((response.json() as { notes?: string[] }).notes) stale += 1;
        }
      }),
    ),
  );
  const times = slack.requests.slice(from).map((r) => r.at);
  const spanS = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0;
  for (const r of replicas) await r.close();
  return {
    limiter: shared ? 'shared (Redis)' : 'one per replica',
    'run s': SECONDS,
    'thread reads': reads,
    'stale notes': stale,
    'platform calls': times.length,
    'max in any 60 s': maxInAnyWindow(times, 60_000),
    limit: LIMIT,
    'calls/min sustained': spanS > 0 ? ((times.length / spanS) * 60).toFixed(1) : '-',
  };
}

async function main() {
  console.log(machineLine());
  const slack = await startFakeSlack();
  const base = await createDeps(envFor(slack, 'queue'));
  try {
    await fullChannelRun(base, slack);
    if (!base.config.REDIS_URL) {
      console.log('REDIS_URL is not set: the three-replica run needs a shared Redis; skipped.');
      return;
    }
    const rows = [await replicasRun(base, slack, true)];
    if (process.argv.includes('--unshared')) rows.push(await replicasRun(base, slack, false));
    printTable('Three replicas reading cold threads of one workspace (fake records call times)', rows);
  } finally {
    await closeDeps(base);
    await slack.close();
  }
}

await main();
