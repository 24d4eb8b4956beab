// Errors of erasure, with stable codes (docs/api.md lists them). Another tenant's message, session
// or entry is the same 404 as one that does not exist.
import { notFound } from '../../shared/errors.js';

export { channelMessageNotFound } from '../channels/channels.errors.js';
export { sessionNotFound } from '../sessions/sessions.errors.js';

export const transcriptEntryNotFound = (sessionId: string, seq: number) =>
  notFound('transcript_entry.not_found', `session ${sessionId} has no transcript entry ${seq}`, {
    session_id: sessionId,
    seq,
  });
