// Lane state the client writes (docs/design.md §6.10): a lane's pending slot, set when the agent asks a
// question and waits for the answer, withdrawn with DELETE, consumed by the context call whose
// message matches it (context.service.ts).
import type { Clock } from '../../shared/clock.js';
import type { PendingSlot } from '../lanes/core/pending-slot.js';
import type { Executor } from '../../db/client.js';
import type { LaneStateRow, LanesRepository } from '../lanes/lanes.repository.js';
import type { SessionRow, SessionsRepository } from '../sessions/sessions.repository.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import { sessionEnded, sessionNotFound } from '../sessions/sessions.errors.js';

function pendingSlotView(row: LaneStateRow) {
  return {
    session_id: row.sessionId,
    lane_key: row.laneKey,
    pending_slot: row.pendingSlot as PendingSlot | null,
    version: row.version,
    updated_at: row.updatedAt.toISOString(),
  };
}

export function createLanesService(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  lanes: Pick<LanesRepository, 'setPendingSlot' | 'clearPendingSlot'>;
  idempotency: Pick<IdempotencyService, 'run'>;
  clock: Clock;
}) {
  async function loadSession(tenantId: string, sessionId: string, tx: Executor): Promise<SessionRow> {
    const session = await deps.sessions.findById({ tenantId, id: sessionId }, tx);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  return {
    /** Sets (or replaces) the lane's pending slot; the lane state is created when missing. */
    async setPendingSlot(params: {
      tenantId: string;
      sessionId: string;
      laneKey: string;
      slot: PendingSlot;
      idempotencyKey?: string;
    }) {
      const { tenantId, sessionId, laneKey, slot } = params;
      return deps.idempotency.run(
        {
          tenantId,
          scope: 'sessions.pending_slot.set',
          key: params.idempotencyKey,
          request: { session_id: sessionId, lane_key: laneKey, slot },
        },
        async (tx) => {
          const session = await loadSession(tenantId, sessionId, tx);
          if (session.endedAt) throw sessionEnded(session);
          const row = await deps.lanes.setPendingSlot(
            { tenantId, sessionId, laneKey, slot, at: deps.clock.now() },
            tx,
          );
          return { statusCode: 200, body: pendingSlotView(row) };
        },
      );
    },

    /** Withdraws the lane's pending slot; nothing pending is not an error (DELETE is idempotent). */
    async clearPendingSlot(params: {
      tenantId: string;
      sessionId: string;
      laneKey: string;
      idempotencyKey?: string;
    }) {
      const { tenantId, sessionId, laneKey } = params;
      return deps.idempotency.run(
        {
          tenantId,
          scope: 'sessions.pending_slot.delete',
          key: params.idempotencyKey,
          request: { session_id: sessionId, lane_key: laneKey },
        },
        async (tx) => {
          await loadSession(tenantId, sessionId, tx);
          await deps.lanes.clearPendingSlot({ tenantId, sessionId, laneKey, at: deps.clock.now() }, tx);
          return { statusCode: 204, body: null };
        },
      );
    },
  };
}

export type LanesService = ReturnType<typeof createLanesService>;
