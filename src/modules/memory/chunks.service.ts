// Transcript-chunk indexing: incremental on every append (only the lane's newest chunk and the new
// turns are re-read, never the whole transcript), and local rebuilds when a channel message that
// a turn is gets edited or deleted.
import type { Clock } from '../../shared/clock.js';
import { purgeNeedle, scrubText } from '../../shared/scrub-texts.js';
import { buildLaneChunks, editedText, entryText, type ChunkEntry } from './core/chunks.js';
import { redactText } from './core/redaction.js';
import type { Executor } from '../../db/client.js';
import type { ChunkSourceEntry, ChunksRepository } from './chunks.repository.js';

/** What the chunker needs of an appended transcript entry. */
interface AppendedEntry {
  seq: number;
  laneKey: string;
  kind: string;
}

function toChunkEntry(row: ChunkSourceEntry): ChunkEntry {
  // The turn's text is redacted as it is read (entryText, editedText); texts to scrub are looked for
  // as said and as redacted.
  const said = row.message_deleted
    ? ''
    : row.edited_text !== null
      ? editedText(row.edited_text)
      : entryText(row.content);
  const scrub = row.scrub_texts ?? [];
  const text = scrub.length > 0 ? scrubText(said, [...scrub, ...scrub.map(redactText)]) : said;
  return { seq: row.seq, laneKey: row.lane_key, role: row.role, text, author: row.author_name, at: row.at };
}

export function createChunksService(deps: { chunks: ChunksRepository; clock: Clock }) {
  const { chunks, clock } = deps;

  /** Re-chunks one lane's entries in [fromSeq, toSeq] (to the end when toSeq is absent). */
  async function rechunk(
    tx: Executor,
    p: {
      tenantId: string;
      sessionId: string;
      sessionKey: string;
      laneKey: string;
      fromSeq: number;
      toSeq?: number;
    },
  ): Promise<void> {
    const rows = await chunks.laneEntries(p, tx);
    await chunks.deleteRange(p, tx);
    await chunks.insertMany(
      {
        tenantId: p.tenantId,
        sessionId: p.sessionId,
        sessionKey: p.sessionKey,
        chunks: buildLaneChunks(rows.map(toChunkEntry)),
        at: clock.now(),
      },
      tx,
    );
  }

  return {
    /**
     * Indexes entries just appended (inside the append transaction): per lane, the newest chunk is
     * rebuilt together with the new turns, so an open turn pair gets its reply.
     */
    async indexTranscriptEntries(
      tx: Executor,
      params: { tenantId: string; sessionId: string; sessionKey: string; entries: readonly AppendedEntry[] },
    ): Promise<void> {
      const firstNewSeq = new Map<string, number>();
      for (const entry of params.entries) {
        if (entry.kind !== 'message') continue;
        const seen = firstNewSeq.get(entry.laneKey);
        if (seen === undefined || entry.seq < seen) firstNewSeq.set(entry.laneKey, entry.seq);
      }
      for (const [laneKey, newSeq] of [...firstNewSeq].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const lastStart = await chunks.lastChunkStart(
          { tenantId: params.tenantId, sessionId: params.sessionId, laneKey },
          tx,
        );
        const fromSeq = lastStart !== null && lastStart < newSeq ? lastStart : newSeq;
        await rechunk(tx, { ...params, laneKey, fromSeq });
      }
    },

    /**
     * Channel messages were edited or deleted: the chunks holding the turns that are those messages,
     * or that quote a deleted one, are rebuilt over their own seq range (a deleted message's text
     * leaves the index; the lane's scrub_texts, written just before, scrub the quotes).
     */
    async onChannelMessagesChanged(
      tx: Executor,
      params: {
        tenantId: string;
        messages: {
          platform: string;
          channelId: string;
          messageId: string;
          previousText?: string | null;
          deleted?: boolean;
        }[];
      },
    ): Promise<number> {
      const spans = await chunks.spansForMessages(
        {
          tenantId: params.tenantId,
          messages: params.messages.map((m) => {
            const needle = m.deleted && m.previousText ? purgeNeedle(m.previousText) : null;
            return {
              platform: m.platform,
              channelId: m.channelId,
              messageId: m.messageId,
              // As it appears inside jsonb's text form (strings are JSON-escaped there).
              needle: needle ? JSON.stringify(needle).slice(1, -1) : null,
            };
          }),
        },
        tx,
      );
      for (const span of spans) {
        await rechunk(tx, {
          tenantId: params.tenantId,
          sessionId: span.session_id,
          sessionKey: span.session_key,
          laneKey: span.lane_key,
          fromSeq: Number(span.first_seq),
          toSeq: Number(span.last_seq),
        });
      }
      return spans.length;
    },

    /** Whole lanes re-chunked from their first entry (after an erase rewrote entries). */
    async rebuildLanes(
      tx: Executor,
      params: { tenantId: string; lanes: { sessionId: string; sessionKey: string; laneKey: string }[] },
    ): Promise<number> {
      for (const lane of params.lanes) await rechunk(tx, { tenantId: params.tenantId, ...lane, fromSeq: 0 });
      return params.lanes.length;
    },

    /** A session was deleted: its chunks go with it. */
    async removeSessionChunks(
      tx: Executor,
      params: { tenantId: string; sessionId: string },
    ): Promise<number> {
      return chunks.deleteSession(params, tx);
    },
  };
}

export type ChunksService = ReturnType<typeof createChunksService>;
