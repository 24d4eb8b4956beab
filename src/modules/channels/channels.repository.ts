// Channel messages and channels: the SQL of the channel read endpoints and channel search, plus
// ingest's (channel-ingest.repository.ts) under one repository.
import { sql } from 'drizzle-orm';
import { queryRows, unprepared, type Executor } from '../../db/client.js';
import { builtStatements, rawStatement, rowsOf, slot } from '../../db/prepared.js';
import { TEXT_SEARCH_CONFIG } from '../../db/schema.js';

import {
  epochMs,
  MESSAGE_COLUMNS,
  toMessage,
  scopeWhere,
  idArray,
  visible,
  topLevel,
  type ChannelRow,
  type ChannelScope,
  toCandidate,
  type CandidateRow,
  type SearchCandidate,
  type StoredMessage,
  type MessageRow,
} from './channel-rows.repository.js';
import { createChannelIngestRepository } from './channel-ingest.repository.js';
import { threadRepliesWhere } from './thread-rows.repository.js';
import {
  literalLimit,
  topLevelBeforeMsSql,
  withRepliesInWindow,
  type TopLevelScope,
} from './snapshot-rows.repository.js';

export type {
  ChannelRef,
  ChannelRow,
  ChannelScope,
  ChannelUpsert,
  MessageRef,
  SearchCandidate,
  StoredMessage,
} from './channel-rows.repository.js';

const built = builtStatements();

/** snapshotRows' statement for a `limit` (a literal, so the planner sees it). */
export function snapshotRowsStatement(executor: Executor, limit: number) {
  const slots = {
    tenantId: slot('tenantId'),
    platform: slot('platform'),
    channelId: slot('channelId'),
    ts: slot<number>('ts'),
    messageId: slot('messageId'),
    limit,
    repliesFrom: slot<number>('repliesFrom'),
    repliesTo: slot<number>('repliesTo'),
  };
  return rawStatement<MessageRow & { replies_in_window: number; channel_name: string | null }>(
    executor,
    sql`select (select name from channels where ${scopeWhere(slots)}) as channel_name, x.*
      from (select 1) as one left join lateral (${topLevelBeforeMsSql(slots)}) x on true`,
  );
}

/**
 * What neighbour expansion reads of a message (context.retrieve.ts: its text, author, time and
 * lane; the reader's wrappers add directory names and redaction): none of the row's jsonb
 * (reactions, media, metadata, reaction state), which up to 400 rows a call would parse for nothing.
 */
const NEIGHBOUR_COLUMNS = sql`platform, message_id, lane_key, ${epochMs(sql`ts`)} as ts_ms, author_id,
  author_name, author_is_bot, text`;

type NeighbourRow = Pick<
  MessageRow,
  'platform' | 'message_id' | 'lane_key' | 'ts_ms' | 'author_id' | 'author_name' | 'author_is_bot' | 'text'
> & { hit_id: string; before: boolean };

/** A retrieval hit's neighbour as neighbour expansion reads it. */
export type NeighbourMessage = Pick<
  StoredMessage,
  'platform' | 'messageId' | 'laneKey' | 'ts' | 'authorId' | 'authorName' | 'authorIsBot' | 'text'
> & { hitId: string; distance: number };

/**
 * neighbours' statement, built once per executor: the ids as one jsonb array, the rest as values.
 * Each side of a hit is its own ORDER BY … LIMIT, nearest first, run for that hit by one nested-loop
 * iteration, so the reader numbers each (hit, side)'s rows as they come (neighbourDistances): a
 * row_number() per side was a window aggregate run again for every hit, ~14% of the statement.
 */
export function neighboursStatement(executor: Executor) {
  const near = (op: '<' | '>') => {
    const order = sql.raw(op === '<' ? 'desc' : 'asc');
    return sql`(select ${NEIGHBOUR_COLUMNS}, ${sql.raw(op === '<' ? 'true' : 'false')} as before
          from channel_messages d
          where d.tenant_id = a.tenant_id and d.platform = a.platform and d.channel_id = a.channel_id
            and not d.is_placeholder and d.deleted_at is null and d.lane_key = a.lane_key
            and (d.ts, d.message_id) ${sql.raw(op)} (a.ts, a.message_id)
            and d.ts ${sql.raw(op === '<' ? '>=' : '<=')} a.ts ${sql.raw(op === '<' ? '-' : '+')} ${slot<number>('withinMs')} * interval '1 millisecond'
          order by d.ts ${order}, d.message_id ${order} limit ${slot<number>('span')})`;
  };
  return rawStatement<NeighbourRow>(
    executor,
    sql`select n.*, a.message_id as hit_id from channel_messages a
      cross join lateral (${near('<')} union all ${near('>')}) n
      where a.tenant_id = ${slot('tenantId')} and a.platform = ${slot('platform')}
        and a.channel_id = ${slot('channelId')}
        and a.message_id = any(array(select jsonb_array_elements_text(${slot('ids')}::jsonb)))`,
  );
}

/**
 * Each neighbour's distance from its hit (1: the nearest): its place among the rows of the same hit
 * and side, in the order neighboursStatement returns them (each side nearest first). Counted per
 * (hit, side), not by adjacency: rows of other hits may come between (a parallel plan's Gather
 * interleaves its workers' rows), never out of order within one side.
 */
export function neighbourDistances(rows: readonly { hit_id: string; before: unknown }[]): number[] {
  const seen = new Map<string, number>();
  return rows.map((row) => {
    const key = `${String(row.before)}\u0000${row.hit_id}`;
    const distance = (seen.get(key) ?? 0) + 1;
    seen.set(key, distance);
    return distance;
  });
}

export function createChannelsRepository(db: Executor) {
  return {
    ...createChannelIngestRepository(db),

    // ---- read side -------------------------------------------------------------------------

    /**
     * Rows read elsewhere (another module's statement) as the read side returns them: as they are
     * here; with the user directory's names once wrapped (named-reads.ts).
     */
    async withNames<T extends StoredMessage>(_tenantId: string, rows: T[]): Promise<T[]> {
      return rows;
    },

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
      scope: TopLevelScope,
      tx: Executor = db,
    ): Promise<(StoredMessage & { repliesInWindow: number })[]> {
      const rows = await queryRows<MessageRow & { replies_in_window: number }>(
        tx,
        topLevelBeforeMsSql(scope),
      );
      return rows.map(withRepliesInWindow);
    },

    /**
     * A snapshot's reads in one statement: the channel's name beside topLevelBefore's rows (one
     * row of nulls beside the name when there are none).
     */
    async snapshotRows(
      scope: TopLevelScope,
      tx: Executor = db,
    ): Promise<{ channelName: string | null; rows: (StoredMessage & { repliesInWindow: number })[] }> {
      const limit = literalLimit(scope.limit);
      const statement = built(tx, `snapshot:${limit}`, (executor) => snapshotRowsStatement(executor, limit));
      const rows = await rowsOf(
        statement.execute({
          tenantId: scope.tenantId,
          platform: scope.platform,
          channelId: scope.channelId,
          ts: scope.ts,
          messageId: scope.messageId,
          repliesFrom: scope.repliesFrom,
          repliesTo: scope.repliesTo,
        }),
      );
      return {
        channelName: rows[0]?.channel_name ?? null,
        rows: rows.filter((r) => r.message_id !== null).map(withRepliesInWindow),
      };
    },

    /**
     * For each hit (by id): the `span` visible messages just before and just after it in its lane,
     * each within `withinMs` of it (a continuation of the same exchange), read through the channel's
     * time index. Hits themselves may come back as each other's neighbours.
     */
    async neighbours(
      scope: ChannelScope & { ids: string[]; withinMs: number; span: number },
      tx: Executor = db,
    ): Promise<NeighbourMessage[]> {
      if (scope.ids.length === 0) return [];
      const rows = await rowsOf(
        built(tx, 'neighbours', neighboursStatement).execute({
          tenantId: scope.tenantId,
          platform: scope.platform,
          channelId: scope.channelId,
          ids: JSON.stringify(scope.ids),
          withinMs: scope.withinMs,
          span: scope.span,
        }),
      );
      const distances = neighbourDistances(rows);
      return rows.map((row, i) => ({
        platform: row.platform,
        messageId: row.message_id,
        laneKey: row.lane_key,
        ts: Number(row.ts_ms),
        authorId: row.author_id,
        authorName: row.author_name,
        authorIsBot: row.author_is_bot,
        text: row.text,
        hitId: row.hit_id,
        distance: distances[i]!,
      }));
    },

    /**
     * Replies of a thread, oldest first: messages in the thread (thread_id) or in the root's reply
     * lane. `newest` keeps only that many most recent ones; tombstones are left out.
     */
    async threadReplies(
      scope: ChannelScope & { rootId: string; replyLane: string; newest?: number },
      tx: Executor = db,
    ): Promise<{ replies: StoredMessage[]; total: number; oldestTs: number | null }> {
      const where = threadRepliesWhere(scope, scope.rootId, scope.replyLane);
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
      const rows = await queryRows<CandidateRow & { text_rank: number; matched: boolean[] | string }>(
        tx,
        // Unprepared: the text varies with the number of terms, and the best plan with their rarity.
        unprepared(
          sql`select message_id, ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, reply_count, reactions,
              ts_rank_cd(tsv, (${query}), 1 | 32)::float8 as text_rank, array[${matched}] as matched
            from (select message_id, ts, author_id, author_name, reply_count, reactions, tsv from channel_messages
                  where ${sql.join(conditions, sql` and `)} order by ts desc limit ${scope.limit}) c`,
        ),
      );
      return rows.map((row) => toCandidate(row, Number(row.text_rank), parseBoolArray(row.matched)));
    },

    /** Recent visible messages as candidates (search with no usable terms), newest first. */
    async recentCandidates(
      scope: ChannelScope & { since?: number; laneKey?: string; limit: number },
      tx: Executor = db,
    ): Promise<SearchCandidate[]> {
      const conditions = [scopeWhere(scope), visible];
      if (scope.since !== undefined) conditions.push(sql`ts >= to_timestamp(${scope.since} / 1000.0)`);
      if (scope.laneKey) conditions.push(sql`lane_key = ${scope.laneKey}`);
      const rows = await queryRows<CandidateRow>(
        tx,
        sql`select message_id, ${epochMs(sql`ts`)} as ts_ms, author_id, author_name, reply_count, reactions
            from channel_messages where ${sql.join(conditions, sql` and `)} order by ts desc limit ${scope.limit}`,
      );
      return rows.map((row) => toCandidate(row, 0, []));
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
