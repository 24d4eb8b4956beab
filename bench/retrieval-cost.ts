// Retrieval cost against a tenant's total data (issue 16, item 3): the searches a context call
// makes — the session's transcript chunks, and the memories of the session's visible scopes —
// while the tenant's other sessions' chunks and other users' memories grow from 1k to 1M. Each is
// compared with one primary-key read in the same run (the floor), and with the memories search as
// it was before (every scope of the tenant ranked, the invisible ones dropped afterwards). Besides
// latency (noisy on a shared machine) it prints the buffers each scope read touches
// (EXPLAIN (ANALYZE, BUFFERS)), which do not depend on load, and the indexes the plans use.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:retrieval-cost
//   npm run bench:retrieval-cost -- --sizes 1000,10000      (embedded PGlite)
//   … -- --sizes 1000,10000,100000,1000000 --runs 200 --reset
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../src/db/client.js';
import type { Clock } from '../src/shared/clock.js';
import { visibleMemoryScopes } from '../src/modules/memory/core/visible-scopes.js';
import { createMemorySearchService } from '../src/modules/memory/memory-search.service.js';
import {
  createSearchRepository,
  type SearchFilters,
  type SearchSource,
} from '../src/modules/memory/search.repository.js';
import type { SessionRow } from '../src/modules/sessions/sessions.repository.js';
import { openBenchDatabase, TOPICAL, vacuumAnalyze, vocabulary } from './lib/channel-fixture.js';
import { arg, int, latency, machineLine, ms, printTable, rng } from './lib/measure.js';

const TENANT = 'bench_cost';
const TARGET = 'CTARGET';
const TARGET_KEY = `agent:bot:slack:channel:${TARGET}`;
/** What the measured session sees, the same at every size. */
const TARGET_CHUNKS = 300;
const TARGET_MEMORIES = { tenant: 50, channel: 300, user: 300, session: 50 };
const BATCH = 100_000;
const NOW = new Date('2026-11-01T00:00:00Z');
const clock: Clock = { now: () => NOW };

/** `n` words per row drawn with a skewed frequency from `words` (deterministic in i). */
const text = (i: SQL, n: number) =>
  sql`(select string_agg(w.words[1 + floor(array_length(w.words, 1) * power(((${i}::bigint * 7919 + j * 104729) % 10007) / 10007.0, 2.5))::int], ' ')
    from generate_series(1, ${n}::int) j)`;

async function count(database: Database, table: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from ${sql.raw(table)} where tenant_id = ${TENANT}`,
  );
  return Number(row?.n ?? 0);
}

/** Grows the tenant's other chunks (other sessions) and other memories (other users) to `size` each. */
async function grow(database: Database, words: string[], size: number): Promise<void> {
  // A large load on PostgreSQL goes in without the GIN indexes, which are then rebuilt from their
  // own definitions (a sorted build instead of one insertion per row and lexeme, as pg_restore does).
  const bulk = database.kind === 'postgres' && size - (await count(database, 'memories')) > 200_000;
  const gins = bulk
    ? await queryRows<{ name: string; def: string }>(
        database.db,
        sql`select indexname as name, indexdef as def from pg_indexes
          where schemaname = current_schema() and tablename in ('transcript_chunks', 'memories')
            and indexdef like '% USING gin %'`,
      )
    : [];
  for (const gin of gins) await database.db.execute(sql.raw(`drop index "${gin.name}"`));
  try {
    const wordsSql = sql`(select array(select jsonb_array_elements_text(${JSON.stringify(words)}::jsonb)) as words) w`;
    // Chunks and memories load side by side (two backends).
    const loadChunks = async () => {
      for (let have = await count(database, 'transcript_chunks'); have < size + TARGET_CHUNKS;) {
        const to = Math.min(size + TARGET_CHUNKS, have + BATCH);
        await database.db.execute(sql`insert into transcript_chunks
        (tenant_id, session_id, first_seq, last_seq, lane_key, session_key, text, end_ts, created_at)
      select ${TENANT}, md5('s' || (i % 20000))::uuid, i, i + 1, case when i < ${TARGET_CHUNKS} then ${`root:${TARGET}`} else 'root:C' || (i % 20000) end,
        case when i < ${TARGET_CHUNKS} then ${TARGET_KEY} else 'agent:bot:slack:channel:C' || (i % 20000) end,
        ${text(sql`i`, 30)}, ${NOW.toISOString()}::timestamptz - (i * interval '1 minute'), ${NOW.toISOString()}::timestamptz
      from generate_series(${have}::int, ${to - 1}::int) i, ${wordsSql}`);
        have = to;
      }
    };
    const loadMemories = async () => {
      const targets = Object.values(TARGET_MEMORIES).reduce((a, b) => a + b, 0);
      const { tenant, channel, user } = TARGET_MEMORIES;
      for (let have = await count(database, 'memories'); have < size + targets;) {
        const to = Math.min(size + targets, have + BATCH);
        await database.db
          .execute(sql`insert into memories (tenant_id, id, scope, scope_key, type, text, text_key, updated_at)
      select ${TENANT}, md5('m' || i)::uuid, v.scope, v.scope_key, 'fact', v.t, md5(v.t), ${NOW.toISOString()}::timestamptz - (i * interval '1 minute')
      from generate_series(${have}::int, ${to - 1}::int) i, ${wordsSql},
        lateral (select ${text(sql`i`, 14)} || ' ' || i as t,
          case when i < ${tenant} then 'tenant' when i < ${tenant + channel} then 'channel'
            when i < ${tenant + channel + user} then 'user' when i < ${targets} then 'session' else 'user' end as scope,
          case when i < ${tenant} then '' when i < ${tenant + channel} then ${`slack:${TARGET}`}
            when i < ${tenant + channel + user} then 'slack:UTARGET' when i < ${targets} then ${TARGET_KEY}
            else 'slack:U' || (i % 50000) end as scope_key) v`);
        have = to;
      }
    };
    await Promise.all([loadChunks(), loadMemories()]);
  } finally {
    for (const gin of gins) {
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`set local maintenance_work_mem = '256MB'`);
        await tx.execute(sql.raw(gin.def));
      });
    }
  }
  await vacuumAnalyze(database, ['transcript_chunks', 'memories']);
}

/** The statement scopeCandidates sends for these filters, run under EXPLAIN (ANALYZE, BUFFERS). */
async function scopeRead(
  database: Database,
  source: SearchSource,
  filters: SearchFilters,
  lexemes: string[],
  /** Index dropped for this read only (a transaction rolled back): the plan before it existed. */
  without?: string,
) {
  let statement: SQL | undefined;
  const capture = {
    execute: (query: SQLWrapper) => ((statement = query.getSQL()), Promise.resolve([])),
  } as unknown as Executor;
  await createSearchRepository(capture).scopeCandidates({
    tenantId: TENANT,
    source,
    terms: lexemes.map((l) => ({ lexeme: l, query: `'${l}'` })),
    query: lexemes.map((l) => `'${l}'`).join(' | '),
    filters,
    now: NOW,
    perTerm: 100,
    scanLimit: 2_000,
    rankWindow: 500,
    cap: 2_000,
  });
  const options =
    database.kind === 'postgres' ? sql.raw('analyze, buffers, format json') : sql.raw('analyze, format json');
  const explain = (tx: Executor) =>
    queryRows<Record<string, unknown>>(tx, sql`explain (${options}) ${statement!}`);
  const rolledBack = new Error('rolled back');
  let rows: Record<string, unknown>[] = [];
  if (!without) rows = await explain(database.db);
  else
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`drop index "${without}"`));
        rows = await explain(tx);
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
  const row = rows[0];
  const raw = Object.values(row!)[0];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  const indexes = new Set<string>();
  const scans = new Set<string>();
  const walk = (node: PlanNode) => {
    if (node['Index Name']) indexes.add(node['Index Name']);
    if (node['Node Type'] === 'Seq Scan') scans.add(`Seq Scan on ${node['Relation Name']}`);
    node.Plans?.forEach(walk);
  };
  walk(plan[0].Plan);
  const top = plan[0].Plan;
  return {
    buffers: (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0),
    plan: [...indexes, ...scans].join(', '),
  };
}
type PlanNode = {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
};

async function main(): Promise<void> {
  const onServer = Boolean(process.env.DATABASE_URL);
  const sizes = (arg('sizes') ?? (onServer ? '1000,10000,100000,1000000' : '1000,10000'))
    .split(',')
    .map(Number);
  const runs = Number(arg('runs') ?? 200);
  const database = await openBenchDatabase('contextd_bench_cost');
  const words = vocabulary();
  const search = createSearchRepository(database.db);
  const session = {
    tenantId: TENANT,
    sessionKey: TARGET_KEY,
    platform: 'slack',
    channelId: TARGET,
    userId: 'UTARGET',
  } as SessionRow;
  const scopes = visibleMemoryScopes(session);
  const random = rng(11);
  const queries = Array.from({ length: 64 }, () => {
    const pick = () => words[Math.floor(words.length * random() ** 2.5)]!;
    return `${TOPICAL[Math.floor(random() * TOPICAL.length)]} ${pick()} ${pick()} ${pick()}`;
  });
  const rows: Record<string, string | number>[] = [];
  const explains: Record<string, string | number>[] = [];
  for (const size of sizes) {
    const t0 = Date.now();
    await grow(database, words, size);
    console.log(
      `seeded ${int(size)} other chunks and memories in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
    // A fresh service per size: its large-scope cache must not carry over.
    const memorySearch = createMemorySearchService({ search, clock });
    const lexemes = await Promise.all(queries.map((q) => memorySearch.lexemes(q)));
    const call = (sources: SearchSource[], filters: SearchFilters, maxResults: number) => (i: number) =>
      memorySearch.searchMemory({
        tenantId: TENANT,
        query: queries[i % queries.length]!,
        lexemes: lexemes[i % queries.length]!,
        sources,
        filters,
        laneKey: `root:${TARGET}`,
        now: NOW,
        maxResults,
      });
    const floor = await latency(runs, (i) =>
      queryRows(
        database.db,
        sql`select text from transcript_chunks where tenant_id = ${TENANT}
          and session_id = md5('s' || ${i % TARGET_CHUNKS})::uuid and first_seq = ${i % TARGET_CHUNKS}`,
      ),
    );
    const measured: [string, ReturnType<typeof call>][] = [
      ['chunks of the session', call(['transcript_chunks'], { sessionKey: TARGET_KEY }, 33)],
      ['memories of the visible scopes', call(['memories'], { scopes }, 99)],
      ['memories, every scope (before)', call(['memories'], {}, 99)],
    ];
    rows.push({
      'other rows': int(size),
      what: 'floor: one primary-key read',
      'p50 ms': ms(floor.p50),
      'mean ms': ms(floor.mean),
      '× floor (p50)': '1.0',
    });
    for (const [what, fn] of measured) {
      const l = await latency(runs, fn);
      rows.push({
        'other rows': int(size),
        what,
        'p50 ms': ms(l.p50),
        'mean ms': ms(l.mean),
        '× floor (p50)': (l.p50 / floor.p50).toFixed(1),
      });
    }
    const probe = lexemes[0]!;
    for (const [what, source, filters, without] of [
      ['chunks of the session', 'transcript_chunks', { sessionKey: TARGET_KEY }, undefined],
      [
        'chunks of the session, without its index (before)',
        'transcript_chunks',
        { sessionKey: TARGET_KEY },
        'transcript_chunks_session_idx',
      ],
      ['memories of the visible scopes', 'memories', { scopes }, undefined],
      ['memories, every scope (before)', 'memories', {}, undefined],
    ] as const) {
      const read = await scopeRead(database, source, filters, probe, without);
      explains.push({
        'other rows': int(size),
        'scope read': what,
        'buffers touched': read.buffers,
        plan: read.plan,
      });
    }
    // Printed after every size: a long run shows what it has measured so far.
    printTable(
      `Retrieval per call, sequential, ${runs} calls per row (queries of 4 words, new each call)`,
      rows,
    );
    printTable('The scope read statement (EXPLAIN ANALYZE, BUFFERS on PostgreSQL)', explains);
    console.log(`\n${machineLine()}`);
  }
  await database.close();
}

await main();
