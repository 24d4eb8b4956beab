// Ingest throughput (issue 3) through the HTTP layer with app.inject (no sockets: it measures
// Fastify routing, validation, the service and the database, not the kernel's TCP stack):
// batches of 100 normalized events, and single events at concurrency 32, beside the floors of
// the same run (Fastify returning a constant; Fastify with one indexed Postgres read).
//
//   npm run bench:ingest                          (PGlite in memory)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:ingest
//       (database contextd_bench_ingest; each run uses a fresh tenant)
//   … -- --batches 200 --singles 5000
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { localDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { queryRows } from '../src/db/client.js';
import { openBenchDatabase } from './lib/channel-fixture.js';
import { arg, floorApp, int, machineLine, ms, printTable, rng, throughput } from './lib/measure.js';

/** A realistic mix: 75% new messages (some replies and thread replies), 15% reactions, 7% edits, 3% deletes. */
function eventStream(seed: number) {
  const random = rng(seed);
  const channels = Array.from({ length: 10 }, (_, i) => `C${i}`);
  const seen: Record<string, string[]> = {};
  const words =
    'deploy the rollout plan for staging tonight database migration failed again please check logs 🚀 日本語 ok'.split(
      ' ',
    );
  let n = 0;
  let clock = Date.UTC(2026, 0, 1);
  return () => {
    n += 1;
    clock += 1000;
    const channel_id = channels[Math.floor(random() * channels.length)]!;
    const list = (seen[channel_id] ??= []);
    const ts = new Date(clock).toISOString();
    const r = random();
    const earlier = () => list[Math.floor(random() * list.length)]!;
    if (list.length > 5 && r < 0.15) {
      return {
        type: 'reaction.added',
        platform: 'slack',
        channel_id,
        message_id: earlier(),
        ts,
        reaction: random() < 0.5 ? 'eyes' : 'tada',
        user_id: `U${Math.floor(random() * 40)}`,
      };
    }
    if (list.length > 5 && r < 0.22) {
      return {
        type: 'message.edited',
        platform: 'slack',
        channel_id,
        message_id: earlier(),
        ts,
        text: `edited ${n}`,
      };
    }
    if (list.length > 5 && r < 0.25) {
      return { type: 'message.deleted', platform: 'slack', channel_id, message_id: earlier(), ts };
    }
    const id = `m${seed}_${n}`;
    list.push(id);
    const text = Array.from(
      { length: 5 + Math.floor(random() * 30) },
      () => words[Math.floor(random() * words.length)],
    ).join(' ');
    const placement =
      list.length > 5 && random() < 0.3
        ? random() < 0.5
          ? { reply_to_id: earlier() }
          : { thread_id: earlier() }
        : {};
    return {
      type: 'message.created',
      platform: 'slack',
      channel_id,
      message_id: id,
      ts,
      author: { id: `U${n % 40}`, name: `user${n % 40}` },
      text,
      ...placement,
    };
  };
}

async function main(): Promise<void> {
  const batches = Number(arg('batches') ?? 100);
  const singles = Number(arg('singles') ?? 3000);
  const database = await openBenchDatabase('contextd_bench_ingest');
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000000',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  });
  const deps = localDeps(config, database);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const tenantId = `bench_${randomBytes(4).toString('hex')}`;
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId });
  await app.services.tenants.addApiKey({ tenantId, key, name: 'bench' });
  const headers = { authorization: `Bearer ${key}` };
  const post = async (events: unknown[]) => {
    const response = await app.inject({ method: 'POST', url: '/v1/events', headers, payload: { events } });
    if (response.statusCode !== 200)
      throw new Error(`ingest failed: ${response.statusCode} ${response.body}`);
  };
  const floor = await floorApp(database.db);
  const storedMessages = async () =>
    (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from channel_messages`))[0]
      ?.n ?? 0;
  const storedBefore = await storedMessages();
  console.log(`backend: ${database.kind}; transport: app.inject (in-process HTTP, no sockets)`);

  const rows: Record<string, string | number>[] = [];
  const constant = await throughput(5000, 32, () => floor.inject({ url: '/constant' }));
  rows.push({
    what: 'floor: Fastify constant',
    concurrency: 32,
    'requests/s': int(constant.perSecond),
    'events/s': '–',
    'p50 ms': ms(constant.latency.p50),
    'p99 ms': ms(constant.latency.p99),
  });
  const read = await throughput(3000, 32, (i) => floor.inject({ url: `/read/${tenantId}/slack/C0/m${i}` }));
  rows.push({
    what: 'floor: Fastify + 1 indexed PG read',
    concurrency: 32,
    'requests/s': int(read.perSecond),
    'events/s': '–',
    'p50 ms': ms(read.latency.p50),
    'p99 ms': ms(read.latency.p99),
  });

  for (const concurrency of [1, 2, 4]) {
    const next = eventStream(concurrency);
    const payloads = Array.from({ length: batches }, () => Array.from({ length: 100 }, next));
    await post(
      payloads[0]!.map((e) => ({ ...e, message_id: `warm_${(e as { message_id: string }).message_id}` })),
    );
    // Steady state: each run's tenant is new, and until the table is analyzed the planner thinks
    // it has no rows (primary-key loads then hash-join a scan of the tenant). A running service
    // has autovacuum's statistics; a benchmark that just created its tenant has to ask for them.
    await database.db.execute(sql`analyze channel_messages`);
    const result = await throughput(batches, concurrency, (i) => post(payloads[i]!));
    rows.push({
      what: 'POST /v1/events, batches of 100',
      concurrency,
      'requests/s': int(result.perSecond),
      'events/s': int(result.perSecond * 100),
      'p50 ms': ms(result.latency.p50),
      'p99 ms': ms(result.latency.p99),
    });
  }
  const next = eventStream(99);
  const events = Array.from({ length: singles }, next);
  const single = await throughput(singles, 32, (i) => post([events[i]]));
  rows.push({
    what: 'POST /v1/events, single events',
    concurrency: 32,
    'requests/s': int(single.perSecond),
    'events/s': int(single.perSecond),
    'p50 ms': ms(single.latency.p50),
    'p99 ms': ms(single.latency.p99),
  });
  printTable(`Ingest (${database.kind})`, rows);
  console.log(
    `\nchannel_messages rows: ${int(storedBefore)} before this run, ${int(await storedMessages())} after (--reset starts empty)`,
  );
  console.log(`\n${machineLine()}`);
  await floor.close();
  await app.close();
  await deps.locks.close();
  await database.close();
}

await main();
