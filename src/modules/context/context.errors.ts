// Errors of the context log's replay, with stable codes (docs/api.md "Replay").
import { notFound } from '../../shared/errors.js';

export const contextLogEntryNotFound = (sessionId: string, seq: number) =>
  notFound('context_log.not_found', `no logged context call at turn ${seq} of session ${sessionId}`, {
    session_id: sessionId,
    seq,
  });

export const payloadNotStored = (seq: number) =>
  notFound(
    'context_log.payload_not_stored',
    `the payload of turn ${seq} was logged before payloads were stored; only its SHA-256 is known`,
    { seq },
  );
