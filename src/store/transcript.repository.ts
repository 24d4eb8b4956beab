// Transcript entries: the append-only audit trail of a session, keyed (tenant, session, seq).
import { and, asc, eq, gt, gte, inArray, like, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { transcriptEntries } from '../db/schema.js';

export type TranscriptEntryRow = typeof transcriptEntries.$inferSelect;
export type NewTranscriptEntry = typeof transcriptEntries.$inferInsert;

export function createTranscriptRepository(db: Executor) {
  const ofSession = (tenantId: string, sessionId: string) =>
    and(eq(transcriptEntries.tenantId, tenantId), eq(transcriptEntries.sessionId, sessionId));
  return {
    async insertMany({ entries }: { entries: NewTranscriptEntry[] }, tx: Executor = db) {
      if (entries.length === 0) return [];
      return tx.insert(transcriptEntries).values(entries).returning();
    },

    /** Entries written by one idempotent request: key for the first, `key#i` for the others. */
    async findByIdempotencyKey(
      { tenantId, sessionId, key }: { tenantId: string; sessionId: string; key: string },
      tx: Executor = db,
    ) {
      return tx
        .select()
        .from(transcriptEntries)
        .where(
          and(
            ofSession(tenantId, sessionId),
            or(
              eq(transcriptEntries.idempotencyKey, key),
              like(transcriptEntries.idempotencyKey, `${escapeLike(key)}#%`),
            ),
          ),
        )
        .orderBy(asc(transcriptEntries.seq));
    },

    /** Which of these tool_use ids already appear in the session's assistant turns. */
    async findUsedToolIds(
      { tenantId, sessionId, ids }: { tenantId: string; sessionId: string; ids: string[] },
      tx: Executor = db,
    ): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await tx
        .select({ content: transcriptEntries.content })
        .from(transcriptEntries)
        .where(
          and(
            ofSession(tenantId, sessionId),
            eq(transcriptEntries.role, 'assistant'),
            or(
              ...ids.map(
                (id) =>
                  sql`${transcriptEntries.content} @> ${JSON.stringify([{ type: 'tool_use', id }])}::jsonb`,
              ),
            ),
          ),
        );
      const wanted = new Set(ids);
      const found = new Set<string>();
      for (const row of rows) {
        if (!Array.isArray(row.content)) continue;
        for (const block of row.content as { type?: string; id?: string }[]) {
          if (block.type === 'tool_use' && block.id && wanted.has(block.id)) found.add(block.id);
        }
      }
      return [...found];
    },

    /** A page of the transcript in seq order, starting after `afterSeq`. */
    async page(
      params: { tenantId: string; sessionId: string; afterSeq: number; limit: number; laneKey?: string },
      tx: Executor = db,
    ) {
      const conditions = [
        ofSession(params.tenantId, params.sessionId),
        gt(transcriptEntries.seq, params.afterSeq),
      ];
      if (params.laneKey !== undefined) conditions.push(eq(transcriptEntries.laneKey, params.laneKey));
      return tx
        .select()
        .from(transcriptEntries)
        .where(and(...conditions))
        .orderBy(asc(transcriptEntries.seq))
        .limit(params.limit);
    },

    /** Every entry of a lane from `fromSeq` on, in order (what assembly renders). */
    async laneEntries(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq?: number },
      tx: Executor = db,
    ) {
      return tx
        .select()
        .from(transcriptEntries)
        .where(
          and(
            ofSession(params.tenantId, params.sessionId),
            eq(transcriptEntries.laneKey, params.laneKey),
            gte(transcriptEntries.seq, params.fromSeq ?? 0),
          ),
        )
        .orderBy(asc(transcriptEntries.seq));
    },

    /** Sum of the token estimates of a lane's entries after `afterSeq`. */
    async laneTokensAfter(
      params: { tenantId: string; sessionId: string; laneKey: string; afterSeq: number },
      tx: Executor = db,
    ): Promise<number> {
      const [row] = await tx
        .select({ tokens: sql<number>`coalesce(sum(${transcriptEntries.tokenEstimate}), 0)::int` })
        .from(transcriptEntries)
        .where(
          and(
            ofSession(params.tenantId, params.sessionId),
            eq(transcriptEntries.laneKey, params.laneKey),
            gt(transcriptEntries.seq, params.afterSeq),
          ),
        );
      return Number(row?.tokens ?? 0);
    },

    async bySeqs(
      { tenantId, sessionId, seqs }: { tenantId: string; sessionId: string; seqs: number[] },
      tx: Executor = db,
    ) {
      if (seqs.length === 0) return [];
      return tx
        .select()
        .from(transcriptEntries)
        .where(and(ofSession(tenantId, sessionId), inArray(transcriptEntries.seq, seqs)))
        .orderBy(asc(transcriptEntries.seq));
    },
  };
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export type TranscriptRepository = ReturnType<typeof createTranscriptRepository>;
