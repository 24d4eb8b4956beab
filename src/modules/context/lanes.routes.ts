// /v1/sessions/{id}/lanes/{lane}/pending-slot: the question a lane is waiting on (docs/design.md §6.10).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { laneParams } from '../compaction/compaction.schemas.js';
import { pendingSlotSchema } from '../lanes/core/pending-slot.js';
import type { Services } from '../services.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { idempotencyKeyOf, sendIdempotent } from '../../http/idempotency/idempotent-reply.js';

const TAGS = ['sessions'];
const pendingSlotReply = z.object({
  session_id: z.string(),
  lane_key: z.string(),
  pending_slot: pendingSlotSchema.nullable(),
  version: z.number().describe("the lane state's version, bumped by every change of the slot"),
  updated_at: z.string(),
});

export function lanesRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/sessions/:id/lanes/:lane/pending-slot',
      {
        schema: {
          operationId: 'setPendingSlot',
          tags: TAGS,
          summary: "Set the lane's pending slot: the answer the agent is waiting for",
          description:
            'The next context call of the lane applies the slot only when its message matches the expected type (date, time, number, yes/no, email, choice, regex); a matching, non-dry-run call consumes it. Replaces any slot already pending.',
          params: laneParams,
          headers: idempotencyKeyHeaders,
          body: pendingSlotSchema,
          response: { 200: pendingSlotReply },
        },
      },
      async (request, reply) => {
        const result = await services.lanes.setPendingSlot({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          laneKey: request.params.lane,
          slot: request.body,
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, result);
      },
    );

    app.delete(
      '/sessions/:id/lanes/:lane/pending-slot',
      {
        schema: {
          operationId: 'clearPendingSlot',
          tags: TAGS,
          summary: "Withdraw the lane's pending slot (204 also when none was pending)",
          params: laneParams,
          headers: idempotencyKeyHeaders,
          response: { 204: z.null().describe('no slot is pending') },
        },
      },
      async (request, reply) => {
        const result = await services.lanes.clearPendingSlot({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          laneKey: request.params.lane,
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, { ...result, statusCode: 204, body: null });
      },
    );
  };
}
