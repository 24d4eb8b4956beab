// Channel messages, channels and ingest dedupe records: all the SQL of ingest, the channel read
// endpoints and channel search. Bulk writes go through jsonb_to_recordset (one parameter, either
// driver); times cross the boundary as epoch milliseconds so both drivers read them alike.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, unprepared, type Executor } from '../../db/client.js';
import { TEXT_SEARCH_CONFIG } from '../../db/schema.js';
import type { MessageMetadata, MessageState } from './core/ingest-apply.js';
import type { MediaRefInput } from './core/channel-events.js';

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

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;
const epochMs = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;

const MESSAGE_COLUMNS = sql`platform, channel_id, message_id, thread_id, reply_to_id, topic_id, lane_key,
  ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, author_is_bot, text, reactions, media,
  reply_count, ${epochMs(sql`last_reply_ts`)} as last_reply_ms, ${epochMs(sql`edited_at`)} as edited_ms,
  ${epochMs(sql`deleted_at`)} as deleted_ms, is_placeholder, token_estimate, metadata`;

interface MessageRow extends Record<string, unknown> {
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
  deleted_ms: number | null;
  is_placeholder: boolean;
  token_estimate: number;
  metadata: MessageMetadata;
}

function toMessage(row: MessageRow): StoredMessage {
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
    deletedAt: row.deleted_ms === null ? null : Number(row.deleted_ms),
    isPlaceholder: row.is_placeholder,
    tokenEstimate: Number(row.token_estimate),
    metadata: row.metadata ?? {},
  };
}

const scopeWhere = (s: ChannelScope) =>
  sql`tenant_id = ${s.tenantId} and platform = ${s.platform} and channel_id = ${s.channelId}`;
/** A text[] of ids as one jsonb parameter; `col = any(…)` keeps index scans (an IN subquery would hash-join a seq scan). */
const idArray = (ids: string[]) => sql`array(select jsonb_array_elements_text(${json(ids)}))`;
/** Rows a reader may see: real messages, tombstones excluded. */
const visible = sql`not is_placeholder and deleted_at is null`;
/** Not inside a thread (a thread root counts as top level). */
const topLevel = sql`(thread_id is null or thread_id = message_id)`;

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

export function createChannelsRepository(db: Executor) {
  return {
    /**
     * Serializes ingest per channel for the rest of the transaction (read-modify-write of rows).
     * All of a batch's channels in one statement, in a fixed order, so two batches cannot deadlock.
     */
    async lockChannels({ tenantId, channels }: { tenantId: string; channels: ChannelRef[] }, tx: Executor) {
      const keys = channels.map((c) => JSON.stringify(['ingest', tenantId, c.platform, c.channelId]));
      await tx.execute(
        sql`select pg_advisory_xact_lock(h) from (
              select distinct hashtextextended(k, 0) as h from jsonb_array_elements_text(${json(keys)}) as k order by 1) s`,
      );
    },

    /**
     * Rows (placeholders included) by (platform, channel, id), across channels, plus the stored
     * parent (thread root, else the message replied to; see core/ingest-apply parentOf) of every
     * row found, in one statement: ingest needs both, and a second round trip would be spent
     * holding the batch's channel locks. One primary-key probe per key.
     */
    async loadMessagesWithParents(
      { tenantId, keys }: { tenantId: string; keys: MessageRef[] },
      tx: Executor = db,
    ): Promise<StoredMessage[]> {
      if (keys.length === 0) return [];
      const unique = new Map(keys.map((k) => [JSON.stringify([k.platform, k.channelId, k.messageId]), k]));
      const records = [...unique.values()].map((k) => ({ p: k.platform, c: k.channelId, id: k.messageId }));
      const rows = await queryRows<MessageRow>(
        tx,
        sql`with found as materialized (
              select m.* from jsonb_to_recordset(${json(records)}) as r(p text, c text, id text)
              cross join lateral (select ${MESSAGE_COLUMNS} from channel_messages
                where tenant_id = ${tenantId} and platform = r.p and channel_id = r.c and message_id = r.id) m
            )
            select * from found
            union all
            select p.* from found f
            cross join lateral (select ${MESSAGE_COLUMNS} from channel_messages
              where tenant_id = ${tenantId} and platform = f.platform and channel_id = f.channel_id
                and message_id = case
                  when f.thread_id is not null and f.thread_id <> f.message_id then f.thread_id
                  when f.reply_to_id is not null and f.reply_to_id <> f.message_id then f.reply_to_id
                end) p`,
      );
      const byKey = new Map(
        rows.map((row) => [`${row.platform}\u0000${row.channel_id}\u0000${row.message_id}`, row]),
      );
      return [...byKey.values()].map(toMessage);
    },

    /** Reply links of the given messages and their stored ancestors, up to `maxHops` deep, across channels. */
    async loadReplyChains(
      { tenantId, keys, maxHops }: { tenantId: string; keys: MessageRef[]; maxHops: number },
      tx: Executor = db,
    ): Promise<
      { platform: string; channelId: string; messageId: string; replyToId: string | null; laneKey: string }[]
    > {
      if (keys.length === 0) return [];
      const records = keys.map((k) => ({ p: k.platform, c: k.channelId, id: k.messageId }));
      const rows = await queryRows<{
        platform: string;
        channel_id: string;
        message_id: string;
        reply_to_id: string | null;
        lane_key: string;
      }>(
        tx,
        sql`with recursive chain(platform, channel_id, message_id, reply_to_id, lane_key, depth) as (
              select m.platform, m.channel_id, m.message_id, m.reply_to_id, m.lane_key, 1
                from jsonb_to_recordset(${json(records)}) as r(p text, c text, id text)
                join channel_messages m on m.tenant_id = ${tenantId} and m.platform = r.p
                 and m.channel_id = r.c and m.message_id = r.id
              union all
              select m.platform, m.channel_id, m.message_id, m.reply_to_id, m.lane_key, chain.depth + 1
                from chain join channel_messages m
                  on m.tenant_id = ${tenantId} and m.platform = chain.platform
                 and m.channel_id = chain.channel_id and m.message_id = chain.reply_to_id
               -- a message already in a reply lane names its root: no need to climb further
               where chain.depth < ${maxHops} and chain.lane_key not like 'reply:%')
            select distinct platform, channel_id, message_id, reply_to_id, lane_key from chain`,
      );
      return rows.map((r) => ({
        platform: r.platform,
        channelId: r.channel_id,
        messageId: r.message_id,
        replyToId: r.reply_to_id,
        laneKey: r.lane_key,
      }));
    },

    async upsertMessages(
      { tenantId, messages }: { tenantId: string; messages: MessageState[] },
      tx: Executor,
    ) {
      if (messages.length === 0) return;
      const records = messages.map((m) => ({
        platform: m.platform,
        channel_id: m.channelId,
        message_id: m.messageId,
        thread_id: m.threadId,
        reply_to_id: m.replyToId,
        topic_id: m.topicId,
        lane_key: m.laneKey,
        ts: m.ts,
        author_id: m.authorId,
        author_name: m.authorName,
        author_is_bot: m.authorIsBot,
        text: m.text,
        reactions: m.reactions,
        media: m.media,
        reply_count: m.replyCount,
        last_reply_ts: m.lastReplyTs,
        edited_at: m.editedAt,
        deleted_at: m.deletedAt,
        is_placeholder: m.isPlaceholder,
        token_estimate: m.tokenEstimate,
        metadata: m.metadata,
      }));
      const at = (column: string) =>
        sql.raw(`case when r.${column} is null then null else to_timestamp(r.${column} / 1000.0) end`);
      await tx.execute(sql`
        insert into channel_messages (tenant_id, platform, channel_id, message_id, thread_id, reply_to_id, topic_id,
          lane_key, ts, author_id, author_name, author_is_bot, text, reactions, media, reply_count, last_reply_ts,
          edited_at, deleted_at, is_placeholder, token_estimate, metadata)
        select ${tenantId}, r.platform, r.channel_id, r.message_id, r.thread_id, r.reply_to_id, r.topic_id, r.lane_key,
          ${at('ts')}, r.author_id, r.author_name, r.author_is_bot, r.text, r.reactions, r.media, r.reply_count,
          ${at('last_reply_ts')}, ${at('edited_at')}, ${at('deleted_at')}, r.is_placeholder, r.token_estimate, r.metadata
        from jsonb_to_recordset(${json(records)}) as r(platform text, channel_id text, message_id text, thread_id text,
          reply_to_id text, topic_id text, lane_key text, ts float8, author_id text, author_name text,
          author_is_bot boolean, text text, reactions jsonb, media jsonb, reply_count int, last_reply_ts float8,
          edited_at float8, deleted_at float8, is_placeholder boolean, token_estimate int, metadata jsonb)
        on conflict (tenant_id, platform, channel_id, message_id) do update set
          thread_id = excluded.thread_id, reply_to_id = excluded.reply_to_id, topic_id = excluded.topic_id,
          lane_key = excluded.lane_key, ts = excluded.ts, author_id = excluded.author_id,
          author_name = excluded.author_name, author_is_bot = excluded.author_is_bot, text = excluded.text,
          reactions = excluded.reactions, media = excluded.media, reply_count = excluded.reply_count,
          last_reply_ts = excluded.last_reply_ts, edited_at = excluded.edited_at, deleted_at = excluded.deleted_at,
          is_placeholder = excluded.is_placeholder, token_estimate = excluded.token_estimate,
          metadata = excluded.metadata`);
    },

    /** Renames a lane for every stored message in it (a late parent joined a longer reply chain). */
    async renameLane({ tenantId, from, to }: { tenantId: string; from: string; to: string }, tx: Executor) {
      await tx.execute(
        sql`update channel_messages set lane_key = ${to} where tenant_id = ${tenantId} and lane_key = ${from}`,
      );
    },

    async upsertChannels(
      { tenantId, channels }: { tenantId: string; channels: ChannelUpsert[] },
      tx: Executor,
    ) {
      if (channels.length === 0) return;
      const records = channels.map((c) => ({
        platform: c.platform,
        channel_id: c.channelId,
        name: c.name ?? null,
        kind: c.kind ?? null,
        first_ts: c.firstTs ?? null,
        last_ts: c.lastTs ?? null,
      }));
      await tx.execute(sql`
        insert into channels (tenant_id, platform, channel_id, name, kind, first_ts, last_ts)
        select ${tenantId}, r.platform, r.channel_id, r.name, r.kind,
          case when r.first_ts is null then null else to_timestamp(r.first_ts / 1000.0) end,
          case when r.last_ts is null then null else to_timestamp(r.last_ts / 1000.0) end
        from jsonb_to_recordset(${json(records)}) as r(platform text, channel_id text, name text, kind text,
          first_ts float8, last_ts float8)
        on conflict (tenant_id, platform, channel_id) do update set
          name = coalesce(excluded.name, channels.name), kind = coalesce(excluded.kind, channels.kind),
          first_ts = least(channels.first_ts, excluded.first_ts), last_ts = greatest(channels.last_ts, excluded.last_ts)`);
    },

    /**
     * Records event ids; returns the ones not seen before (the rest are duplicates). The retention
     * job forgets ids older than INGEST_DEDUPE_WINDOW_MS (`retention.deleteIngestEvents`).
     */
    async recordEventIds(
      { tenantId, source, eventIds, at }: { tenantId: string; source: string; eventIds: string[]; at: Date },
      tx: Executor,
    ): Promise<Set<string>> {
      if (eventIds.length === 0) return new Set();
      const rows = await queryRows<{ event_id: string }>(
        tx,
        sql`insert into ingest_events (tenant_id, source, event_id, received_at)
            select ${tenantId}, ${source}, x, ${at.toISOString()}::timestamptz from jsonb_array_elements_text(${json(eventIds)}) as x
            on conflict do nothing returning event_id`,
      );
      return new Set(rows.map((r) => r.event_id));
    },

    // ---- read side -------------------------------------------------------------------------

    async getChannel(scope: ChannelScope, tx: Executor = db): Promise<ChannelRow | null> {
      const [row] = await queryRows<{
        name: string | null;
        kind: string | null;
        first_ms: number | null;
        last_ms: number | null;
      }>(
        tx,
        sql`select name, kind, ${epochMs(sql`first_ts`)} as first_ms, ${epochMs(sql`last_ts`)} as last_ms
            from channels where ${scopeWhere(scope)}`,
      );
      if (!row) return null;
      return {
        platform: scope.platform,
        channelId: scope.channelId,
        name: row.name,
        kind: row.kind,
        firstTs: row.first_ms === null ? null : Number(row.first_ms),
        lastTs: row.last_ms === null ? null : Number(row.last_ms),
      };
    },

    /** Real messages by id (placeholders left out; deleted ones kept as tombstones). */
    async getMessages(scope: ChannelScope & { ids: string[] }, tx: Executor = db): Promise<StoredMessage[]> {
      if (scope.ids.length === 0) return [];
      const rows = await queryRows<MessageRow>(
        tx,
        sql`select ${MESSAGE_COLUMNS} from channel_messages
            where ${scopeWhere(scope)} and message_id = any(${idArray(scope.ids)}) and not is_placeholder`,
      );
      return rows.map(toMessage);
    },

    /** Any row by id, placeholders included (a thread root that has not arrived yet). */
    async getRow(
      scope: ChannelScope & { messageId: string },
      tx: Executor = db,
    ): Promise<StoredMessage | null> {
      const [row] = await queryRows<MessageRow>(
        tx,
        sql`select ${MESSAGE_COLUMNS} from channel_messages where ${scopeWhere(scope)} and message_id = ${scope.messageId}`,
      );
      return row ? toMessage(row) : null;
    },

    /** The `limit` visible top-level messages strictly before (ts, id), newest first. */
    async topLevelBefore(
      scope: ChannelScope & {
        ts: number;
        messageId: string;
        limit: number;
        repliesFrom: number;
        repliesTo: number;
      },
      tx: Executor = db,
    ): Promise<(StoredMessage & { repliesInWindow: number })[]> {
      // Replies in (repliesFrom, repliesTo] counted in the same round trip, only for rows that
      // have replies: one scalar subquery on the thread index, one on the lane index.
      const window = sql`r.ts > to_timestamp(${scope.repliesFrom} / 1000.0) and r.ts <= to_timestamp(${scope.repliesTo} / 1000.0)
        and not r.is_placeholder and r.deleted_at is null`;
      const rows = await queryRows<MessageRow & { replies_in_window: number }>(
        tx,
        sql`select m.*, case when m.reply_count = 0 then 0 else
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
                    and (ts, message_id) < (to_timestamp(${scope.ts} / 1000.0), ${scope.messageId})
                  order by ts desc, message_id desc limit ${scope.limit}) m`,
      );
      return rows.map((row) => ({ ...toMessage(row), repliesInWindow: Number(row.replies_in_window) }));
    },

    /**
     * Replies of a thread, oldest first: messages in the thread (thread_id) or in the root's reply
     * lane. `newest` keeps only that many most recent ones; tombstones are left out.
     */
    async threadReplies(
      scope: ChannelScope & { rootId: string; replyLane: string; newest?: number },
      tx: Executor = db,
    ): Promise<{ replies: StoredMessage[]; total: number; oldestTs: number | null }> {
      const where = sql`${scopeWhere(scope)} and ${visible} and message_id <> ${scope.rootId}
        and (thread_id = ${scope.rootId} or (tenant_id = ${scope.tenantId} and lane_key = ${scope.replyLane}))`;
      const limit = scope.newest === undefined ? sql`` : sql`limit ${scope.newest}`;
      const rows = await queryRows<MessageRow>(
        tx,
        sql`select ${MESSAGE_COLUMNS} from channel_messages where ${where} order by ts desc, message_id desc ${limit}`,
      );
      const replies = rows.map(toMessage).reverse();
      let total = rows.length;
      let oldestTs = replies[0]?.ts ?? null;
      if (scope.newest !== undefined && rows.length === scope.newest) {
        const [count] = await queryRows<{ n: number; oldest_ms: number | null }>(
          tx,
          sql`select count(*)::int as n, ${epochMs(sql`min(ts)`)} as oldest_ms from channel_messages where ${where}`,
        );
        total = Number(count?.n ?? rows.length);
        oldestTs =
          count?.oldest_ms === null || count?.oldest_ms === undefined ? oldestTs : Number(count.oldest_ms);
      }
      return { replies, total, oldestTs };
    },

    /** Visible messages in [since, until), ascending by (ts, id), after a cursor. */
    async listMessages(
      scope: ChannelScope & {
        since?: number;
        until?: number;
        after?: { ts: number; messageId: string };
        limit: number;
        topLevelOnly?: boolean;
      },
      tx: Executor = db,
    ): Promise<StoredMessage[]> {
      const conditions = [scopeWhere(scope), visible];
      if (scope.since !== undefined) conditions.push(sql`ts >= to_timestamp(${scope.since} / 1000.0)`);
      if (scope.until !== undefined) conditions.push(sql`ts < to_timestamp(${scope.until} / 1000.0)`);
      if (scope.after) {
        conditions.push(
          sql`(ts, message_id) > (to_timestamp(${scope.after.ts} / 1000.0), ${scope.after.messageId})`,
        );
      }
      if (scope.topLevelOnly) conditions.push(topLevel);
      const rows = await queryRows<MessageRow>(
        tx,
        sql`select ${MESSAGE_COLUMNS} from channel_messages where ${sql.join(conditions, sql` and `)}
            order by ts asc, message_id asc limit ${scope.limit}`,
      );
      return rows.map(toMessage);
    },

    /**
     * Full-text candidates for channel search: messages matching any term, newest first, capped
     * at `limit` so ranking cost stays bounded. Terms go in as parameters of plainto_tsquery, so
     * no input can change the query's structure.
     */
    async searchCandidates(
      scope: ChannelScope & { terms: string[]; since?: number; laneKey?: string; limit: number },
      tx: Executor = db,
    ): Promise<SearchCandidate[]> {
      const config = sql.raw(`'${TEXT_SEARCH_CONFIG}'`);
      const perTerm = scope.terms.map((t) => sql`plainto_tsquery(${config}, ${t})`);
      const query = sql.join(perTerm, sql` || `);
      const conditions = [scopeWhere(scope), visible, sql`tsv @@ (${query})`];
      if (scope.since !== undefined) conditions.push(sql`ts >= to_timestamp(${scope.since} / 1000.0)`);
      if (scope.laneKey) conditions.push(sql`lane_key = ${scope.laneKey}`);
      const matched = sql.join(
        perTerm.map((q) => sql`tsv @@ ${q}`),
        sql`, `,
      );
      const rows = await queryRows<{
        message_id: string;
        ts_ms: number;
        author_id: string | null;
        author_name: string | null;
        reply_count: number;
        reactions: Record<string, number>;
        text_rank: number;
        matched: boolean[] | string;
      }>(
        tx,
        // Unprepared: the text varies with the number of terms, and the best plan with their rarity.
        unprepared(
          sql`select message_id, ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, reply_count, reactions,
              ts_rank_cd(tsv, (${query}), 1 | 32)::float8 as text_rank, array[${matched}] as matched
            from (select message_id, ts, author_id, author_name, reply_count, reactions, tsv from channel_messages
                  where ${sql.join(conditions, sql` and `)} order by ts desc limit ${scope.limit}) c`,
        ),
      );
      return rows.map((row) => ({
        messageId: row.message_id,
        ts: Number(row.ts_ms),
        authorId: row.author_id,
        authorName: row.author_name,
        replyCount: Number(row.reply_count),
        reactions: row.reactions ?? {},
        textRank: Number(row.text_rank),
        matchedTerms: parseBoolArray(row.matched),
      }));
    },

    /** Recent visible messages as candidates (search with no usable terms), newest first. */
    async recentCandidates(
      scope: ChannelScope & { since?: number; laneKey?: string; limit: number },
      tx: Executor = db,
    ): Promise<SearchCandidate[]> {
      const conditions = [scopeWhere(scope), visible];
      if (scope.since !== undefined) conditions.push(sql`ts >= to_timestamp(${scope.since} / 1000.0)`);
      if (scope.laneKey) conditions.push(sql`lane_key = ${scope.laneKey}`);
      const rows = await queryRows<{
        message_id: string;
        ts_ms: number;
        author_id: string | null;
        author_name: string | null;
        reply_count: number;
        reactions: Record<string, number>;
      }>(
        tx,
        sql`select message_id, ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, reply_count, reactions
            from channel_messages where ${sql.join(conditions, sql` and `)} order by ts desc limit ${scope.limit}`,
      );
      return rows.map((row) => ({
        messageId: row.message_id,
        ts: Number(row.ts_ms),
        authorId: row.author_id,
        authorName: row.author_name,
        replyCount: Number(row.reply_count),
        reactions: row.reactions ?? {},
        textRank: 0,
        matchedTerms: [],
      }));
    },

    /** Distinct author names per thread root (for thread summaries of search results). */
    async threadParticipants(
      scope: ChannelScope & { rootIds: string[]; perThread: number },
      tx: Executor = db,
    ): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (scope.rootIds.length === 0) return out;
      const lanes = scope.rootIds.map((id) => `reply:${scope.channelId}:${id}`);
      const rows = await queryRows<{ root: string; name: string }>(
        tx,
        sql`select root, name from (
              select root, name, min(first_ts) as first_ts from (
                select thread_id as root, coalesce(author_name, author_id) as name, ts as first_ts
                from channel_messages
                where ${scopeWhere(scope)} and ${visible} and thread_id = any(${idArray(scope.rootIds)})
                  and message_id <> thread_id
                union all
                select substr(lane_key, ${`reply:${scope.channelId}:`.length + 1}), coalesce(author_name, author_id), ts
                from channel_messages
                where tenant_id = ${scope.tenantId} and lane_key = any(${idArray(lanes)}) and ${visible}
                  and platform = ${scope.platform} and channel_id = ${scope.channelId} and thread_id is null) r
              group by 1, 2) p
            where name is not null order by root, first_ts, name`,
      );
      for (const row of rows) {
        const names = out.get(row.root) ?? [];
        if (names.length < scope.perThread) names.push(row.name);
        out.set(row.root, names);
      }
      return out;
    },
  };
}

function parseBoolArray(value: boolean[] | string): boolean[] {
  if (Array.isArray(value)) return value.map((v) => v === true || (v as unknown) === 't');
  // postgres.js may hand back the array literal `{t,f}`.
  return value
    .replace(/[{}]/g, '')
    .split(',')
    .map((v) => v === 't' || v === 'true');
}

export type ChannelsRepository = ReturnType<typeof createChannelsRepository>;
