// SQL of compaction: a lane's turns to summarize, the compaction record appended to the transcript,
// the lane-summary memory and the running-compaction marker. The lane state it reads and commits
// (compare-and-set on its version) is lanes.repository.ts's.
import { createHash } from 'node:crypto';
import { and, asc, count, eq, getTableColumns, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { compactionRuns, contextLog, memories, sessions, transcriptEntries } from '../../db/schema.js';

const TURN_KINDS = ['message', 'context_attachment'];

/** The conditions of a session's compaction records. */
const compactionRecordsOf = (tenantId: string, sessionId: string) => [
  eq(transcriptEntries.tenantId, tenantId),
  eq(transcriptEntries.sessionId, sessionId),
  eq(transcriptEntries.kind, 'compaction'),
];

export function createCompactionRepository(db: Executor) {
  return {
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
      // The channel message a turn is (its source), as it is now: a summary rebuilt after an edit
      // or a delete reads the edited text or none (the transcript keeps what was said).
      const message = sql`(select m.deleted_at is not null as deleted, case when m.edited_at is not null
          then m.text end as text from channel_messages m
        where m.tenant_id = ${transcriptEntries.tenantId} and m.platform = ${transcriptEntries.source}->>'platform'
          and m.channel_id = ${transcriptEntries.source}->>'channel_id'
          and m.message_id = ${transcriptEntries.source}->>'message_id')`;
      const query = tx
        .select({
          ...getTableColumns(transcriptEntries),
          sourceDeleted: sql<boolean | null>`case when ${transcriptEntries.source} is null then null
            else (select x.deleted from ${message} as x) end`,
          sourceEditedText: sql<string | null>`case when ${transcriptEntries.source} is null then null
            else (select x.text from ${message} as x) end`,
        })
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
            ...compactionRecordsOf(params.tenantId, params.sessionId),
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
            ...compactionRecordsOf(params.tenantId, params.sessionId),
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
  };
}

export type CompactionRepository = ReturnType<typeof createCompactionRepository>;
