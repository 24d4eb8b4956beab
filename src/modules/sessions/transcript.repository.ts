// Transcript entries: the append-only audit trail of a session, keyed (tenant, session, seq).
import { and, asc, eq, gt, gte, inArray, like, or, sql } from 'drizzle-orm';
import { OFFLOAD_REFERENCE_START, offloadReferenceEnd } from './core/offload.js';
import type { Executor } from '../../db/client.js';
import { builtStatements, slot } from '../../db/prepared.js';
import { transcriptEntries } from '../../db/schema.js';

export type TranscriptEntryRow = typeof transcriptEntries.$inferSelect;
export type NewTranscriptEntry = typeof transcriptEntries.$inferInsert;

const built = builtStatements();

/** laneEntriesFrom's statement: a lane's entries from seq `from` on, in seq order. */
export function laneEntriesFromStatement(executor: Executor) {
  return executor
    .select()
    .from(transcriptEntries)
    .where(
      and(
        ofSession(slot('tenantId'), slot('sessionId')),
        eq(transcriptEntries.laneKey, slot('laneKey')),
        gte(transcriptEntries.seq, slot<number>('from')),
      ),
    )
    .orderBy(asc(transcriptEntries.seq))
    .prepare('lane_entries_from');
}

/** What laneEntriesFrom reads, as one json value another statement can carry (ContextRepository.loadTurn). */
export interface LaneEntriesRead {
  /** The entries from `max(fromSeq, atSeq)`, in seq order. */
  rows: TranscriptEntryRow[];
}

/**
 * laneEntriesFrom's read as a scalar json expression (a json array of row_to_json of each entry);
 * laneEntriesOfJson reads it back as drizzle reads the rows.
 */
export const laneEntriesJsonSql = (p: {
  tenantId: unknown;
  sessionId: unknown;
  laneKey: string;
  from: number;
}) =>
  sql`coalesce((select json_agg(e order by e.seq) from transcript_entries e
    where tenant_id = ${p.tenantId} and session_id = ${p.sessionId} and lane_key = ${p.laneKey}
      and seq >= ${p.from}), '[]'::json)`;

const dateOf = (value: unknown) => (value === null || value === undefined ? null : new Date(String(value)));

/** laneEntriesJsonSql's value (json text or parsed, by driver) as laneEntriesFrom returns its rows. */
export function laneEntriesOfJson(value: unknown): LaneEntriesRead {
  const read = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>[];
  return {
    rows: read.map((r) => ({
      tenantId: r.tenant_id as string,
      sessionId: r.session_id as string,
      seq: Number(r.seq),
      laneKey: r.lane_key as string,
      kind: r.kind as TranscriptEntryRow['kind'],
      role: r.role as TranscriptEntryRow['role'],
      content: r.content,
      tokenEstimate: Number(r.token_estimate),
      idempotencyKey: r.idempotency_key as string | null,
      requestHash: r.request_hash as string | null,
      author: r.author as TranscriptEntryRow['author'],
      usage: r.usage as TranscriptEntryRow['usage'],
      model: r.model as string | null,
      source: r.source as TranscriptEntryRow['source'],
      turnAt: dateOf(r.turn_at),
      createdAt: dateOf(r.created_at)!,
    })),
  };
}

const ofSession = (tenantId: string, sessionId: string) =>
  and(eq(transcriptEntries.tenantId, tenantId), eq(transcriptEntries.sessionId, sessionId));

export function createTranscriptRepository(db: Executor) {
  return {
    async insertMany({ entries }: { entries: NewTranscriptEntry[] }, tx: Executor = db) {
      if (entries.length === 0) return [];
      return tx.insert(transcriptEntries).values(entries).returning();
    },

    /** Entries written by one idempotent request: key for the first, `key␟i` for the others. */
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
              like(transcriptEntries.idempotencyKey, `${escapeLike(key)}\u001f%`),
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

    /**
     * Whether a tool_result of the session holds the offload reference of `refId` (written by
     * offloading, so the session may read that blob even when dedupe stored it under another
     * session). Reads the session's tool-result turns: bounded by the session, fine for a tool call.
     */
    async hasOffloadReference(
      { tenantId, sessionId, refId }: { tenantId: string; sessionId: string; refId: string },
      tx: Executor = db,
    ): Promise<boolean> {
      const reference = `${escapeLike(OFFLOAD_REFERENCE_START)}%${escapeLike(offloadReferenceEnd(refId))}`;
      const [row] = await tx
        .select({ seq: transcriptEntries.seq })
        .from(transcriptEntries)
        .where(
          and(
            ofSession(tenantId, sessionId),
            sql`${transcriptEntries.content} @> '[{"type":"tool_result"}]'::jsonb`,
            // The guard keeps compaction records (an object, never matched above) out of the call
            // whatever order the planner evaluates these in.
            sql`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(${transcriptEntries.content}) = 'array'
                then ${transcriptEntries.content} else '[]'::jsonb end) as b(block)
              where b.block->>'type' = 'tool_result' and b.block->>'content' like ${reference})`,
          ),
        )
        .limit(1);
      return row !== undefined;
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

    /** A lane's entries from `fromSeq` whose seq is `atSeq` or later, in seq order. */
    async laneEntriesFrom(
      params: { tenantId: string; sessionId: string; laneKey: string; fromSeq: number; atSeq: number },
      tx: Executor = db,
    ) {
      const statement = built(tx, 'lane_entries_from', laneEntriesFromStatement);
      return statement.execute({
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        laneKey: params.laneKey,
        from: Math.max(params.fromSeq, params.atSeq),
      });
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
