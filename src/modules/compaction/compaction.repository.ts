// SQL of compaction: the lanes of a session with their sizes, the fenced commit of a lane state
// (compare-and-set on lane_states.version), the compaction record appended to the transcript, the
// lane-summary memory, the running-compaction marker, and the staleness marks of edits/deletes.
import { createHash } from 'node:crypto';
import { and, asc, count, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import {
  compactionRuns,
  contextLog,
  laneStates,
  memories,
  sessions,
  transcriptEntries,
} from '../../db/schema.js';

export type LaneStateRow = typeof laneStates.$inferSelect;

/** A lane of a session: its state (null before the first change) and its size since the first kept entry. */
export interface LaneSize {
  laneKey: string;
  /** Conversation turns (message/context_attachment) from first_kept_seq on. */
  entries: number;
  tokens: number;
  lastSeq: number;
}

export interface LaneCommit {
  tenantId: string;
  sessionId: string;
  laneKey: string;
  /** The version the compaction read; the commit applies only if the lane is still at it. */
  expectedVersion: number;
  summary: string | null;
  /** Raise summary_version (a new summary: the channel context is attached again). */
  newSummary: boolean;
  summarizedThroughSeq: number;
  firstKeptSeq: number;
  clearedBeforeSeq: number;
  at: Date;
}

const TURN_KINDS = ['message', 'context_attachment'];

export function createCompactionRepository(db: Executor) {
  const laneKeyOf = (tenantId: string, sessionId: string, laneKey: string) =>
    and(
      eq(laneStates.tenantId, tenantId),
      eq(laneStates.sessionId, sessionId),
      eq(laneStates.laneKey, laneKey),
    );

  return {
    /** Every lane of the session with its size from its first kept entry; one statement. */
    async laneSizes(
      { tenantId, sessionId, laneKeys }: { tenantId: string; sessionId: string; laneKeys?: string[] },
      tx: Executor = db,
    ): Promise<LaneSize[]> {
      const rows = await queryRows<{ lane_key: string; entries: number; tokens: number; last_seq: number }>(
        tx,
        sql`select e.lane_key, count(*)::int as entries, coalesce(sum(e.token_estimate), 0)::int as tokens,
              max(e.seq)::int as last_seq
            from transcript_entries e
            left join lane_states s on s.tenant_id = e.tenant_id and s.session_id = e.session_id
              and s.lane_key = e.lane_key
            where e.tenant_id = ${tenantId} and e.session_id = ${sessionId}
              and e.kind in ('message', 'context_attachment')
              and e.seq >= coalesce(s.first_kept_seq, 0)
              ${laneKeys ? sql`and e.lane_key in (select jsonb_array_elements_text(${JSON.stringify(laneKeys)}::jsonb))` : sql``}
            group by e.lane_key
            order by e.lane_key`,
      );
      return rows.map((r) => ({
        laneKey: r.lane_key,
        entries: Number(r.entries),
        tokens: Number(r.tokens),
        lastSeq: Number(r.last_seq),
      }));
    },

    /** The lane's state, created at version 0 when it has none (so the commit is always an update). */
    async ensureLaneState(
      {
        tenantId,
        sessionId,
        laneKey,
        at,
      }: { tenantId: string; sessionId: string; laneKey: string; at: Date },
      tx: Executor = db,
    ): Promise<LaneStateRow> {
      await tx
        .insert(laneStates)
        .values({ tenantId, sessionId, laneKey, updatedAt: at })
        .onConflictDoNothing();
      const [row] = await tx
        .select()
        .from(laneStates)
        .where(laneKeyOf(tenantId, sessionId, laneKey));
      return row!;
    },

    /** A lane's conversation entries in [fromSeq, toSeq), oldest first. */
    async laneTurns(
      params: {
        tenantId: string;
        sessionId: string;
        laneKey: string;
        fromSeq: number;
        toSeq?: number;
        limit?: number;
      },
      tx: Executor = db,
    ) {
      const query = tx
        .select()
        .from(transcriptEntries)
        .where(
          and(
            eq(transcriptEntries.tenantId, params.tenantId),
            eq(transcriptEntries.sessionId, params.sessionId),
            eq(transcriptEntries.laneKey, params.laneKey),
            inArray(transcriptEntries.kind, TURN_KINDS as ('message' | 'context_attachment')[]),
            sql`${transcriptEntries.seq} >= ${params.fromSeq}`,
            ...(params.toSeq !== undefined ? [lt(transcriptEntries.seq, params.toSeq)] : []),
          ),
        )
        .orderBy(asc(transcriptEntries.seq));
      return params.limit !== undefined ? query.limit(params.limit) : query;
    },

    /**
     * The lane version compare-and-set, which is the fence: rewrites the lane state only if it is
     * still at `expectedVersion`, and bumps the version. Null when another change got there first
     * (the caller commits nothing else). No lock token is checked: the lock is only a lease.
     */
    async commitLane(commit: LaneCommit, tx: Executor): Promise<LaneStateRow | null> {
      const [row] = await tx
        .update(laneStates)
        .set({
          summary: commit.summary,
          ...(commit.newSummary
            ? {
                summaryVersion: sql`${laneStates.summaryVersion} + 1`,
                summaryUpdatedAt: commit.at,
                summaryStale: false,
                purgeTexts: null,
              }
            : {}),
          summarizedThroughSeq: commit.summarizedThroughSeq,
          firstKeptSeq: commit.firstKeptSeq,
          clearedBeforeSeq: commit.clearedBeforeSeq,
          version: sql`${laneStates.version} + 1`,
          updatedAt: commit.at,
        })
        .where(
          and(
            laneKeyOf(commit.tenantId, commit.sessionId, commit.laneKey),
            eq(laneStates.version, commit.expectedVersion),
          ),
        )
        .returning();
      return row ?? null;
    },

    /**
     * Appends a compaction record to the transcript: the seq comes from the session row (whose
     * update takes its lock, as appends do), and compaction_count counts it.
     */
    async appendRecord(
      params: { tenantId: string; sessionId: string; laneKey: string; record: unknown; at: Date },
      tx: Executor,
    ): Promise<number | null> {
      const [session] = await tx
        .update(sessions)
        .set({
          nextSeq: sql`${sessions.nextSeq} + 1`,
          compactionCount: sql`${sessions.compactionCount} + 1`,
        })
        .where(and(eq(sessions.tenantId, params.tenantId), eq(sessions.id, params.sessionId)))
        .returning({ seq: sql<number>`${sessions.nextSeq} - 1` });
      if (!session) return null;
      const seq = Number(session.seq);
      await tx.insert(transcriptEntries).values({
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        seq,
        laneKey: params.laneKey,
        kind: 'compaction',
        role: null,
        content: params.record,
        tokenEstimate: 0,
        createdAt: params.at,
      });
      return seq;
    },

    /** Compaction records of a session (newest last), optionally of one lane. */
    async records(
      params: { tenantId: string; sessionId: string; laneKey?: string; afterSeq?: number },
      tx: Executor = db,
    ) {
      return tx
        .select()
        .from(transcriptEntries)
        .where(
          and(
            eq(transcriptEntries.tenantId, params.tenantId),
            eq(transcriptEntries.sessionId, params.sessionId),
            eq(transcriptEntries.kind, 'compaction'),
            gt(transcriptEntries.seq, params.afterSeq ?? 0),
            ...(params.laneKey !== undefined ? [eq(transcriptEntries.laneKey, params.laneKey)] : []),
          ),
        )
        .orderBy(asc(transcriptEntries.seq));
    },

    /** How many compaction records the lane has (counted, not read). */
    async recordCount(params: { tenantId: string; sessionId: string; laneKey: string }, tx: Executor = db) {
      const [row] = await tx
        .select({ n: count() })
        .from(transcriptEntries)
        .where(
          and(
            eq(transcriptEntries.tenantId, params.tenantId),
            eq(transcriptEntries.sessionId, params.sessionId),
            eq(transcriptEntries.kind, 'compaction'),
            eq(transcriptEntries.laneKey, params.laneKey),
          ),
        );
      return Number(row?.n ?? 0);
    },

    /**
     * The lane's summary as a session-scoped memory (type lane_summary), one record per lane,
     * replaced at every new summary, so other lanes' turns can retrieve it.
     */
    async upsertLaneSummaryMemory(
      params: {
        tenantId: string;
        id: string;
        sessionKey: string;
        laneKey: string;
        text: string;
        metadata: Record<string, unknown>;
        at: Date;
      },
      tx: Executor,
    ): Promise<void> {
      const textKey = createHash('sha256').update(`lane_summary\u0000${params.laneKey}`).digest('hex');
      await tx
        .insert(memories)
        .values({
          tenantId: params.tenantId,
          id: params.id,
          scope: 'session',
          scopeKey: params.sessionKey,
          type: 'lane_summary',
          text: params.text,
          textKey,
          metadata: params.metadata,
          source: 'compaction',
          createdAt: params.at,
          updatedAt: params.at,
        })
        .onConflictDoUpdate({
          target: [memories.tenantId, memories.scope, memories.scopeKey, memories.type, memories.textKey],
          set: { text: params.text, metadata: params.metadata, updatedAt: params.at },
        });
    },

    /** When the session's latest context call was made (the provider cache is warm for 5 min). */
    async lastCallAt(
      { tenantId, sessionId }: { tenantId: string; sessionId: string },
      tx: Executor = db,
    ): Promise<number | null> {
      const [row] = await tx
        .select({ at: sql<Date | string | null>`max(${contextLog.createdAt})` })
        .from(contextLog)
        .where(and(eq(contextLog.tenantId, tenantId), eq(contextLog.sessionId, sessionId)));
      return row?.at ? new Date(row.at).getTime() : null;
    },

    /** Marks this holder as the session's running compaction (replacing an expired holder's mark). */
    async claimRun(
      params: { tenantId: string; sessionId: string; token: string; at: Date },
      tx: Executor = db,
    ): Promise<void> {
      await tx
        .insert(compactionRuns)
        .values({ ...params, startedAt: params.at })
        .onConflictDoUpdate({
          target: [compactionRuns.tenantId, compactionRuns.sessionId],
          set: { token: params.token, startedAt: params.at },
        });
    },

    async releaseRun(
      params: { tenantId: string; sessionId: string; token: string },
      tx: Executor = db,
    ): Promise<void> {
      await tx
        .delete(compactionRuns)
        .where(
          and(
            eq(compactionRuns.tenantId, params.tenantId),
            eq(compactionRuns.sessionId, params.sessionId),
            eq(compactionRuns.token, params.token),
          ),
        );
    },

    async runningSince(
      { tenantId, sessionId }: { tenantId: string; sessionId: string },
      tx: Executor = db,
    ): Promise<Date | null> {
      const [row] = await tx
        .select({ startedAt: compactionRuns.startedAt })
        .from(compactionRuns)
        .where(and(eq(compactionRuns.tenantId, tenantId), eq(compactionRuns.sessionId, sessionId)));
      return row?.startedAt ?? null;
    },

    /**
     * Edits and deletes of channel messages: a lane whose summary covers a turn that is (or quotes)
     * one of them becomes stale; a lane whose sent history still holds a deleted text gets it in
     * `purge_texts`, so its next payload compacts first. Both bump the version, fencing out a
     * compaction that read the lane before. `needle` is a prefix of the old text long enough to
     * be specific (the snapshot quotes messages as snippets); JSON-escaped like jsonb's text form.
     */
    async markChangedMessages(
      params: {
        tenantId: string;
        changes: {
          platform: string;
          channelId: string;
          messageId: string;
          needle: string | null;
          deletedText: string | null;
        }[];
        at: Date;
      },
      tx: Executor,
    ): Promise<number> {
      if (params.changes.length === 0) return 0;
      const rows = await queryRows<{ n: number }>(
        tx,
        sql`with changed as (
              select * from jsonb_to_recordset(${JSON.stringify(params.changes)}::jsonb)
                as c("platform" text, "channelId" text, "messageId" text, "needle" text, "deletedText" text)
            ), hits as (
              select e.session_id, e.lane_key,
                bool_or(s.summary is not null and e.seq <= s.summarized_through_seq) as in_summary,
                bool_or(c."deletedText" is not null and e.seq >= coalesce(s.first_kept_seq, 0)) as in_view,
                coalesce(jsonb_agg(distinct c."deletedText") filter (where c."deletedText" is not null
                  and e.seq >= coalesce(s.first_kept_seq, 0)), '[]'::jsonb) as texts
              from changed c
              join sessions ss on ss.tenant_id = ${params.tenantId} and ss.platform = c."platform"
                and ss.channel_id = c."channelId"
              join transcript_entries e on e.tenant_id = ss.tenant_id and e.session_id = ss.id
                and e.kind in ('message', 'context_attachment')
                and ((e.source->>'platform' = c."platform" and e.source->>'channel_id' = c."channelId"
                      and e.source->>'message_id' = c."messageId")
                  or (c."needle" is not null and strpos(e.content::text, c."needle") > 0))
              left join lane_states s on s.tenant_id = e.tenant_id and s.session_id = e.session_id
                and s.lane_key = e.lane_key
              group by e.session_id, e.lane_key
            )
            insert into lane_states as l (tenant_id, session_id, lane_key, summary_stale, purge_texts, version, updated_at)
            select ${params.tenantId}::text, h.session_id, h.lane_key, h.in_summary,
              case when h.in_view then h.texts end, 1, ${params.at.toISOString()}::timestamptz
            from hits h where h.in_summary or h.in_view
            on conflict (tenant_id, session_id, lane_key) do update set
              summary_stale = l.summary_stale or excluded.summary_stale,
              purge_texts = case when excluded.purge_texts is null then l.purge_texts
                else coalesce(l.purge_texts, '[]'::jsonb) || excluded.purge_texts end,
              version = l.version + 1,
              updated_at = excluded.updated_at
            returning 1 as n`,
      );
      return rows.length;
    },
  };
}

export type CompactionRepository = ReturnType<typeof createCompactionRepository>;
