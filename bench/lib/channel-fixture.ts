// Synthetic channels for benchmarks: N messages in one channel, bulk-inserted with
// INSERT … SELECT generate_series (seconds for 1M rows on Postgres). Every 10th message is a
// thread root with three replies; every 7th carries reactions; text is 6–25 words drawn with a
// skewed frequency from a pseudo-word vocabulary plus topical words, so queries mix common and
// rare terms.
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, queryRows, type Database, type StatementListener } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rng } from './measure.js';

export const BENCH_TENANT = 'bench_channels';
export const BENCH_PLATFORM = 'slack';
export const TOPICAL = [
  'rollout',
  'deploy',
  'migration',
  'database',
  'release',
  'incident',
  'latency',
  'checklist',
  'staging',
  'rollback',
  'kubernetes',
  'postgres',
  'billing',
  'invoice',
  'onboarding',
  'roadmap',
  'outage',
  'certificate',
  'cache',
  'dashboard',
];
const VOCABULARY = 5000;

export function vocabulary(): string[] {
  const random = rng(7);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'ta',
    'shi',
    'po',
    'an',
    'el',
    'or',
    'ix',
    'ven',
    'dor',
    'sul',
    'tri',
  ];
  const words = new Set<string>(TOPICAL);
  while (words.size < VOCABULARY) {
    const n = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length: n }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  }
  return [...words];
}

/** DATABASE_PREPARED_STATEMENTS=false runs a benchmark unprepared, as the service would (A/B runs). */
export const benchPrepare = () => process.env.DATABASE_PREPARED_STATEMENTS !== 'false';

/**
 * Opens the benchmark database: a dedicated Postgres database when DATABASE_URL is set, else
 * PGlite in memory. `onStatement` sees every statement sent (Postgres only).
 */
export async function openBenchDatabase(
  name: string,
  options: { onStatement?: StatementListener } = {},
): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ dataDir: 'memory://' });
    await runMigrations(database);
    return database;
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (exists && process.argv.includes('--reset')) await admin.unsafe(`drop database "${name}" with (force)`);
  if (!exists || process.argv.includes('--reset')) await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = await openDatabase({
    databaseUrl: target.toString(),
    dataDir: '',
    maxConnections: 16,
    prepare: benchPrepare(),
    ...(options.onStatement ? { onStatement: options.onStatement } : {}),
  });
  await runMigrations(database);
  return database;
}

export async function channelSize(database: Database, channelId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from channel_messages where tenant_id = ${BENCH_TENANT} and channel_id = ${channelId}`,
  );
  return Number(row?.n ?? 0);
}

/**
 * VACUUM ANALYZE after a bulk load (ANALYZE on PGlite): without it the visibility map is empty
 * (index-only scans visit the heap) and the planner has no statistics for the new rows.
 */
export async function vacuumAnalyze(database: Database, tables: string[]): Promise<void> {
  for (const table of tables) {
    await database.db.execute(sql.raw(`${database.kind === 'postgres' ? 'vacuum ' : ''}analyze ${table}`));
  }
}

/** Inserts messages [from, to) of a synthetic channel. Idempotent per id. */
/**
 * Indexes of the top-level messages of a seeded channel of `size` (seedChannel: every 10th message
 * roots a thread of the next three), the last 20 left out; a context call's anchors are these.
 */
export const topLevelIndexes = (size: number): number[] =>
  Array.from({ length: size - 20 }, (_, i) => i).filter((i) => i % 10 < 1 || i % 10 > 3);

/** The message id of seeded message `index`. */
export const benchMessageId = (index: number) => `m${String(index).padStart(8, '0')}`;

export async function seedChannel(
  database: Database,
  channelId: string,
  from: number,
  to: number,
): Promise<void> {
  const words = vocabulary();
  const base = Date.UTC(2025, 0, 1) / 1000;
  // Skewed pick: index = floor(V * u^3) with a per-(row, word) hash for u, so common words dominate.
  await database.db.execute(sql`
    with v as materialized (select array(select jsonb_array_elements_text(${JSON.stringify(words)}::jsonb)) as words)
    insert into channel_messages (tenant_id, platform, channel_id, message_id, thread_id, lane_key, ts, author_id,
      author_name, text, reactions, reply_count, last_reply_ts, token_estimate)
    select ${BENCH_TENANT}, ${BENCH_PLATFORM}, ${channelId}, 'm' || lpad(i::text, 8, '0'),
      case when i % 10 between 1 and 3 then 'm' || lpad((i - i % 10)::text, 8, '0') end,
      case when i % 10 between 1 and 3 then 'thread:' || ${channelId} || ':m' || lpad((i - i % 10)::text, 8, '0')
           else 'root:' || ${channelId} end,
      to_timestamp(${base} + i * 5), 'U' || (i % 50), 'user' || (i % 50), t.text,
      case when i % 7 = 0 then jsonb_build_object('tada', 1 + i % 5, 'eyes', i % 3) else '{}'::jsonb end,
      case when i % 10 = 0 then 3 else 0 end,
      case when i % 10 = 0 then to_timestamp(${base} + (i + 3) * 5) end,
      greatest(1, length(t.text) / 4)
    from generate_series(${from}::int, ${to - 1}::int) as i
    cross join v
    cross join lateral (
      select string_agg(v.words[1 + floor(${words.length} * power(((hashint4(i * 31 + k) & 2147483647) % 100000) / 100000.0, 3))::int], ' ') as text
      from generate_series(1, 6 + (i % 20)) as k
    ) as t
    on conflict do nothing`);
}
