// The SQL of a thread's replies: the messages in a thread (thread_id) or in its root's reply lane,
// as a statement of their own (ChannelsRepository.threadReplies) or, with the thread's root found
// from an anchor message and the root's row, as one json value another statement carries
// (ContextRepository.loadTurn).
import { sql, type SQL } from 'drizzle-orm';
import {
  epochMs,
  MESSAGE_COLUMNS,
  messageArraySql,
  messageOfArray,
  scopeWhere,
  visible,
  type ChannelScope,
  type StoredMessage,
} from './channel-rows.repository.js';
import { PLATFORM_REPLY_COUNT } from '../../platforms/history.js';

type Columns<T> = { [K in keyof T]: T[K] | SQL };

/** The replies of the thread `rootId` (its reply lane `replyLane`): values or another statement's columns. */
export function threadRepliesWhere(
  scope: Columns<ChannelScope>,
  rootId: string | SQL,
  replyLane: string | SQL,
) {
  const s = scope as ChannelScope;
  return sql`${scopeWhere(s)} and ${visible} and message_id <> ${rootId}
    and (thread_id = ${rootId} or (tenant_id = ${s.tenantId} and lane_key = ${replyLane}))`;
}

/** A thread's replies as read for a context call (ThreadRead rows: newest first, at most `newest`). */
export interface ThreadRead {
  /** The thread's root, as channels.service.ts threadRootFor finds it from the anchor. */
  rootId: string;
  /** The replies asked for: a read of another count is not this one. */
  newest: number;
  /** The root's row (placeholders included, as ChannelsRepository.getRow reads it); null: none stored. */
  root: StoredMessage | null;
  /** Oldest first, as ChannelsRepository.threadReplies returns them. */
  replies: StoredMessage[];
  total: number;
  oldestTs: number | null;
}

/**
 * The thread an anchor message belongs to or starts, and its replies, as one json value (null when
 * the anchor is in no thread, is missing or deleted; messages as messageArraySql arrays):
 * channels.service.ts threadRootFor in SQL (a
 * thread or topic id, else the root of its reply lane, else the anchor itself when it has replies or
 * the platform says it has), the root's row, the `newest` most recent replies, and their count and
 * oldest time when there may be more (ChannelsRepository.threadReplies' second read). The reader
 * checks the root against threadRootFor before using it. Read back with threadOfJson. `offset 0`
 * keeps the replies' subquery from being pulled up into the outer select, where each of its two uses
 * (the rows and their count) ran the replies' read again.
 */
export function threadJsonSql(scope: Columns<ChannelScope>, messageId: string, newest: number | SQL): SQL {
  const s = scope as ChannelScope;
  const rootId = sql`t.root_id`;
  const where = threadRepliesWhere(scope, rootId, sql`'reply:' || t.channel_id || ':' || t.root_id`);
  const prefix = sql`'reply:' || a.channel_id || ':'`;
  return sql`(select json_build_object(
      'root_id', t.root_id,
      'root', (select ${messageArraySql('r')} from (select ${MESSAGE_COLUMNS} from channel_messages
        where ${scopeWhere(s)} and message_id = ${rootId}) r),
      'rows', t.rows,
      'count', case when json_array_length(t.rows) = ${newest} then (select json_build_object('n', count(*)::int,
        'oldest_ms', ${epochMs(sql`min(ts)`)}) from channel_messages where ${where}) end)
    from (select t.channel_id, t.root_id, coalesce((select json_agg(${messageArraySql('x')}) from (select ${MESSAGE_COLUMNS}
          from channel_messages where ${where} order by ts desc, message_id desc limit ${newest}) x), '[]'::json) as rows
      from (select a.channel_id, coalesce(a.thread_id, a.topic_id,
          case when starts_with(a.lane_key, ${prefix}) then substr(a.lane_key, length(${prefix}) + 1) end,
          case when a.reply_count > 0 or (jsonb_typeof(a.metadata -> '${sql.raw(PLATFORM_REPLY_COUNT)}') = 'number'
            and (a.metadata ->> '${sql.raw(PLATFORM_REPLY_COUNT)}')::numeric > 0) then a.message_id end) as root_id
        from channel_messages a
        where a.tenant_id = ${s.tenantId} and a.platform = ${s.platform} and a.channel_id = ${s.channelId}
          and a.message_id = ${messageId} and not a.is_placeholder and a.deleted_at is null) t
      where t.root_id is not null offset 0) t)`;
}

/** threadJsonSql's value as read back (json text or parsed, by driver); null when none was read. */
export function threadOfJson(value: unknown, newest: number): ThreadRead | null {
  if (value === null || value === undefined) return null;
  const read = (typeof value === 'string' ? JSON.parse(value) : value) as {
    root_id: string;
    /** messageArraySql arrays. */
    root: unknown[] | null;
    rows: unknown[][];
    count: { n: number; oldest_ms: number | null } | null;
  };
  const replies = read.rows.map(messageOfArray).reverse();
  return {
    rootId: read.root_id,
    newest,
    root: read.root ? messageOfArray(read.root) : null,
    replies,
    total: read.count ? Number(read.count.n) : replies.length,
    oldestTs:
      read.count && read.count.oldest_ms !== null ? Number(read.count.oldest_ms) : (replies[0]?.ts ?? null),
  };
}
