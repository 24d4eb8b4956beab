// SQL for context assembly: the lane state it reads (the attached-context marker and the pending
// slot it writes) and the audit log of context calls (docs/design.md §6.13).
import { and, asc, desc, eq, gt, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { contextLog, laneStates, payloadParts } from '../../db/schema.js';
import type { PayloadPart } from './core/payload-layout.js';
import type { PendingSlot } from './core/pending-slot.js';

export type LaneStateRow = typeof laneStates.$inferSelect;
export type ContextLogRow = typeof contextLog.$inferSelect;

export function createContextRepository(db: Executor) {
  return {
    async getLaneState(
      { tenantId, sessionId, laneKey }: { tenantId: string; sessionId: string; laneKey: string },
      tx: Executor = db,
    ): Promise<LaneStateRow | null> {
      const [row] = await tx
        .select()
        .from(laneStates)
        .where(
          and(
            eq(laneStates.tenantId, tenantId),
            eq(laneStates.sessionId, sessionId),
            eq(laneStates.laneKey, laneKey),
          ),
        )
        .limit(1);
      return row ?? null;
    },

    /**
     * Records that channel context was attached for the lane's current summary version, by the
     * user turn at `seq`. Not a fenced change: it does not bump `version`, so a running
     * compaction's compare-and-set still commits (a compaction raises summary_version, which makes
     * the next turn attach again; so does truncation leaving the turn at `seq` out of a payload).
     */
    async markContextAttached(
      params: {
        tenantId: string;
        sessionId: string;
        laneKey: string;
        summaryVersion: number;
        seq: number;
        at: Date;
      },
      tx: Executor = db,
    ): Promise<void> {
      const marker = {
        contextAttachedVersion: params.summaryVersion,
        contextAttachedSeq: params.seq,
        updatedAt: params.at,
      };
      await tx
        .insert(laneStates)
        .values({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          laneKey: params.laneKey,
          ...marker,
        })
        .onConflictDoUpdate({
          target: [laneStates.tenantId, laneStates.sessionId, laneStates.laneKey],
          set: marker,
        });
    },

    /**
     * Sets the lane's pending slot (§6.10), creating the lane state when the lane has none. A
     * fenced change: it bumps `version`, like every change of what the lane's payload depends on.
     */
    async setPendingSlot(
      params: { tenantId: string; sessionId: string; laneKey: string; slot: PendingSlot; at: Date },
      tx: Executor = db,
    ): Promise<LaneStateRow> {
      const [row] = await tx
        .insert(laneStates)
        .values({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          laneKey: params.laneKey,
          pendingSlot: params.slot,
          version: 1,
          updatedAt: params.at,
        })
        .onConflictDoUpdate({
          target: [laneStates.tenantId, laneStates.sessionId, laneStates.laneKey],
          set: { pendingSlot: params.slot, version: sql`${laneStates.version} + 1`, updatedAt: params.at },
        })
        .returning();
      return row!;
    },

    /**
     * Clears the lane's pending slot (bumping `version`). With `version`, only if the lane state is
     * still at that version: a context call consumes the slot it applied, never a newer one set
     * meanwhile. False when there was nothing to clear.
     */
    async clearPendingSlot(
      params: { tenantId: string; sessionId: string; laneKey: string; at: Date; version?: number },
      tx: Executor = db,
    ): Promise<boolean> {
      const rows = await tx
        .update(laneStates)
        .set({ pendingSlot: null, version: sql`${laneStates.version} + 1`, updatedAt: params.at })
        .where(
          and(
            eq(laneStates.tenantId, params.tenantId),
            eq(laneStates.sessionId, params.sessionId),
            eq(laneStates.laneKey, params.laneKey),
            isNotNull(laneStates.pendingSlot),
            ...(params.version !== undefined ? [eq(laneStates.version, params.version)] : []),
          ),
        )
        .returning({ version: laneStates.version });
      return rows.length > 0;
    },

    async insertLog(row: typeof contextLog.$inferInsert, tx: Executor = db): Promise<void> {
      await tx.insert(contextLog).values(row);
    },

    /**
     * Stores the parts of a logged payload the tenant does not hold yet: their hashes are looked up
     * first, so a turn sends only its new messages, not the whole history again.
     */
    async storePayloadParts(
      { tenantId, parts, at }: { tenantId: string; parts: PayloadPart[]; at: Date },
      tx: Executor = db,
    ): Promise<void> {
      const unique = [...new Map(parts.map((p) => [p.sha256, p])).values()];
      if (unique.length === 0) return;
      const held = await tx
        .select({ sha256: payloadParts.sha256 })
        .from(payloadParts)
        .where(
          and(
            eq(payloadParts.tenantId, tenantId),
            inArray(
              payloadParts.sha256,
              unique.map((p) => p.sha256),
            ),
          ),
        );
      const heldSet = new Set(held.map((r) => r.sha256));
      const missing = unique.filter((p) => !heldSet.has(p.sha256));
      if (missing.length === 0) return;
      // A concurrent turn of the tenant may store the same part first: same hash, same bytes.
      await tx
        .insert(payloadParts)
        .values(missing.map((p) => ({ tenantId, sha256: p.sha256, body: p.body, createdAt: at })))
        .onConflictDoNothing();
    },

    /** The logged payload's layout and its parts' bodies in payload order; null without a row. */
    async loggedPayload(
      { tenantId, sessionId, turnSeq }: { tenantId: string; sessionId: string; turnSeq: number },
      tx: Executor = db,
    ): Promise<{ sha256: string; layout: string | null; bodies: string[] } | null> {
      const [row] = await tx
        .select({
          sha256: contextLog.payloadSha256,
          layout: contextLog.payloadLayout,
          parts: contextLog.payloadParts,
        })
        .from(contextLog)
        .where(
          and(
            eq(contextLog.tenantId, tenantId),
            eq(contextLog.sessionId, sessionId),
            eq(contextLog.turnSeq, turnSeq),
          ),
        )
        .limit(1);
      if (!row) return null;
      const hashes = row.parts ?? [];
      const found =
        hashes.length === 0
          ? []
          : await tx
              .select({ sha256: payloadParts.sha256, body: payloadParts.body })
              .from(payloadParts)
              .where(
                and(eq(payloadParts.tenantId, tenantId), inArray(payloadParts.sha256, [...new Set(hashes)])),
              );
      const bodies = new Map(found.map((r) => [r.sha256, r.body]));
      if (hashes.some((h) => !bodies.has(h))) throw new Error(`payload part missing for turn ${turnSeq}`);
      return { sha256: row.sha256, layout: row.layout, bodies: hashes.map((h) => bodies.get(h)!) };
    },

    /** The latest context call of a session (its budget gives the previous percentage). */
    async lastLog({ tenantId, sessionId }: { tenantId: string; sessionId: string }, tx: Executor = db) {
      const [row] = await tx
        .select()
        .from(contextLog)
        .where(and(eq(contextLog.tenantId, tenantId), eq(contextLog.sessionId, sessionId)))
        .orderBy(desc(contextLog.turnSeq))
        .limit(1);
      return row ?? null;
    },

    async listLog(
      params: { tenantId: string; sessionId: string; afterSeq: number; limit: number },
      tx: Executor = db,
    ): Promise<ContextLogRow[]> {
      return tx
        .select()
        .from(contextLog)
        .where(
          and(
            eq(contextLog.tenantId, params.tenantId),
            eq(contextLog.sessionId, params.sessionId),
            gt(contextLog.turnSeq, params.afterSeq),
          ),
        )
        .orderBy(asc(contextLog.turnSeq))
        .limit(params.limit);
    },
  };
}

export type ContextRepository = ReturnType<typeof createContextRepository>;
