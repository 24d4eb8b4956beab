// A channel of real traffic for the context-call benchmarks: the Ubuntu IRC development excerpts
// (../shared/data/ubuntu-irc/dev, not in the repository) replayed at their real density, one line a
// second, as threads of ten (a top-level line and the nine after it as its replies), repeated with
// new ids until the channel holds the size asked for. A call's anchor is a top-level line and its
// question the channel's next line, as a bot mentioned in the channel would be asked.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { BENCH_PLATFORM, BENCH_TENANT, channelSize } from './channel-fixture.js';
import { POLICY } from './questions.js';
import { arg } from './measure.js';

/**
 * bench:call-cost's seeded IRC channel database (also bench:call-ab's and bench:call-profile's):
 * `--database NAME`, default contextd_bench_call_cost, so that several people can each seed a copy.
 */
export const CALL_COST_DATABASE = arg('database') ?? 'contextd_bench_call_cost';

export const IRC_DATA = join(import.meta.dirname, '../../../shared/data/ubuntu-irc/dev');
export const THREAD = 10;
const INSERT_ROWS = 5_000;
const BASE_SECONDS = Date.UTC(2025, 0, 1) / 1000;

export interface IrcLine {
  nick: string;
  text: string;
}

/** The excerpts' chat lines in file order (join/part lines left out); null when the data is absent. */
export function readIrcLines(dir = IRC_DATA): IrcLine[] | null {
  if (!existsSync(dir)) return null;
  const lines: IrcLine[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.ascii.txt'))
    .sort()) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^\[\d\d:\d\d\] <([^>]+)> (.+)$/.exec(line);
      if (m) lines.push({ nick: m[1]!, text: m[2]! });
    }
  }
  return lines.length > 0 ? lines : null;
}

/** The channel id of a seeded channel of `size` lines. */
export const ircChannelId = (size: number) => `irc${size}`;
/** The message id of line `index` of a seeded channel. */
export const ircMessageId = (index: number) => `l${String(index).padStart(8, '0')}`;

/**
 * Indexes of the top-level lines of a channel of `size` (the first of each thread of ten), the last
 * thread left out so every anchor has a next line, in an order that spreads them over the channel.
 */
export function ircAnchors(size: number): number[] {
  const roots = Math.floor(size / THREAD) - 1;
  const step = roots % 7919 === 0 ? 7907 : 7919;
  return Array.from({ length: roots }, (_, k) => ((k * step) % roots) * THREAD);
}

/** Lines [from, to) of the channel: multi-row inserts from a JSON array, idempotent per id. */
async function insertLines(
  database: Database,
  channelId: string,
  lines: IrcLine[],
  from: number,
  to: number,
) {
  const rows = [];
  for (let i = from; i < to; i += 1) {
    const line = lines[i % lines.length]!;
    const root = i - (i % THREAD);
    rows.push({ i, nick: line.nick, text: line.text, root: root === i ? null : ircMessageId(root) });
  }
  await database.db.execute(sql`
    insert into channel_messages (tenant_id, platform, channel_id, message_id, thread_id, lane_key, ts,
      author_id, author_name, text, reply_count, last_reply_ts, token_estimate)
    select ${BENCH_TENANT}, ${BENCH_PLATFORM}, ${channelId}, 'l' || lpad(r.i::text, 8, '0'), r.root,
      case when r.root is null then 'root:' || ${channelId} else 'thread:' || ${channelId} || ':' || r.root end,
      to_timestamp(${BASE_SECONDS} + r.i), r.nick, r.nick, r.text,
      case when r.root is null then ${THREAD - 1} else 0 end,
      case when r.root is null then to_timestamp(${BASE_SECONDS} + r.i + ${THREAD - 1}) end,
      greatest(1, length(r.text) / 4)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(i int, nick text, text text, root text)
    on conflict do nothing`);
}

/**
 * Seeds the channel of `size` lines (what an earlier run seeded stays: only the missing lines are
 * inserted), then VACUUM ANALYZE when anything was added. Returns the channel id.
 */
export async function seedIrcChannel(
  database: Database,
  lines: IrcLine[],
  size: number,
  log: (line: string) => void = () => {},
): Promise<string> {
  const channelId = ircChannelId(size);
  const have = await channelSize(database, channelId);
  if (have >= size) return channelId;
  for (let from = have; from < size; from += INSERT_ROWS) {
    await insertLines(database, channelId, lines, from, Math.min(size, from + INSERT_ROWS));
    if ((from / INSERT_ROWS) % 10 === 9)
      log(`  seeded ${Math.min(size, from + INSERT_ROWS)} / ${size} lines`);
  }
  await database.db.execute(
    sql.raw(`${database.kind === 'postgres' ? 'vacuum ' : ''}analyze channel_messages`),
  );
  return channelId;
}

/** A dry-run context call's body: a question (the line after the anchor) about the anchor. */
export const ircContextBody = (lines: IrcLine[], channelId: string, anchor: number) => ({
  message: {
    content: lines[(anchor + 1) % lines.length]!.text,
    source: { platform: BENCH_PLATFORM, channel_id: channelId, message_id: ircMessageId(anchor) },
  },
  system: [{ name: 'policy', text: POLICY }],
  dry_run: true,
});
