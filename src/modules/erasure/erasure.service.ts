// Erasing content (docs/api.md, "Erasing content"): a channel message's or a transcript entry's
// text removed from everywhere it is stored, in one transaction, leaving a tombstone in place of
// the content and an audit record (content_erasures) of who erased what and when. The lanes whose
// summaries held the text are compacted again once it has committed, from the scrubbed entries.
import type { Db, Executor } from '../../db/client.js';
import type { Clock, IdGenerator } from '../../shared/clock.js';
import { isUniqueViolation } from '../../shared/errors.js';
import type { IngestService } from '../channels/ingest.service.js';
import type { ChunksService } from '../memory/chunks.service.js';
import { ERASED_MARKER, contentTexts, storedForms, tombstoneContent } from './core/tombstone.js';
import type { ErasureRepository, ErasureRow } from './erasure.repository.js';
import { channelMessageNotFound, sessionNotFound, transcriptEntryNotFound } from './erasure.errors.js';
import type { ErasureReply } from './erasure.schemas.js';

interface ErasureActor {
  apiKeyId: string | null;
  apiKeyName: string | null;
}

type Lane = { session_id: string; session_key: string; lane_key: string };

export function createErasureService(deps: {
  db: Db;
  repo: ErasureRepository;
  ingest: Pick<IngestService, 'ingest'>;
  chunks: Pick<ChunksService, 'rebuildLanes'>;
  /** Compacts lanes whose summaries held the text (after the commit). */
  compactLanes: (p: { tenantId: string; sessionId: string; laneKeys: string[] }) => Promise<unknown>;
  clock: Clock;
  ids: IdGenerator;
  log?: { warn(obj: unknown, msg: string): void };
}) {
  const { db, repo } = deps;

  const view = (row: ErasureRow, already: boolean): ErasureReply => ({
    erasure: {
      id: row.id,
      target: row.target as ErasureReply['erasure']['target'],
      actor: row.actor as ErasureReply['erasure']['actor'],
      erased_at: row.erasedAt.toISOString(),
      touched: row.touched,
    },
    already_erased: already,
  });

  /** Every place but the target itself: entries quoting the texts, logs, replies, summaries, memories, chunks. */
  async function scrubEverywhere(
    tx: Executor,
    p: {
      tenantId: string;
      texts: string[];
      tombstones: { sessionId: string; seq: number; content: unknown }[];
    },
  ) {
    const forms = storedForms(p.texts);
    const entries = await repo.scrubEntries({ tenantId: p.tenantId, forms, tombstones: p.tombstones }, tx);
    const compactionRecords = await repo.scrubCompactionRecords(
      { tenantId: p.tenantId, lanes: entries.lanes },
      tx,
    );
    const payloadParts = await repo.scrubPayloadParts({ tenantId: p.tenantId, forms }, tx);
    const contextLog = await repo.scrubContextLog({ tenantId: p.tenantId, forms }, tx);
    const storedReplies = await repo.scrubStoredReplies({ tenantId: p.tenantId, forms }, tx);
    const lanes = await repo.scrubLanes(
      { tenantId: p.tenantId, forms, texts: p.texts, lanes: entries.lanes },
      tx,
    );
    const memories = await repo.scrubMemories({ tenantId: p.tenantId, forms }, tx);
    const chunkLanes = new Map<string, Lane>();
    for (const lane of [...entries.lanes, ...(await repo.chunkLanes({ tenantId: p.tenantId, forms }, tx))])
      chunkLanes.set(`${lane.session_id}\u0000${lane.lane_key}`, lane);
    await deps.chunks.rebuildLanes(tx, {
      tenantId: p.tenantId,
      lanes: [...chunkLanes.values()].map((l) => ({
        sessionId: l.session_id,
        sessionKey: l.session_key,
        laneKey: l.lane_key,
      })),
    });
    return {
      touched: {
        transcript_entries: entries.count,
        compaction_records: compactionRecords,
        payload_parts: payloadParts,
        context_log: contextLog,
        stored_replies: storedReplies,
        lane_summaries: lanes.filter((l) => l.summary !== null).length,
        memories,
        chunk_lanes: chunkLanes.size,
      },
      summarized: lanes.filter((l) => l.summary !== null),
    };
  }

  /** Runs one erase: the audit row is the idempotency record (a second erase answers the first). */
  async function erase(
    tenantId: string,
    target: { kind: string; key: string; view: Record<string, unknown> },
    actor: ErasureActor,
    work: (tx: Executor) => Promise<{ touched: Record<string, number>; summarized: Lane[] }>,
  ): Promise<ErasureReply> {
    const find = () => repo.find({ tenantId, targetKind: target.kind, targetKey: target.key });
    let summarized: Lane[] = [];
    let reply: ErasureReply;
    try {
      reply = await db.transaction(async (tx) => {
        const existing = await repo.find({ tenantId, targetKind: target.kind, targetKey: target.key }, tx);
        if (existing) return view(existing, true);
        const done = await work(tx);
        summarized = done.summarized;
        const row = await repo.insert(
          {
            tenantId,
            id: deps.ids.next(),
            targetKind: target.kind,
            targetKey: target.key,
            target: { kind: target.kind, ...target.view },
            actor: { api_key_id: actor.apiKeyId, api_key_name: actor.apiKeyName },
            touched: done.touched,
            erasedAt: deps.clock.now(),
          },
          tx,
        );
        return view(row, false);
      });
    } catch (error) {
      // Two erases of one target at once: the one that lost answers the one that committed.
      const existing = isUniqueViolation(error) ? await find() : null;
      if (!existing) throw error;
      return view(existing, true);
    }
    const bySession = new Map<string, string[]>();
    for (const lane of summarized)
      bySession.set(lane.session_id, [...(bySession.get(lane.session_id) ?? []), lane.lane_key]);
    for (const [sessionId, laneKeys] of bySession) {
      // The summary was scrubbed and marked stale in the erase; this rebuilds it now. A failure
      // (a compaction holding the session past the wait) queues the rebuild as a job.
      await deps.compactLanes({ tenantId, sessionId, laneKeys }).catch((error: unknown) => {
        deps.log?.warn({ err: error, session_id: sessionId }, 'summary rebuild after an erase deferred');
      });
    }
    return reply;
  }

  return {
    async eraseChannelMessage(p: {
      tenantId: string;
      platform: string;
      channelId: string;
      messageId: string;
      actor: ErasureActor;
    }): Promise<ErasureReply> {
      const ids = {
        tenantId: p.tenantId,
        platform: p.platform,
        channelId: p.channelId,
        messageId: p.messageId,
      };
      return erase(
        p.tenantId,
        {
          kind: 'channel_message',
          key: JSON.stringify([p.platform, p.channelId, p.messageId]),
          view: { platform: p.platform, channel_id: p.channelId, message_id: p.messageId },
        },
        p.actor,
        async (tx) => {
          const message = await repo.channelMessage(ids, tx);
          if (!message) throw channelMessageNotFound(p.messageId);
          const sources = await repo.sourceEntries(ids, tx);
          const texts = [
            ...new Set([message.text, ...sources.flatMap((e) => contentTexts(e.content))]),
          ].filter((t) => contentTexts(t).length > 0);
          // The message becomes a deleted one with nothing left to remember of its text.
          await repo.blankMessage(ids, tx);
          await deps.ingest.ingest(
            {
              tenantId: p.tenantId,
              events: [
                {
                  type: 'message.deleted',
                  platform: p.platform,
                  channel_id: p.channelId,
                  message_id: p.messageId,
                  ts: deps.clock.now().toISOString(),
                },
              ],
            },
            tx,
          );
          return scrubEverywhere(tx, {
            tenantId: p.tenantId,
            texts,
            tombstones: sources.map((e) => ({
              sessionId: e.session_id,
              seq: Number(e.seq),
              content: tombstoneContent(e.content),
            })),
          });
        },
      );
    },

    async eraseTranscriptEntry(p: {
      tenantId: string;
      sessionId: string;
      seq: number;
      actor: ErasureActor;
    }): Promise<ErasureReply> {
      return erase(
        p.tenantId,
        {
          kind: 'transcript_entry',
          key: JSON.stringify([p.sessionId, p.seq]),
          view: { session_id: p.sessionId, seq: p.seq },
        },
        p.actor,
        async (tx) => {
          if (!(await repo.sessionExists({ tenantId: p.tenantId, sessionId: p.sessionId }, tx)))
            throw sessionNotFound(p.sessionId);
          const entry = await repo.entry({ tenantId: p.tenantId, sessionId: p.sessionId, seq: p.seq }, tx);
          if (!entry) throw transcriptEntryNotFound(p.sessionId, p.seq);
          // A compaction record keeps its fields; its summary is what it said.
          const tombstone =
            entry.kind === 'compaction' && entry.content && typeof entry.content === 'object'
              ? { ...(entry.content as Record<string, unknown>), summary: ERASED_MARKER }
              : tombstoneContent(entry.content);
          return scrubEverywhere(tx, {
            tenantId: p.tenantId,
            texts: contentTexts(entry.content),
            tombstones: [{ sessionId: p.sessionId, seq: p.seq, content: tombstone }],
          });
        },
      );
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
