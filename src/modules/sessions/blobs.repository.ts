// Blobs: stored bytes addressed by artifact id, deduplicated by SHA-256 per tenant.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { blobOwners, blobs } from '../../db/schema.js';

type BlobRow = typeof blobs.$inferSelect;
export type BlobMeta = Omit<BlobRow, 'content'>;

const metaColumns = {
  tenantId: blobs.tenantId,
  artifactId: blobs.artifactId,
  sha256: blobs.sha256,
  mediaType: blobs.mediaType,
  filename: blobs.filename,
  byteLength: blobs.byteLength,
  kind: blobs.kind,
  sessionId: blobs.sessionId,
  createdAt: blobs.createdAt,
};

export function createBlobsRepository(db: Executor) {
  const byId = (tenantId: string, artifactId: string) =>
    and(eq(blobs.tenantId, tenantId), eq(blobs.artifactId, artifactId));
  return {
    /**
     * Stores the bytes unless the tenant already has the same SHA-256; either way returns the
     * stored blob's metadata and whether this call created it.
     */
    async insertDeduped(blob: Omit<typeof blobs.$inferInsert, 'createdAt'>, tx: Executor = db) {
      const [created] = await tx.insert(blobs).values(blob).onConflictDoNothing().returning(metaColumns);
      let stored = created;
      if (!stored) {
        [stored] = await tx
          .select(metaColumns)
          .from(blobs)
          .where(and(eq(blobs.tenantId, blob.tenantId), eq(blobs.sha256, blob.sha256)))
          .limit(1);
        // The same bytes uploaded for the whole tenant: no session's delete may take them any more.
        if (!blob.sessionId && stored!.sessionId) {
          await tx.update(blobs).set({ sessionId: null }).where(byId(blob.tenantId, stored!.artifactId));
          stored = { ...stored!, sessionId: null };
        }
      }
      // Every session that stored these bytes holds them; they go with the last one.
      if (blob.sessionId) {
        await tx
          .insert(blobOwners)
          .values({ tenantId: blob.tenantId, artifactId: stored!.artifactId, sessionId: blob.sessionId })
          .onConflictDoNothing();
      }
      return { blob: stored!, created: Boolean(created) };
    },

    async findMeta({ tenantId, artifactId }: { tenantId: string; artifactId: string }, tx: Executor = db) {
      const [row] = await tx.select(metaColumns).from(blobs).where(byId(tenantId, artifactId)).limit(1);
      return row ?? null;
    },

    /** The bytes from `start` (0-based) for `length` bytes, read in the database. */
    async readBytes(
      {
        tenantId,
        artifactId,
        start,
        length,
      }: { tenantId: string; artifactId: string; start: number; length: number },
      tx: Executor = db,
    ) {
      const [row] = await tx
        .select({
          content: sql<Buffer>`substring(${blobs.content} from ${start + 1} for ${length})`.mapWith(
            blobs.content,
          ),
        })
        .from(blobs)
        .where(byId(tenantId, artifactId))
        .limit(1);
      return row ? Buffer.from(row.content) : null;
    },
  };
}

export type BlobsRepository = ReturnType<typeof createBlobsRepository>;
