// Sessions: one agent's conversation state per session key; at most one live session per key
// (the partial unique index sessions_live_key_uq). Hard delete cascades to everything the session owns.
import { and, desc, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import {
  attachmentManifest,
  blobOwners,
  blobs,
  contextLog,
  sessions,
  transcriptChunks,
  transcriptEntries,
  type TurnState,
  type UsageCalibration,
} from '../../db/schema.js';
import { isUniqueViolation } from '../../shared/errors.js';
import { deleteLaneStatesOfSession } from '../lanes/lanes.repository.js';

export type SessionRow = typeof sessions.$inferSelect;
type NewSession = Omit<typeof sessions.$inferInsert, 'tenantId'>;

export function createSessionsRepository(db: Executor) {
  const byId = (tenantId: string, id: string) => and(eq(sessions.tenantId, tenantId), eq(sessions.id, id));
  return {
    async findById({ tenantId, id }: { tenantId: string; id: string }, tx: Executor = db) {
      const [row] = await tx.select().from(sessions).where(byId(tenantId, id)).limit(1);
      return row ?? null;
    },

    /** The session row locked until the transaction ends (appends serialize on it). */
    async lockById({ tenantId, id }: { tenantId: string; id: string }, tx: Executor) {
      const [row] = await tx.select().from(sessions).where(byId(tenantId, id)).limit(1).for('update');
      return row ?? null;
    },

    async findLiveByKey(
      { tenantId, sessionKey }: { tenantId: string; sessionKey: string },
      tx: Executor = db,
    ) {
      const [row] = await tx
        .select()
        .from(sessions)
        .where(
          and(eq(sessions.tenantId, tenantId), eq(sessions.sessionKey, sessionKey), isNull(sessions.endedAt)),
        )
        .limit(1);
      return row ?? null;
    },

    /** Inserts a live session; null when another live session for the key won the race. */
    async insertLive({ tenantId, session }: { tenantId: string; session: NewSession }, tx: Executor = db) {
      try {
        const [row] = await tx
          .insert(sessions)
          .values({ ...session, tenantId })
          .returning();
        return row!;
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    /** Ends a live session; false when it was already ended (someone else replaced it). */
    async end({ tenantId, id, at }: { tenantId: string; id: string; at: Date }, tx: Executor = db) {
      const rows = await tx
        .update(sessions)
        .set({ endedAt: at, updatedAt: at })
        .where(and(byId(tenantId, id), isNull(sessions.endedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },

    /** Newest first; `before` is the id of the last session of the previous page (UUIDv7 sorts by time). */
    async list(
      params: {
        tenantId: string;
        sessionKey?: string;
        agentId?: string;
        live?: boolean;
        before?: string;
        limit: number;
      },
      tx: Executor = db,
    ) {
      const conditions = [eq(sessions.tenantId, params.tenantId)];
      if (params.sessionKey !== undefined) conditions.push(eq(sessions.sessionKey, params.sessionKey));
      if (params.agentId !== undefined) conditions.push(eq(sessions.agentId, params.agentId));
      if (params.live === true) conditions.push(isNull(sessions.endedAt));
      if (params.live === false) conditions.push(sql`${sessions.endedAt} is not null`);
      if (params.before) conditions.push(lt(sessions.id, params.before));
      return tx
        .select()
        .from(sessions)
        .where(and(...conditions))
        .orderBy(desc(sessions.id))
        .limit(params.limit);
    },

    /** Records appended turns on the locked session row. */
    async recordAppend(
      params: {
        tenantId: string;
        id: string;
        nextSeq: number;
        turns: number;
        tokens: number;
        at: Date;
        lastTurnAt: Date;
        turnState: TurnState;
        calibration: UsageCalibration;
      },
      tx: Executor,
    ) {
      const [row] = await tx
        .update(sessions)
        .set({
          nextSeq: params.nextSeq,
          turnCount: sql`${sessions.turnCount} + ${params.turns}`,
          totalTokens: sql`${sessions.totalTokens} + ${params.tokens}`,
          lastTurnAt: params.lastTurnAt,
          updatedAt: params.at,
          turnState: params.turnState,
          calibration: params.calibration,
        })
        .where(byId(params.tenantId, params.id))
        .returning();
      return row!;
    },

    /** Deletes the session and everything it owns, in one transaction. False when not found. */
    async deleteCascade({ tenantId, id }: { tenantId: string; id: string }, tx: Executor = db) {
      return tx.transaction(async (t) => {
        const owned = (table: { tenantId: AnyPgColumn; sessionId: AnyPgColumn }) =>
          and(eq(table.tenantId, tenantId), eq(table.sessionId, id));
        const [row] = await t
          .select({ id: sessions.id })
          .from(sessions)
          .where(byId(tenantId, id))
          .for('update');
        if (!row) return false;
        await t.delete(transcriptEntries).where(owned(transcriptEntries));
        await deleteLaneStatesOfSession(t, tenantId, id);
        await t.delete(attachmentManifest).where(owned(attachmentManifest));
        // Blobs: the session lets go of the ones it holds; bytes another session (or the tenant)
        // still holds stay.
        const released = await t
          .delete(blobOwners)
          .where(owned(blobOwners))
          .returning({ artifactId: blobOwners.artifactId });
        if (released.length > 0) {
          await t.delete(blobs).where(
            and(
              eq(blobs.tenantId, tenantId),
              inArray(
                blobs.artifactId,
                released.map((r) => r.artifactId),
              ),
              isNotNull(blobs.sessionId),
              sql`not exists (select 1 from ${blobOwners} o where o.tenant_id = ${blobs.tenantId}
                and o.artifact_id = ${blobs.artifactId})`,
            ),
          );
        }
        await t.delete(transcriptChunks).where(owned(transcriptChunks));
        await t.delete(contextLog).where(owned(contextLog));
        await t.delete(sessions).where(byId(tenantId, id));
        return true;
      });
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
