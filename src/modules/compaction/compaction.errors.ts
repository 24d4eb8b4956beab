// Compaction's errors, with stable codes (docs/api.md lists them).
import { AppError, conflict, notFound } from '../../shared/errors.js';

// The same 404 as every other session route, so another tenant's id reads as unknown.
export { sessionNotFound as compactionSessionNotFound } from '../sessions/sessions.errors.js';

/** Another compaction of the session holds its lock; `holder_age_ms` says for how long. */
export const compactionRunning = (sessionId: string, holderAgeMs: number | null) =>
  conflict('compaction.running', `a compaction of session ${sessionId} is already running`, {
    session_id: sessionId,
    holder_age_ms: holderAgeMs,
  });

export const laneNotFound = (laneKey: string) =>
  notFound('lane.not_found', `lane ${laneKey} not found in this session`, { lane_key: laneKey });

export const compactionJobNotFound = (jobId: string) =>
  notFound('compaction.job_not_found', `compaction job ${jobId} not found`, { job_id: jobId });

export const isCompactionRunning = (error: unknown) =>
  error instanceof AppError && error.code === 'compaction.running';
