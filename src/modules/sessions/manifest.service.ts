// Attachment manifest (docs/design.md §6.11): which media a session's conversation already holds, so
// assembly attaches each artifact (or the same bytes under another id) once.
import type { Executor } from '../../db/client.js';
import type { ManifestRepository, ManifestRow } from './manifest.repository.js';

interface ManifestRecordInput {
  tenantId: string;
  sessionId: string;
  artifactId: string;
  /** SHA-256 (hex) of the bytes. */
  contentHash: string;
  displayName?: string | null;
  mediaType?: string | null;
  sourceMessageId?: string | null;
  sourceThreadId?: string | null;
  /** Transcript seq of the turn the media was attached to. */
  includedAtTurn: number;
}

export function createManifestService(deps: { manifest: ManifestRepository }) {
  const { manifest } = deps;
  return {
    /** Records that the artifact was put into the conversation; a second record is a no-op. */
    async record(input: ManifestRecordInput, tx?: Executor) {
      return manifest.record(
        {
          tenantId: input.tenantId,
          sessionId: input.sessionId,
          artifactId: input.artifactId,
          contentHash: input.contentHash,
          displayName: input.displayName ?? null,
          mediaType: input.mediaType ?? null,
          sourceMessageId: input.sourceMessageId ?? null,
          sourceThreadId: input.sourceThreadId ?? null,
          includedAtTurn: input.includedAtTurn,
        },
        tx,
      );
    },

    /** The earlier inclusion of this artifact id or of the same bytes, or null. */
    async findIncluded(
      params: { tenantId: string; sessionId: string; artifactId?: string; sha256?: string },
      tx?: Executor,
    ): Promise<ManifestRow | null> {
      return manifest.findIncluded(params, tx);
    },

    async isAlreadyIncluded(
      params: { tenantId: string; sessionId: string; artifactId?: string; sha256?: string },
      tx?: Executor,
    ): Promise<boolean> {
      return (await manifest.findIncluded(params, tx)) !== null;
    },

    async list(params: { tenantId: string; sessionId: string }, tx?: Executor) {
      return manifest.list(params, tx);
    },
  };
}

export type ManifestService = ReturnType<typeof createManifestService>;

export function manifestView(row: ManifestRow) {
  return {
    artifact_id: row.artifactId,
    content_hash: row.contentHash,
    display_name: row.displayName,
    media_type: row.mediaType,
    source_message_id: row.sourceMessageId,
    source_thread_id: row.sourceThreadId,
    included_at_turn: row.includedAtTurn,
    created_at: row.createdAt.toISOString(),
  };
}
