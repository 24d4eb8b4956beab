// Errors of the context call and of the context log's replay, with stable codes (docs/api.md).
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

/**
 * Only contextd's own background work (compaction records) was appended while this call assembled:
 * the call assembles again over the new state instead of failing the bot's turn. Never reaches a
 * client; the service retries a bounded number of times.
 */
export class BackgroundCommitDuringAssembly extends Error {
  constructor() {
    super('a compaction committed while the context was assembled');
    this.name = 'BackgroundCommitDuringAssembly';
  }
}
