// Errors of sessions, transcripts, blobs and stored results, with stable codes (docs/api.md lists
// them). A session of another tenant is the same 404 as one that does not exist.
import { conflict, notFound } from '../../shared/errors.js';
import type { SessionRow } from './sessions.repository.js';

export const sessionNotFound = (id: string) =>
  notFound('session.not_found', `session ${id} not found`, { id });

export const sessionEnded = (row: SessionRow) =>
  conflict('session.ended', `session ${row.id} has ended; get or create the live session for its key`, {
    id: row.id,
    session_key: row.sessionKey,
    ended_at: row.endedAt?.toISOString() ?? null,
  });

export const resultNotFound = (refId: string) =>
  notFound('result.not_found', `no stored result with ref_id ${refId}`, { ref_id: refId });

export const blobNotFound = (artifactId: string) =>
  notFound('blob.not_found', `blob ${artifactId} not found`, { artifact_id: artifactId });
