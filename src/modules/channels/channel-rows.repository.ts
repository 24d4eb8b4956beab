// The channel tables as the channel repositories read and write them: row shapes, the message
// columns and their mapping, and the SQL fragments both sides use. Times cross the boundary as
// epoch milliseconds so both drivers read them alike.
import { sql, type SQL } from 'drizzle-orm';

import { reactionStateOf, type MessageState } from './core/ingest-apply.js';
import type { MediaRefInput } from '../../shared/channel-events.js';

export interface ChannelScope {
  tenantId: string;
  platform: string;
  channelId: string;
}

/** A stored message as the read side sees it (placeholders are never returned). */
export type StoredMessage = MessageState;

export interface ChannelRef {
  platform: string;
  channelId: string;
}

export interface MessageRef extends ChannelRef {
  messageId: string;
}

export interface ChannelRow {
  platform: string;
  channelId: string;
  name: string | null;
  kind: string | null;
  firstTs: number | null;
  lastTs: number | null;
}

export interface ChannelUpsert {
  platform: string;
  channelId: string;
  name?: string;
  kind?: string;
  firstTs?: number;
  lastTs?: number;
}

export const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;
export const epochMs = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;

export const MESSAGE_COLUMNS = sql`platform, channel_id, message_id, thread_id, reply_to_id, topic_id, lane_key,
  ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, author_is_bot, text, reactions, media,
  reply_count, ${epochMs(sql`last_reply_ts`)} as last_reply_ms, ${epochMs(sql`edited_at`)} as edited_ms,
  ${epochMs(sql`media_edited_at`)} as media_edited_ms,
  ${epochMs(sql`deleted_at`)} as deleted_ms, is_placeholder, token_estimate, metadata, reaction_state`;

export interface MessageRow extends Record<string, unknown> {
  platform: string;
  channel_id: string;
  message_id: string;
  thread_id: string | null;
  reply_to_id: string | null;
  topic_id: string | null;
  lane_key: string;
  ts_ms: number;
  author_id: string | null;
  author_name: string | null;
  author_is_bot: boolean;
  text: string;
  reactions: Record<string, number>;
  media: MediaRefInput[];
  reply_count: number;
  last_reply_ms: number | null;
  edited_ms: number | null;
  media_edited_ms: number | null;
  deleted_ms: number | null;
  is_placeholder: boolean;
  token_estimate: number;
  metadata: Record<string, unknown>;
  reaction_state: unknown;
}

export function toMessage(row: MessageRow): StoredMessage {
  return {
    platform: row.platform,
    channelId: row.channel_id,
    messageId: row.message_id,
    threadId: row.thread_id,
    replyToId: row.reply_to_id,
    topicId: row.topic_id,
    laneKey: row.lane_key,
    ts: Number(row.ts_ms),
    authorId: row.author_id,
    authorName: row.author_name,
    authorIsBot: row.author_is_bot,
    text: row.text,
    reactions: row.reactions ?? {},
    media: row.media ?? [],
    replyCount: Number(row.reply_count),
    lastReplyTs: row.last_reply_ms === null ? null : Number(row.last_reply_ms),
    editedAt: row.edited_ms === null ? null : Number(row.edited_ms),
    mediaEditedAt: row.media_edited_ms === null ? null : Number(row.media_edited_ms),
    deletedAt: row.deleted_ms === null ? null : Number(row.deleted_ms),
    isPlaceholder: row.is_placeholder,
    tokenEstimate: Number(row.token_estimate),
    metadata: row.metadata ?? {},
    reactionState: reactionStateOf(row.reaction_state),
  };
}

/** MESSAGE_COLUMNS' names in their order: the places of a message's values in messageArraySql's array. */
export const MESSAGE_FIELDS = [
  'platform',
  'channel_id',
  'message_id',
  'thread_id',
  'reply_to_id',
  'topic_id',
  'lane_key',
  'ts_ms',
  'author_id',
  'author_name',
  'author_is_bot',
  'text',
  'reactions',
  'media',
  'reply_count',
  'last_reply_ms',
  'edited_ms',
  'media_edited_ms',
  'deleted_ms',
  'is_placeholder',
  'token_estimate',
  'metadata',
  'reaction_state',
] as const;

/**
 * The MESSAGE_COLUMNS of the subquery `alias` (then its columns `more`) as one json array, in
 * MESSAGE_FIELDS order, for messages carried inside another statement's json value: a json object
 * spelled the 23 column names out again for every message, more than half of a snapshot's bytes,
 * which PostgreSQL wrote and Node parsed on every context call. Read back with messageOfArray.
 */
export const messageArraySql = (alias: string, ...more: string[]) =>
  sql.raw(`json_build_array(${[...MESSAGE_FIELDS, ...more].map((f) => `${alias}.${f}`).join(', ')})`);

/** A messageArraySql array as toMessage maps a MessageRow: the same values, by place. */
export function messageOfArray(v: readonly unknown[]): StoredMessage {
  return {
    platform: v[0] as string,
    channelId: v[1] as string,
    messageId: v[2] as string,
    threadId: v[3] as string | null,
    replyToId: v[4] as string | null,
    topicId: v[5] as string | null,
    laneKey: v[6] as string,
    ts: Number(v[7]),
    authorId: v[8] as string | null,
    authorName: v[9] as string | null,
    authorIsBot: v[10] as boolean,
    text: v[11] as string,
    reactions: (v[12] as Record<string, number> | null) ?? {},
    media: (v[13] as MediaRefInput[] | null) ?? [],
    replyCount: Number(v[14]),
    lastReplyTs: v[15] === null ? null : Number(v[15]),
    editedAt: v[16] === null ? null : Number(v[16]),
    mediaEditedAt: v[17] === null ? null : Number(v[17]),
    deletedAt: v[18] === null ? null : Number(v[18]),
    isPlaceholder: v[19] as boolean,
    tokenEstimate: Number(v[20]),
    metadata: (v[21] as Record<string, unknown> | null) ?? {},
    reactionState: reactionStateOf(v[22]),
  };
}

/** Where a messageArraySql array's `more` columns start. */
export const MESSAGE_ARRAY_MORE = MESSAGE_FIELDS.length;

/**
 * A real message (no placeholder) as one json value (messageArraySql), or null: a scalar
 * expression, so another statement can read it (ContextRepository.loadTurn); `messageFromJson`
 * reads it back as getMessages would have returned it.
 */
export const messageJsonSql = (scope: ChannelScope, messageId: string) =>
  sql`(select ${messageArraySql('a')} from (select ${MESSAGE_COLUMNS} from channel_messages
    where ${scopeWhere(scope)} and message_id = ${messageId} and not is_placeholder) a)`;

export const messageFromJson = (value: unknown): StoredMessage | null =>
  value === null || value === undefined
    ? null
    : messageOfArray((typeof value === 'string' ? JSON.parse(value) : value) as unknown[]);

export const scopeWhere = (s: ChannelScope) =>
  sql`tenant_id = ${s.tenantId} and platform = ${s.platform} and channel_id = ${s.channelId}`;
/** A text[] of ids as one jsonb parameter; `col = any(…)` keeps index scans (an IN subquery would hash-join a seq scan). */
export const idArray = (ids: string[]) => sql`array(select jsonb_array_elements_text(${json(ids)}))`;
/** Rows a reader may see: real messages, tombstones excluded. */
export const visible = sql`not is_placeholder and deleted_at is null`;
/** Not inside a thread (a thread root counts as top level). */
export const topLevel = sql`(thread_id is null or thread_id = message_id)`;

/** What ranking needs of a search match; full rows are loaded for the winners only. */
export interface SearchCandidate {
  messageId: string;
  ts: number;
  authorId: string | null;
  authorName: string | null;
  replyCount: number;
  reactions: Record<string, number>;
  textRank: number;
  matchedTerms: boolean[];
}

/** A search candidate's columns as selected (message_id, ts_ms, author_id, author_name, reply_count, reactions). */
export type CandidateRow = {
  message_id: string;
  ts_ms: number;
  author_id: string | null;
  author_name: string | null;
  reply_count: number;
  reactions: Record<string, number>;
};

/** A candidate from its row, with its text rank and which terms it matched. */
export const toCandidate = (
  row: CandidateRow,
  textRank: number,
  matchedTerms: boolean[],
): SearchCandidate => ({
  messageId: row.message_id,
  ts: Number(row.ts_ms),
  authorId: row.author_id,
  authorName: row.author_name,
  replyCount: Number(row.reply_count),
  reactions: row.reactions ?? {},
  textRank,
  matchedTerms,
});
