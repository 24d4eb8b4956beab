// Storage per channel message and per logged context call, measured on disk: the Ubuntu IRC
// development excerpts (../shared/data/ubuntu-irc/dev, not in the repository; the bench stops with
// a message when they are absent) ingested through POST /v1/events as a bot would forward them
// (threads of ten, an event id each), then a bot's session in that channel making context calls
// anchored on its lines, each followed by the assistant's reply as a turn. Sizes are
// pg_total_relation_size (heap, indexes, TOAST; a partitioned table's partitions summed) before
// and after each phase, divided by what the phase stored. It ends with the sizing example of
// docs/operations.md computed from this run's figures.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:storage
//       (database contextd_bench_storage, recreated on every run)
//   npm run bench:storage -- --quick          (2,000 messages, 100 calls)
//   … -- --messages 20000 --calls 500        (the defaults)
//   without DATABASE_URL: PGlite in memory (its page layout is PostgreSQL's)
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { buildApp } from '../src/app.js';
import { openDatabase, queryRows, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { localDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { benchConfig } from './lib/bench-app.js';
import { IRC_DATA, readIrcLines, THREAD, type IrcLine } from './lib/irc-channel.js';
import { arg, int, machineLine, printTable } from './lib/measure.js';
import { POLICY } from './lib/questions.js';

const DATABASE = 'contextd_bench_storage';
const TENANT = 'bench_storage';
const CHANNEL = 'C0UBUNTU';
const BASE_MS = Date.UTC(2026, 0, 5);

const MESSAGE_TABLES = ['channel_messages', 'ingest_events', 'channels', 'platform_users'];
const CALL_LOG_TABLES = ['context_log', 'payload_parts'];
const CALL_OTHER_TABLES = [
  'transcript_entries',
  'transcript_chunks',
  'sessions',
  'lane_states',
  'memories',
  'search_versions',
  'idempotency_records',
];

async function open(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ dataDir: 'memory://' });
    await runMigrations(database);
    return database;
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${DATABASE}" with (force)`);
  await admin.unsafe(`create database "${DATABASE}"`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${DATABASE}`;
  const database = await openDatabase({ databaseUrl: target.toString(), dataDir: '', maxConnections: 8 });
  await runMigrations(database);
  return database;
}

/**
 * Bytes on disk of each table with its indexes and TOAST, partitions included, after a VACUUM
 * (PostgreSQL): the versions updates left behind are space autovacuum hands back for reuse, not
 * growth, and GIN indexes' pending lists are merged.
 */
async function sizes(database: Database, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of tables) {
    if (database.kind === 'postgres') await database.db.execute(sql.raw(`vacuum ${table}`));
    const [row] = await queryRows<{ bytes: string | number | null }>(
      database.db,
      sql`select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes from pg_class c
        where c.oid = ${table}::regclass
          or c.oid in (select inhrelid from pg_inherits where inhparent = ${table}::regclass)`,
    );
    out[table] = Number(row?.bytes ?? 0);
  }
  return out;
}

const messageEvent = (lines: IrcLine[], i: number) => {
  const line = lines[i % lines.length]!;
  const root = i - (i % THREAD);
  return {
    type: 'message.created',
    event_id: `Ev${i}`,
    platform: 'slack',
    channel_id: CHANNEL,
    message_id: `m${String(i).padStart(8, '0')}`,
    ts: new Date(BASE_MS + i * 1000).toISOString(),
    author: { id: `U_${line.nick}`, name: line.nick },
    text: line.text,
    ...(root === i ? {} : { thread_id: `m${String(root).padStart(8, '0')}` }),
  };
};

const gb = (bytes: number) => (bytes / 1024 ** 3).toLocaleString('en-US', { maximumFractionDigits: 0 });

async function main(): Promise<void> {
  const lines = readIrcLines();
  if (!lines) {
    console.log(`bench:storage skipped: the IRC excerpts are not at ${IRC_DATA}`);
    return;
  }
  const quick = process.argv.includes('--quick');
  const messages = Number(arg('messages') ?? (quick ? 2_000 : 20_000));
  const calls = Number(arg('calls') ?? (quick ? 100 : 500));
  const database = await open();
  const deps = localDeps(benchConfig(), database);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId: TENANT });
  await app.services.tenants.addApiKey({ tenantId: TENANT, key, name: 'bench' });
  const headers = { authorization: `Bearer ${key}` };
  const send = async (method: 'POST', url: string, payload: unknown) => {
    const reply = await app.inject({ method, url, headers, payload: payload as never });
    if (reply.statusCode >= 300) throw new Error(`${method} ${url}: ${reply.statusCode} ${reply.body}`);
    return reply;
  };
  console.log(
    `backend: ${database.kind}; ${int(lines.length)} IRC lines, ${int(messages)} messages, ${int(calls)} calls; ${machineLine()}`,
  );

  // Phase 1: the channel's traffic, 100 events a batch.
  const before1 = await sizes(database, MESSAGE_TABLES);
  for (let from = 0; from < messages; from += 100) {
    const events = Array.from({ length: Math.min(100, messages - from) }, (_, k) =>
      messageEvent(lines, from + k),
    );
    await send('POST', '/v1/events', { events });
  }
  const after1 = await sizes(database, MESSAGE_TABLES);
  const textBytes = Array.from({ length: messages }, (_, i) =>
    Buffer.byteLength(lines[i % lines.length]!.text),
  ).reduce((a, b) => a + b, 0);

  // Phase 2: a bot's session in the channel: a context call anchored on a top-level line (its
  // question the next line), then the assistant's reply appended.
  const session = (
    await send('POST', '/v1/sessions', {
      session_key: 'storage-bench',
      agent_id: 'bench',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: CHANNEL,
    })
  ).json().session.id as string;
  const before2 = await sizes(database, [...CALL_LOG_TABLES, ...CALL_OTHER_TABLES]);
  const roots = Math.floor(messages / THREAD) - 1;
  for (let c = 0; c < calls; c += 1) {
    const anchor = ((c * 7919) % roots) * THREAD;
    await send('POST', `/v1/sessions/${session}/context`, {
      message: {
        content: lines[(anchor + 1) % lines.length]!.text,
        source: { platform: 'slack', channel_id: CHANNEL, message_id: `m${String(anchor).padStart(8, '0')}` },
      },
      system: [{ name: 'policy', text: POLICY }],
    });
    await send('POST', `/v1/sessions/${session}/turns`, {
      turns: [{ role: 'assistant', content: lines[(anchor + 2) % lines.length]!.text }],
    });
  }
  // Background compactions the calls queued write their summaries before the sizes are read.
  await app.close();
  const after2 = await sizes(database, [...CALL_LOG_TABLES, ...CALL_OTHER_TABLES]);
  await deps.locks.close();
  await database.close();

  const rows: Record<string, string | number>[] = [];
  const per = (table: string, before: Record<string, number>, after: Record<string, number>, n: number) =>
    (after[table]! - before[table]!) / n;
  for (const table of MESSAGE_TABLES) {
    rows.push({ what: `per message: ${table}`, bytes: int(per(table, before1, after1, messages)) });
  }
  const perMessage = MESSAGE_TABLES.reduce((sum, t) => sum + per(t, before1, after1, messages), 0);
  const perMessageKept = perMessage - per('ingest_events', before1, after1, messages);
  rows.push({ what: 'per message: all', bytes: int(perMessage) });
  rows.push({ what: '(its text, UTF-8)', bytes: int(textBytes / messages) });
  for (const table of [...CALL_LOG_TABLES, ...CALL_OTHER_TABLES]) {
    rows.push({ what: `per call: ${table}`, bytes: int(per(table, before2, after2, calls)) });
  }
  const perCallLog = CALL_LOG_TABLES.reduce((sum, t) => sum + per(t, before2, after2, calls), 0);
  const perCallOther = CALL_OTHER_TABLES.reduce((sum, t) => sum + per(t, before2, after2, calls), 0);
  rows.push({ what: 'per call: context log (context_log + payload_parts)', bytes: int(perCallLog) });
  rows.push({ what: 'per call: its turns and session state (the rest)', bytes: int(perCallOther) });
  printTable('Storage on disk', rows);

  // The sizing example: 10k bots × 1k messages a day × 90 days; a call for one message in ten.
  const bots = 10_000;
  const perDay = 1_000;
  const days = 90;
  const callShare = 0.1;
  const stored = bots * perDay * days;
  const example = [
    { what: 'channel messages (90 days)', rows: int(stored), GB: gb(stored * perMessageKept) },
    {
      what: 'ingest dedupe keys (7 days)',
      rows: int(bots * perDay * 7),
      GB: gb(bots * perDay * 7 * per('ingest_events', before1, after1, messages)),
    },
    {
      what: 'context log (90 days, 1 call per 10 messages)',
      rows: int(stored * callShare),
      GB: gb(stored * callShare * perCallLog),
    },
    {
      what: 'turns and session state (90 days)',
      rows: int(stored * callShare),
      GB: gb(stored * callShare * perCallOther),
    },
  ];
  printTable('Sizing example: 10k bots × 1k messages/day × 90 days', example);
}

await main();
