// Transcript chunks: the searchable turn pairs of each session lane, and the transcript reads the
// chunker needs (entries joined with the channel message they are, so edits and deletes show).
import { and, eq, gte, lte, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { sharedStatement, slot } from '../../db/prepared.js';
import { IN_BLOCK, TURN_BLOCKS } from '../../db/turn-blocks.js';
import { transcriptChunks } from '../../db/schema.js';
import type { TranscriptChunk } from './core/chunks.js';

export type ChunkSourceEntry = {
  seq: number;
  lane_key: string;
  role: 'user' | 'assistant' | null;
  content: unknown;
  author_name: string | null;
  at: Date;
  /** The channel message this turn is, when it was deleted (then the turn is left out). */
  message_deleted: boolean;
  /** The channel message's current text when it was edited after the turn was stored. */
  edited_text: string | null;
  /** Deleted texts the lane's entries hold (lane_states.scrub_texts): left out of every chunk. */
  scrub_texts: string[] | null;
};

export type AdjacentChunk = {
  hit_id: string;
  id: string;
  lane_key: string;
  first_seq: number;
  last_seq: number;
  text: string;
  end_ts: string;
};

type ChunkSpan = {
  session_id: string;
  session_key: string;
  lane_key: string;
  first_seq: number;
  last_seq: number;
};

/**
 * spansForMessages' statement, built once (it runs in every ingest transaction with an edit or
 * delete). The turns that are or quote the messages first, then their chunks: joined the other
 * way round (every turn of the tenant against its lane's chunks, the OR of the two matches
 * evaluated last) it cost ~170 ms a batch in a tenant holding 1,600 turns. The channel's turns are
 * read once, with their text form; a needle is looked for in their texts joined by blocks of a
 * session's turns, and only in a block where it is found, turn by turn, as markChangedMessages
 * does (every needle against every turn: ~5.8 ms → ~3.3 ms).
 */
const spansStatement = sharedStatement<ChunkSpan>(
  () => sql`with m as materialized (
            select * from jsonb_to_recordset(${slot('messages')}::jsonb)
              as m("platform" text, "channelId" text, "messageId" text, "needle" text)
          ), turns as materialized (
            select e.session_id, e.lane_key, e.seq, ss.platform, ss.channel_id, e.content::text as body
            from sessions ss
            join transcript_entries e on e.tenant_id = ss.tenant_id and e.session_id = ss.id and e.kind = 'message'
            where ss.tenant_id = ${slot('tenantId')} and exists (select from m where m."needle" is not null
              and m."platform" = ss.platform and m."channelId" = ss.channel_id)
          ), ${TURN_BLOCKS}, found as materialized (
            select m."needle", b.session_id, b.block from m
            join turn_blocks b on b.platform = m."platform" and b.channel_id = m."channelId"
              and strpos(b.body, m."needle") > 0
          ), hits as (
            select e.session_id, e.lane_key, e.seq from m
            join transcript_entries e on e.tenant_id = ${slot('tenantId')} and e.source->>'platform' = m."platform"
              and e.source->>'channel_id' = m."channelId" and e.source->>'message_id' = m."messageId"
            union
            select t.session_id, t.lane_key, t.seq from found f
            join turns t on ${IN_BLOCK}
              and strpos(t.body, f."needle") > 0
          )
          select distinct c.session_id::text as session_id, c.session_key, c.lane_key, c.first_seq, c.last_seq
          from hits e
          join transcript_chunks c on c.tenant_id = ${slot('tenantId')} and c.session_id = e.session_id
            and c.lane_key = e.lane_key and e.seq between c.first_seq and c.last_seq
          order by 1, 3, 4`,
);

export function createChunksRepository(db: Executor) {
  return {
    /** first_seq of the lane's newest chunk, or null when the lane has none. */
    async lastChunkStart(
      { tenantId, sessionId, laneKey }: { tenantId: string; sessionId: string; laneKey: string },
      tx: Executor = db,
    ): Promise<number | null> {
      const [row] = await queryRows<{ first_seq: number | null }>(
        tx,
        sql`select max(first_seq) as first_seq from transcript_chunks
          where tenant_id = ${tenantId} and session_id = ${sessionId} and lane_key = ${laneKey}`,
      );
      return row?.first_seq === null || row?.first_seq === undefined ? null : Number(row.first_seq);
    },

    /** Message entries of one lane with seq in [fromSeq, toSeq], with their channel message's state. */
    async laneEntries(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number; toSeq?: number },
      tx: Executor = db,
    ): Promise<ChunkSourceEntry[]> {
      const rows = await queryRows<ChunkSourceEntry & { at: string | Date }>(
        tx,
        sql`select e.seq, e.lane_key, e.role, e.content, e.author->>'name' as author_name,
            coalesce(e.turn_at, e.created_at) as at,
            (m.deleted_at is not null) as message_deleted,
            case when m.edited_at is not null then m.text end as edited_text,
            (select s.scrub_texts from lane_states s where s.tenant_id = e.tenant_id
              and s.session_id = e.session_id and s.lane_key = e.lane_key) as scrub_texts
          from transcript_entries e
          left join channel_messages m
            on m.tenant_id = e.tenant_id and m.platform = e.source->>'platform'
            and m.channel_id = e.source->>'channel_id' and m.message_id = e.source->>'message_id'
          where e.tenant_id = ${params.tenantId} and e.session_id = ${params.sessionId}
            and e.lane_key = ${params.laneKey} and e.kind = 'message' and e.seq >= ${params.fromSeq}
            ${params.toSeq !== undefined ? sql`and e.seq <= ${params.toSeq}` : sql``}
          order by e.seq`,
      );
      return rows.map((r) => ({ ...r, seq: Number(r.seq), at: new Date(r.at) }));
    },

    /**
     * The chunks just before and just after each of these chunks (`session_id:first_seq`, as search
     * returns them) in its session's lane: the exchange before a hit and the one after it.
     */
    async adjacentChunks(
      params: { tenantId: string; ids: string[] },
      tx: Executor = db,
    ): Promise<AdjacentChunk[]> {
      if (params.ids.length === 0) return [];
      const rows = await queryRows<Omit<AdjacentChunk, 'end_ts'> & { end_ts: string | Date }>(
        tx,
        sql`with h as (
            select v as id, split_part(v, ':', 1)::uuid as session_id, split_part(v, ':', 2)::int as first_seq
            from jsonb_array_elements_text(${JSON.stringify(params.ids)}::jsonb) v)
          select h.id as hit_id, n.session_id::text || ':' || n.first_seq as id, n.lane_key,
            n.first_seq, n.last_seq, n.text, coalesce(n.end_ts, n.created_at) as end_ts
          from h
          join transcript_chunks a
            on a.tenant_id = ${params.tenantId} and a.session_id = h.session_id and a.first_seq = h.first_seq
          cross join lateral (
            (select * from transcript_chunks p where p.tenant_id = a.tenant_id and p.session_id = a.session_id
              and p.lane_key = a.lane_key and p.first_seq < a.first_seq order by p.first_seq desc limit 1)
            union all
            (select * from transcript_chunks x where x.tenant_id = a.tenant_id and x.session_id = a.session_id
              and x.lane_key = a.lane_key and x.first_seq > a.first_seq order by x.first_seq asc limit 1)
          ) n
          order by h.id, n.first_seq`,
      );
      return rows.map((r) => ({
        hit_id: r.hit_id,
        id: r.id,
        lane_key: r.lane_key,
        first_seq: Number(r.first_seq),
        last_seq: Number(r.last_seq),
        text: r.text,
        end_ts: new Date(r.end_ts).toISOString(),
      }));
    },

    /** Deletes the lane's chunks starting in [fromSeq, toSeq]. */
    async deleteRange(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number; toSeq?: number },
      tx: Executor = db,
    ): Promise<void> {
      await tx
        .delete(transcriptChunks)
        .where(
          and(
            eq(transcriptChunks.tenantId, params.tenantId),
            eq(transcriptChunks.sessionId, params.sessionId),
            eq(transcriptChunks.laneKey, params.laneKey),
            gte(transcriptChunks.firstSeq, params.fromSeq),
            params.toSeq !== undefined ? lte(transcriptChunks.firstSeq, params.toSeq) : undefined,
          ),
        );
    },

    async insertMany(
      params: {
        tenantId: string;
        sessionId: string;
        sessionKey: string;
        chunks: TranscriptChunk[];
        at: Date;
      },
      tx: Executor = db,
    ): Promise<void> {
      if (params.chunks.length === 0) return;
      await tx.insert(transcriptChunks).values(
        params.chunks.map((c) => ({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          sessionKey: params.sessionKey,
          laneKey: c.laneKey,
          firstSeq: c.firstSeq,
          lastSeq: c.lastSeq,
          text: c.text,
          startTs: c.startTs,
          endTs: c.endTs,
          createdAt: params.at,
        })),
      );
    },

    /**
     * Chunks holding turns that are these channel messages, and, for a message with a `needle`
     * (a deleted text's, JSON-escaped like jsonb's text form), turns of the channel's sessions
     * that quote it.
     */
    async spansForMessages(
      params: {
        tenantId: string;
        messages: { platform: string; channelId: string; messageId: string; needle?: string | null }[];
      },
      tx: Executor = db,
    ): Promise<ChunkSpan[]> {
      if (params.messages.length === 0) return [];
      return spansStatement(tx, { tenantId: params.tenantId, messages: JSON.stringify(params.messages) });
    },

    async deleteSession({ tenantId, sessionId }: { tenantId: string; sessionId: string }, tx: Executor = db) {
      const rows = await tx
        .delete(transcriptChunks)
        .where(and(eq(transcriptChunks.tenantId, tenantId), eq(transcriptChunks.sessionId, sessionId)))
        .returning({ seq: transcriptChunks.firstSeq });
      return rows.length;
    },
  };
}

export type ChunksRepository = ReturnType<typeof createChunksRepository>;
