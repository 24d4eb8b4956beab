// Attachment manifest (docs/design.md §6.11): which media were already put into a session's conversation.
import { and, asc, eq, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { attachmentManifest } from '../../db/schema.js';

export type ManifestRow = typeof attachmentManifest.$inferSelect;
type NewManifestRecord = Omit<typeof attachmentManifest.$inferInsert, 'createdAt'>;

export function createManifestRepository(db: Executor) {
  const ofSession = (tenantId: string, sessionId: string) =>
    and(eq(attachmentManifest.tenantId, tenantId), eq(attachmentManifest.sessionId, sessionId));
  return {
    /** Records an inclusion; the first record of an artifact in a session wins. */
    async record(record: NewManifestRecord, tx: Executor = db) {
      const [created] = await tx.insert(attachmentManifest).values(record).onConflictDoNothing().returning();
      return { created: Boolean(created) };
    },

    /** The record for the artifact id or the same content hash, if either was included. */
    async findIncluded(
      {
        tenantId,
        sessionId,
        artifactId,
        sha256,
      }: { tenantId: string; sessionId: string; artifactId?: string; sha256?: string },
      tx: Executor = db,
    ) {
      const matches = [
        ...(artifactId ? [eq(attachmentManifest.artifactId, artifactId)] : []),
        ...(sha256 ? [eq(attachmentManifest.contentHash, sha256)] : []),
      ];
      if (matches.length === 0) return null;
      const [row] = await tx
        .select()
        .from(attachmentManifest)
        .where(and(ofSession(tenantId, sessionId), or(...matches)))
        .orderBy(asc(attachmentManifest.includedAtTurn))
        .limit(1);
      return row ?? null;
    },

    async list({ tenantId, sessionId }: { tenantId: string; sessionId: string }, tx: Executor = db) {
      return tx
        .select()
        .from(attachmentManifest)
        .where(ofSession(tenantId, sessionId))
        .orderBy(asc(attachmentManifest.includedAtTurn), asc(attachmentManifest.artifactId));
    },
  };
}

export type ManifestRepository = ReturnType<typeof createManifestRepository>;
