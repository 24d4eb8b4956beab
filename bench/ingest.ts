// Ingest through the HTTP layer with app.inject (no sockets: it measures Fastify routing,
// validation, the service and the database, not the kernel's TCP stack). First the cost of a
// batch of 100 events against its floor: the same number of rows as one multi-row INSERT through
// bare postgres.js into a table with channel_messages' columns and indexes (ingest_floor), CPU per
// event (this process + the database's backends), in interleaved blocks. Then throughput: batches
// of 100 at concurrency 1, 2 and 4, single events at concurrency 32, beside the floors of the same
// run (Fastify returning a constant; Fastify with one indexed Postgres read). The benchmark never
// runs ANALYZE on what ingest writes: a new table's statistics are the service's business.
//
// `--fixture irc --size 100000` measures issue 32's target instead: the dev Ubuntu IRC lines at
// their real text and nicks (../shared/data/ubuntu-irc/dev; skipped when absent), into a database
// (contextd_bench_ingest_irc, kept between runs) that already holds `--size` messages (the IRC
// channel of bench:call-cost, seeded once) and a floor table holding the same rows, both analyzed
// once after the bulk load, as an operator's load would be. Each run's events go to the seeded
// tenant in ten new channels; the same mix, texts and nicks taken from the lines in order.
//
//   npm run bench:ingest                          (PGlite in memory; no CPU comparison)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:ingest
//       (database contextd_bench_ingest; each run uses a fresh tenant; --reset starts empty)
//   … -- --fixture irc --size 100000              (see above; --reset reseeds)
//   … -- --database NAME                          (instead of the two names above)
//   … -- --batches 200 --singles 5000 --rounds 6 --block 10 --warmup 300   (unmeasured batches first)
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { backendCpu } from './lib/backend-cpu.js';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { localDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { queryRows } from '../src/db/client.js';
import { BENCH_TENANT, openBenchDatabase, vacuumAnalyze } from './lib/channel-fixture.js';
import { readIrcLines, seedIrcChannel, type IrcLine } from './lib/irc-channel.js';
import { arg, floorApp, int, machineLine, ms, printTable, rng, throughput } from './lib/measure.js';

/** What a run's events are made of: synthetic words, or the IRC lines in order (`--fixture irc`). */
interface StreamSource {
  lines: IrcLine[] | null;
  /** Prefix of the run's channel ids (new channels each run in the kept fixture database). */
  prefix: string;
}

/**
 * A realistic mix: 75% new messages (some replies and thread replies), 15% reactions, 7% edits,
 * 3% deletes. With IRC lines, a new message is the next line (its text and nick), an edit the
 * line after it.
 */
function eventStream(seed: number, source: StreamSource = { lines: null, prefix: '' }) {
  const random = rng(seed);
  const channels = Array.from({ length: 10 }, (_, i) => `${source.prefix}C${i}`);
  const seen: Record<string, string[]> = {};
  const words =
    'deploy the rollout plan for staging tonight database migration failed again please check logs 🚀 日本語 ok'.split(
      ' ',
    );
  const { lines } = source;
  let line = lines ? (seed * 7919) % lines.length : 0;
  const nextLine = () => lines![line++ % lines!.length]!;
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
        text: lines ? nextLine().text : `edited ${n}`,
      };
    }
    if (list.length > 5 && r < 0.25) {
      return { type: 'message.deleted', platform: 'slack', channel_id, message_id: earlier(), ts };
    }
    const id = `m${seed}_${n}`;
    list.push(id);
    const irc = lines ? nextLine() : null;
    const text =
      irc?.text ??
      Array.from(
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
      author: irc ? { id: irc.nick, name: irc.nick } : { id: `U${n % 40}`, name: `user${n % 40}` },
      text,
      ...placement,
    };
  };
}

async function main(): Promise<void> {
  const batches = Number(arg('batches') ?? 100);
  const singles = Number(arg('singles') ?? 3000);
  const fixture = arg('fixture');
  if (fixture !== undefined && fixture !== 'irc') throw new Error(`--fixture ${fixture}: only irc is known`);
  const lines = fixture === 'irc' ? readIrcLines() : null;
  if (fixture === 'irc' && !lines) {
    console.log('bench:ingest --fixture irc skipped: ../shared/data/ubuntu-irc/dev is absent');
    return;
  }
  const size = Number(arg('size') ?? 100_000);
  const databaseName = arg('database') ?? (lines ? 'contextd_bench_ingest_irc' : 'contextd_bench_ingest');
  const database = await openBenchDatabase(databaseName);
  const run = randomBytes(3).toString('hex');
  const source: StreamSource = { lines, prefix: lines ? `r${run}_` : '' };
  if (lines) await seedFixture(database, lines, size);
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000000',
    // Single events run at concurrency 32: the overload guard (bench:overload measures it) would
    // answer most of them 503.
    MAX_WORK_IN_FLIGHT: '0',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  });
  const deps = localDeps(config, database);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const tenantId = lines ? BENCH_TENANT : `bench_${randomBytes(4).toString('hex')}`;
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

  if (database.kind === 'postgres') await costAgainstFloor(database, databaseName, source, post);

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
    const next = eventStream(concurrency, source);
    const payloads = Array.from({ length: batches }, () => Array.from({ length: 100 }, next));
    await post(
      payloads[0]!.map((e) => ({ ...e, message_id: `warm_${(e as { message_id: string }).message_id}` })),
    );
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
  const next = eventStream(99, source);
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
    `\nchannel_messages rows: ${int(storedBefore)} before this run, ${int(await storedMessages())} after (${lines ? `fixture irc ${int(size)}` : '--reset starts empty'})`,
  );
  console.log(`\n${machineLine()}`);
  await floor.close();
  await app.close();
  await deps.locks.close();
  await database.close();
}

type BenchDatabase = Awaited<ReturnType<typeof openBenchDatabase>>;

/**
 * What makes an insert cost what it costs: the columns (type, collation, generated expression) and
 * the indexes (method, columns, predicate, options); the storage options are compared apart.
 */
const tableShape = async (database: BenchDatabase, table: string) =>
  (
    await queryRows<{ shape: string | null; options: string | null }>(
      database.db,
      sql`select (select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attcollation
                    || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' order by a.attnum)
                  from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
                  where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)
               || ' | ' || coalesce((select string_agg(regexp_replace(pg_get_indexdef(i.indexrelid),
                    '^CREATE (UNIQUE )?INDEX \\S+ ON \\S+ ', '\\1'), ', ' order by 1)
                  from pg_index i where i.indrelid = c.oid), '') as shape,
               array_to_string(c.reloptions, ',') as options
          from pg_class c where c.oid = to_regclass(${table})`,
    )
  )[0] ?? null;

/**
 * The floor table: channel_messages' columns, generated tsvector, indexes and storage options (its
 * fillfactor: a page's free space is part of an insert's cost). A kept fixture's floor made before
 * a migration changed channel_messages' columns or indexes is made again (seedFixture refills it):
 * a floor with other indexes than the table ingest writes would not be its floor.
 */
async function createFloorTable(database: BenchDatabase): Promise<void> {
  const messages = await tableShape(database, 'channel_messages');
  let floor = await tableShape(database, 'ingest_floor');
  if (floor && floor.shape !== messages?.shape) {
    console.log('ingest_floor differs from channel_messages (columns or indexes): made again');
    await database.db.execute(sql`drop table ingest_floor`);
    floor = null;
  }
  await database.db.execute(
    sql`create table if not exists ingest_floor (like channel_messages including all)`,
  );
  if ((floor?.options ?? null) === (messages?.options ?? null)) return;
  if (floor?.options)
    await database.db.execute(
      sql.raw(`alter table ingest_floor reset (${floor.options.replace(/=[^,]*/g, '')})`),
    );
  if (messages?.options)
    await database.db.execute(sql.raw(`alter table ingest_floor set (${messages.options})`));
}

/**
 * The fixture: the IRC channel of `size` lines in channel_messages (seeded once, kept; VACUUM
 * ANALYZE once after loading), the same rows copied into ingest_floor (tenant floor_seed) and
 * analyzed the same way, and ingest_events analyzed (empty: the bench's events carry no event_id).
 */
async function seedFixture(database: BenchDatabase, lines: IrcLine[], size: number): Promise<void> {
  const channelId = await seedIrcChannel(database, lines, size, console.log);
  await createFloorTable(database);
  const count = async (query: ReturnType<typeof sql>) =>
    (await queryRows<{ n: number }>(database.db, query))[0]?.n ?? 0;
  if ((await count(sql`select count(*)::int as n from ingest_floor where tenant_id = 'floor_seed'`)) < size) {
    const columns = (
      await queryRows<{ name: string }>(
        database.db,
        sql`select column_name as name from information_schema.columns
            where table_name = 'channel_messages' and table_schema = 'public' and is_generated = 'NEVER'
            order by ordinal_position`,
      )
    )
      .map((c) => `"${c.name}"`)
      .filter((c) => c !== '"tenant_id"')
      .join(', ');
    await database.db.execute(sql`delete from ingest_floor where tenant_id = 'floor_seed'`);
    await database.db.execute(
      sql.raw(`insert into ingest_floor (tenant_id, ${columns}) select 'floor_seed', ${columns} from channel_messages
               where tenant_id = '${BENCH_TENANT}' and channel_id = '${channelId}'`),
    );
    await vacuumAnalyze(database, ['ingest_floor', 'ingest_events']);
  }
  const messages = await count(sql`select count(*)::int as n from channel_messages`);
  const floorRows = await count(sql`select count(*)::int as n from ingest_floor`);
  console.log(
    `fixture: ${int(messages)} channel_messages, ${int(floorRows)} ingest_floor rows (seed of ${int(size)} IRC lines, analyzed once after loading)`,
  );
}

/**
 * CPU per event of batches of 100 against the floor: the same number of rows inserted by one
 * multi-row INSERT (bare postgres.js, prepared) into ingest_floor, a table with channel_messages'
 * columns, generated tsvector and indexes. Interleaved blocks at concurrency 1; each round's
 * ratio is printed (the first rounds run on whatever statistics the tables have).
 */
async function costAgainstFloor(
  database: BenchDatabase,
  databaseName: string,
  source: StreamSource,
  post: (events: unknown[]) => Promise<void>,
): Promise<void> {
  if (database.kind !== 'postgres') return;
  const rounds = Number(arg('rounds') ?? 6);
  const block = Number(arg('block') ?? 10);
  const warmup = Number(arg('warmup') ?? 300);
  await createFloorTable(database);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${databaseName}`;
  const bare = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const backends = await backendCpu(database);
  const run = randomBytes(3).toString('hex');
  const next = eventStream(7, source);
  let floorRow = 0;
  const floorBatch = (events: Record<string, unknown>[]) =>
    events.map((e) => ({
      tenant_id: `floor_${run}`,
      platform: 'slack',
      channel_id: String(e.channel_id),
      message_id: `f${floorRow++}`,
      lane_key: `root:${String(e.channel_id)}`,
      ts: new Date(String(e.ts)),
      author_id: typeof e.author === 'object' ? (e.author as { id: string }).id : 'U1',
      author_name: typeof e.author === 'object' ? (e.author as { name: string }).name : 'user1',
      text: typeof e.text === 'string' ? e.text : '',
      token_estimate: 10,
    }));
  const measure = async (n: number, fn: () => Promise<unknown>) => {
    const pg = await backends.start();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i += 1) await fn();
    const usage = process.cpuUsage(cpu0);
    const pgMs = await pg.stop();
    return { nodeMs: (usage.user + usage.system) / 1000 / (n * 100), pgMs: pgMs / (n * 100) };
  };
  // Unmeasured batches first, both sides, as a running service would be: the first tens of thousands
  // of events pay V8's compilation of the ingest path and the tokenizer's first merges of common
  // words (after 100 batches the first measured round still ran ~30% more Node CPU than the next,
  // its compiler and GC threads three times as busy; after 300 it reads like the rest).
  for (let w = 0; w < warmup; w += 1) {
    await bare`insert into ingest_floor ${bare(floorBatch(Array.from({ length: 100 }, next) as Record<string, unknown>[]))}`;
    await post(Array.from({ length: 100 }, next));
  }
  const table: Record<string, string | number>[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const floorBatches = Array.from({ length: block }, () =>
      floorBatch(Array.from({ length: 100 }, next) as Record<string, unknown>[]),
    );
    let f = 0;
    const floor = await measure(block, () => bare`insert into ingest_floor ${bare(floorBatches[f++]!)}`);
    const batches = Array.from({ length: block }, () => Array.from({ length: 100 }, next));
    let b = 0;
    const ingest = await measure(block, () => post(batches[b++]!));
    const ratio = (ingest.nodeMs + ingest.pgMs) / (floor.nodeMs + floor.pgMs);
    ratios.push(ratio);
    table.push({
      round: r + 1,
      'floor node µs/event': int(floor.nodeMs * 1000),
      'floor pg µs/event': int(floor.pgMs * 1000),
      'ingest node µs/event': int(ingest.nodeMs * 1000),
      'ingest pg µs/event': int(ingest.pgMs * 1000),
      'CPU × floor': ratio.toFixed(2),
    });
  }
  await bare.end();
  printTable(`Batches of 100 against a multi-row INSERT of as many rows (${machineLine()})`, table);
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(
    `  CPU × floor: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} over ${rounds} rounds (after ${warmup} unmeasured batches each)`,
  );
}

await main();
