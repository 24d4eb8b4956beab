// The SQL of a channel snapshot's rows: the top-level messages before an anchor with their replies
// in its last hour, as a statement of their own (ChannelsRepository.snapshotRows, topLevelBefore)
// or as one json value another statement carries (ContextRepository.loadTurn).
import { sql, type SQL } from 'drizzle-orm';
import {
  MESSAGE_ARRAY_MORE,
  MESSAGE_COLUMNS,
  messageArraySql,
  messageOfArray,
  scopeWhere,
  toMessage,
  topLevel,
  visible,
  type ChannelScope,
  type MessageRow,
  type StoredMessage,
} from './channel-rows.repository.js';

export type TopLevelScope = ChannelScope & {
  ts: number;
  messageId: string;
  limit: number;
  repliesFrom: number;
  repliesTo: number;
};

/** Epoch milliseconds (a value or placeholder) as a timestamptz, as every read here converts them. */
const msTimestamp = (ms: number) => sql`to_timestamp(${ms} / 1000.0)`;

/**
 * The `limit` visible top-level messages before (at, messageId), newest first, each with its replies
 * in (repliesFrom, repliesTo], counted in the same statement only for rows that have replies: one
 * scalar subquery on the thread index, one on the lane index. The times are timestamptz
 * expressions. The limit is a literal: a generic plan (prepared statements) then knows it reads a
 * few rows of the time index backwards; with a parameter it assumed a tenth of the channel and could
 * sort it all.
 */
function topLevelBeforeSql(
  scope: ChannelScope & { at: SQL; messageId: string | SQL; limit: number; repliesFrom: SQL; repliesTo: SQL },
) {
  const window = sql`r.ts > ${scope.repliesFrom} and r.ts <= ${scope.repliesTo}
    and not r.is_placeholder and r.deleted_at is null`;
  return sql`select m.*, case when m.reply_count = 0 then 0 else
        (select count(*)::int from channel_messages r
          where r.tenant_id = ${scope.tenantId} and r.platform = ${scope.platform}
            and r.channel_id = ${scope.channelId} and r.thread_id = m.message_id
            and r.message_id <> r.thread_id and ${window})
      + (select count(*)::int from channel_messages r
          where r.tenant_id = ${scope.tenantId} and r.lane_key = 'reply:' || m.channel_id || ':' || m.message_id
            and r.platform = ${scope.platform} and r.channel_id = ${scope.channelId}
            and r.thread_id is null and ${window}) end as replies_in_window
      from (select ${MESSAGE_COLUMNS} from channel_messages
            where ${scopeWhere(scope)} and ${visible} and ${topLevel}
              and (ts, message_id) < (${scope.at}, ${scope.messageId})
            order by ts desc, message_id desc limit ${sql.raw(String(literalLimit(scope.limit)))}) m`;
}

/** topLevelBeforeSql of a scope given in epoch milliseconds (values or placeholders). */
export const topLevelBeforeMsSql = (scope: TopLevelScope) =>
  topLevelBeforeSql({
    ...scope,
    at: msTimestamp(scope.ts),
    repliesFrom: msTimestamp(scope.repliesFrom),
    repliesTo: msTimestamp(scope.repliesTo),
  });

/** A snapshot's reads (ChannelsRepository.snapshotRows) as one value, from a statement of another module. */
export interface SnapshotRead {
  channelName: string | null;
  rows: (StoredMessage & { repliesInWindow: number })[];
  /** The adjacent messages asked for: a read of another count is not this one. */
  limit: number;
}

/**
 * snapshotRows as one json value that another statement can carry (ContextRepository.loadTurn, whose
 * scope is its session row's columns): the channel's name and the `limit` top-level messages
 * before the anchor `messageId` (a visible message of the channel; null when there is none), with
 * their replies in the anchor's last hour (channels.service.ts lastHourWindow), each row a
 * messageArraySql array with its replies_in_window last. The times are the anchor's stored ts, which
 * the separate read's milliseconds stand for exactly. Read back with snapshotOfJson.
 */
export function snapshotJsonSql(
  columns: { [K in keyof ChannelScope]: ChannelScope[K] | SQL },
  messageId: string,
  limit: number,
): SQL {
  // Values or another statement's columns: drizzle interpolates both alike.
  const scope = columns as ChannelScope;
  const inner = topLevelBeforeSql({
    ...scope,
    at: sql`anchor_row.ts`,
    messageId: sql`anchor_row.message_id`,
    limit,
    repliesFrom: sql`anchor_row.ts - interval '1 hour'`,
    repliesTo: sql`anchor_row.ts`,
  });
  return sql`(select json_build_object(
      'channel_name', (select name from channels where ${scopeWhere(scope)}),
      'rows', coalesce((select json_agg(${messageArraySql('x', 'replies_in_window')}
        order by x.ts_ms desc, x.message_id desc) from (${inner}) x), '[]'::json))
    from channel_messages anchor_row
    where anchor_row.tenant_id = ${scope.tenantId} and anchor_row.platform = ${scope.platform}
      and anchor_row.channel_id = ${scope.channelId} and anchor_row.message_id = ${messageId}
      and not anchor_row.is_placeholder and anchor_row.deleted_at is null)`;
}

/** snapshotJsonSql's value as read back (json text or parsed, by driver); null when none was read. */
export function snapshotOfJson(value: unknown, limit: number): SnapshotRead | null {
  if (value === null || value === undefined) return null;
  const read = (typeof value === 'string' ? JSON.parse(value) : value) as {
    channel_name: string | null;
    /** messageArraySql arrays, replies_in_window last. */
    rows: unknown[][];
  };
  const rows = read.rows.map((r) => ({
    ...messageOfArray(r),
    repliesInWindow: Number(r[MESSAGE_ARRAY_MORE]),
  }));
  return { channelName: read.channel_name, rows, limit };
}

export function withRepliesInWindow(row: MessageRow & { replies_in_window: number }) {
  return { ...toMessage(row), repliesInWindow: Number(row.replies_in_window) };
}

/** A row limit written into the SQL text (an integer in [0, 1,000]), so generic plans see it. */
export const literalLimit = (n: number) =>
  Math.max(0, Math.min(1_000, Math.trunc(Number.isFinite(n) ? n : 0)));
