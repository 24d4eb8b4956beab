// Memory search over N transcript chunks of one tenant, beside two floors measured in the same run:
// one indexed Postgres read (a primary-key lookup), and PostgreSQL's own full-text search on the
// same table, `tsv @@ websearch_to_tsquery(q) ORDER BY ts_rank LIMIT 8` (the GIN index, no
// JavaScript ranking) through bare postgres.js. Latency p50/p99, then CPU per query (this process +
// the database's backends, PostgreSQL only) in interleaved blocks of the full-text floor,
// searchMemory and the same floor through drizzle and the client wrapper (`--rounds`, `--block`),
// and the ratios per round.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:search -- --chunks 1000000
//   npm run bench:search                       (embedded PGlite, 20,000 chunks)
//
// On a server it uses its own database `contextd_bench_search` (seeded once, reused; --reset drops it;
// --database NAME uses another, so that several people can each seed their own copy).
// Chunk text: 150 words drawn from a 20,000-word vocabulary with a skewed (Zipf-like) frequency, so
// queries mix very common and rare terms. Queries: 3–6 words from the same distribution.
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { backendCpu } from './lib/backend-cpu.js';
import { benchPrepare } from './lib/channel-fixture.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { systemClock } from '../src/shared/clock.js';
import { createMemorySearchService } from '../src/modules/memory/memory-search.service.js';
import { createSearchRepository } from '../src/modules/memory/search.repository.js';
import { arg, latency, latencyRow, machineLine, ms, printTable, rng } from './lib/measure.js';

const TENANT = 'bench_search';
const BENCH_DB = arg('database') ?? 'contextd_bench_search';
const VOCABULARY = 20_000;
const SKEW = 2.5;

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  const target = Number(arg('chunks') ?? (serverUrl ? 1_000_000 : 20_000));
  const runs = Number(arg('queries') ?? 500);
  let databaseUrl: string | undefined;
  // An existing bench database is reused as it is (seeding 1M chunks takes minutes); after a schema
  // change of transcript_chunks, pass --reset.
  let fresh = true;
  if (serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    if (process.argv.includes('--reset'))
      await admin.unsafe(`drop database if exists "${BENCH_DB}" with (force)`);
    const [exists] = await admin`select 1 from pg_database where datname = ${BENCH_DB}`;
    if (!exists) await admin.unsafe(`create database "${BENCH_DB}"`);
    fresh = !exists;
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${BENCH_DB}`;
    databaseUrl = url.toString();
  } else if (target > 100_000) {
    console.log('bench:search: more than 100,000 chunks needs a real Postgres (set DATABASE_URL)');
    return;
  }
  const database = await openDatabase({
    databaseUrl,
    dataDir: 'memory://',
    maxConnections: 4,
    prepare: benchPrepare(),
  });
  if (fresh) await runMigrations(database);
  const db = database.db;

  const [{ n: existing } = { n: 0 }] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from transcript_chunks where tenant_id = ${TENANT}`,
  );
  // Seeded rows are numbered 1…N in batches that commit one by one, so an interrupted seed resumes.
  let seededTo = Number(existing);
  if (seededTo > target) {
    await db.execute(sql`delete from transcript_chunks where tenant_id = ${TENANT}`);
    seededTo = 0;
  }
  if (seededTo < target) {
    const batch = 50_000;
    const t0 = performance.now();
    for (let start = seededTo; start < target; start += batch) {
      const end = Math.min(target, start + batch);
      await db.execute(sql`
        insert into transcript_chunks (tenant_id, session_id, first_seq, last_seq, lane_key, session_key, text, start_ts, end_ts)
        select ${TENANT}, ('00000000-0000-7000-8000-' || lpad(to_hex(g / 1000), 12, '0'))::uuid, g, g + 1,
          'root:C' || (g / 1000 % 50), 'agent:bench:slack:channel:C' || (g / 1000 % 50),
          (select string_agg('w' || floor(power(random(), ${SKEW}::float8) * ${VOCABULARY}::int)::int, ' ')
             from generate_series(1, 150) w where g > 0),
          now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
        from generate_series(${start + 1}::int, ${end}::int) g`);
      process.stdout.write(`\rseeded ${end.toLocaleString()} / ${target.toLocaleString()} chunks`);
    }
    process.stdout.write(` in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    await db.execute(sql`vacuum analyze transcript_chunks`);
  }

  const { searchMemory } = createMemorySearchService({
    // As the service wires it (src/modules/services.ts): the rare-lexeme reads on generic plans.
    search: createSearchRepository(db, {
      genericPlans: database.kind === 'postgres' ? database.genericPlanDb : db,
    }),
    clock: systemClock,
  });
  const random = rng(42);
  const word = () => `w${Math.floor(Math.pow(random(), SKEW) * VOCABULARY)}`;
  const queries = Array.from({ length: runs }, () =>
    Array.from({ length: 3 + Math.floor(random() * 4) }, word).join(' '),
  );
  const now = new Date();
  const search = (i: number) =>
    searchMemory({
      tenantId: TENANT,
      query: queries[i % queries.length]!,
      sources: ['transcript_chunks'],
      maxResults: 8,
      now,
    });
  const floor = (i: number) => {
    const g = ((i * 7919) % target) + 1;
    const session = `00000000-0000-7000-8000-${Math.floor(g / 1000)
      .toString(16)
      .padStart(12, '0')}`;
    return queryRows(
      db,
      sql`select text from transcript_chunks where tenant_id = ${TENANT} and session_id = ${session}::uuid and first_seq = ${g}`,
    );
  };

  const fullTextQuery = `select session_id, first_seq, text from transcript_chunks
    where tenant_id = $1 and tsv @@ websearch_to_tsquery('english', $2)
    order by ts_rank(tsv, websearch_to_tsquery('english', $2)) desc limit 8`;
  // The floor through the bare driver (prepared, as the service prepares its statements); the same
  // statement through drizzle and the service's client wrapper is measured beside it, labelled.
  const bare = databaseUrl ? postgres(databaseUrl, { max: 4, onnotice: () => {} }) : undefined;
  const fullTextWrapped = (i: number) =>
    queryRows(
      db,
      sql`select session_id, first_seq, text from transcript_chunks
          where tenant_id = ${TENANT} and tsv @@ websearch_to_tsquery('english', ${queries[i % queries.length]!})
          order by ts_rank(tsv, websearch_to_tsquery('english', ${queries[i % queries.length]!})) desc limit 8`,
    );
  const fullText = bare
    ? (i: number) => bare.unsafe(fullTextQuery, [TENANT, queries[i % queries.length]!], { prepare: true })
    : fullTextWrapped;

  const floorStats = await latency(runs, floor, 50);
  const fullTextStats = await latency(runs, fullText, 50);
  const searchStats = await latency(runs, search, 50);
  const hits = await search(0);
  printTable(
    `search latency — ${target.toLocaleString('en-US')} chunks in one tenant, ${runs} queries of 3–6 words, ${database.kind}`,
    [
      latencyRow('floor: one indexed Postgres read (PK lookup, through drizzle)', floorStats),
      latencyRow(
        `floor: tsv @@ websearch_to_tsquery … order by ts_rank limit 8${bare ? ' (bare postgres.js)' : ''}`,
        fullTextStats,
      ),
      latencyRow('searchMemory (transcript chunks, max_results 8)', searchStats),
    ],
  );
  if (database.kind === 'postgres') {
    const backends = await backendCpu(database);
    const rounds = Number(arg('rounds') ?? 5);
    const block = Number(arg('block') ?? 200);
    const cpu = async (fn: (i: number) => Promise<unknown>, from: number) => {
      const pg = await backends.start();
      const cpu0 = process.cpuUsage();
      for (let i = from; i < from + block; i += 1) await fn(i);
      const usage = process.cpuUsage(cpu0);
      const pgMs = await pg.stop();
      return { node: (usage.user + usage.system) / 1000 / block, pg: pgMs / block };
    };
    const rows: Record<string, string | number>[] = [];
    const ratios: number[] = [];
    const wrappedRatios: number[] = [];
    for (let r = 0; r < rounds; r += 1) {
      // All see the same queries in a round, in a rotating order (the bare floor first, second and
      // third in turn).
      const from = (r * block) % queries.length;
      const sides = [fullText, search, fullTextWrapped];
      const measured = new Map<unknown, { node: number; pg: number }>();
      for (let k = 0; k < sides.length; k += 1) {
        const fn = sides[(k + r) % sides.length]!;
        measured.set(fn, await cpu(fn, from));
      }
      const [f, m, w] = sides.map((fn) => measured.get(fn)!) as [
        { node: number; pg: number },
        { node: number; pg: number },
        { node: number; pg: number },
      ];
      ratios.push((m.node + m.pg) / (f.node + f.pg));
      wrappedRatios.push((m.node + m.pg) / (w.node + w.pg));
      rows.push({
        round: r + 1,
        'floor node ms': ms(f.node),
        'floor pg ms': ms(f.pg),
        'search node ms': ms(m.node),
        'search pg ms': ms(m.pg),
        'CPU × full-text floor': ratios.at(-1)!.toFixed(2),
        'floor via drizzle node ms': ms(w.node),
        'CPU × floor via drizzle': wrappedRatios.at(-1)!.toFixed(2),
      });
    }
    printTable(`CPU per query against the full-text floor (${machineLine()})`, rows);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(`  CPU × full-text floor (bare postgres.js): median ${median(ratios).toFixed(2)}`);
    console.log(
      `  CPU × the same floor through drizzle and the client wrapper: median ${median(wrappedRatios).toFixed(2)}`,
    );
  }
  console.log(
    `\nexample: "${queries[0]}" → ${hits.results.length} results, top score ${hits.results[0]?.score ?? '-'}`,
  );
  await bare?.end();
  await database.close();
}

await main();
