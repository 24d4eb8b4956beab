// POST /v1/sessions/{id}/context (the main call), GET /v1/sessions/{id}/context-log (audit) and
// GET /v1/sessions/{id}/context-log/{seq}/payload (a logged payload, byte for byte) and
// GET …/context-log/{seq}/tokens (its blocks' token estimates, for the inspector).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ContextReply } from './context.service.js';
import type { Services } from '../services.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { idempotencyKeyOf, sendIdempotent } from '../../http/idempotency/idempotent-reply.js';
import {
  contextBody,
  contextLogEntrySchema,
  contextReplySchema,
  sessionIdParams,
} from './context.schemas.js';
import { anthropicPayloadSchema, openaiChatPayloadSchema } from './payload.schemas.js';

const TAGS = ['context'];

/** The start of the wire reply before its payload's bytes: the payload is the wire schema's first key. */
const PAYLOAD_HEAD = '{"payload":{}';

/**
 * The reply as it goes on the wire: what the route's serializer would write. The context call
 * stores these bytes with its Idempotency-Key, so a replay is byte-identical (jsonb would reorder
 * the keys of the open payload object). The payload goes in as `payloadText`, the bytes whose
 * SHA-256 the reply states (JSON.stringify of the payload), not stringified a second time. The
 * rest is stringified as assembly built it: its objects hold the wire schema's keys in the schema's
 * order (every reply a test gets is checked against `contextReplyWireSchema`'s encoding, test/helpers),
 * so a pass through zod, ~0.2 ms a call, would give the same bytes.
 */
function encodeContextReply(reply: ContextReply, payloadText: string): string {
  const text = JSON.stringify({ ...reply, payload: {} });
  if (!text.startsWith(PAYLOAD_HEAD)) throw new Error('the wire reply does not start with its payload');
  return `{"payload":${payloadText}${text.slice(PAYLOAD_HEAD.length)}`;
}

export function contextRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/sessions/:id/context',
      {
        schema: {
          operationId: 'getContext',
          tags: TAGS,
          summary: 'Assemble the prompt payload for this turn (and append the turn unless dry_run)',
          description:
            'With Idempotency-Key (not on dry runs, which write nothing and ignore it), a retry with the same body replays the first reply byte for byte without appending again (header `idempotent-replayed: true`); another body under the key is 409 `idempotency.key_reused`.',
          params: sessionIdParams,
          headers: idempotencyKeyHeaders,
          body: contextBody,
          response: { 200: contextReplySchema },
        },
      },
      async (request, reply) => {
        const result = await services.context.assemble({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          request: request.body,
          idempotencyKey: idempotencyKeyOf(request),
          encode: encodeContextReply,
        });
        // Already encoded (a replay is the stored string): sent as it is, never re-serialized
        // through the documented schema, which would rebuild objects in its own key order.
        return sendIdempotent(reply.type('application/json; charset=utf-8'), result);
      },
    );

    app.get(
      '/sessions/:id/context-log',
      {
        schema: {
          operationId: 'getContextLog',
          tags: TAGS,
          summary: 'Audit of context calls: turn, payload SHA-256, budget report, lane state version',
          params: sessionIdParams,
          querystring: z.object({
            after_seq: z.coerce.number().int().min(0).optional(),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          }),
          response: {
            200: z.object({ entries: z.array(contextLogEntrySchema), next_cursor: z.number().nullable() }),
          },
        },
      },
      async (request) =>
        services.context.contextLog({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          ...(request.query.after_seq !== undefined ? { afterSeq: request.query.after_seq } : {}),
          limit: request.query.limit,
        }),
    );

    app.get(
      '/sessions/:id/context-log/:seq/tokens',
      {
        schema: {
          operationId: 'getLoggedPayloadTokens',
          tags: TAGS,
          summary: "The estimated tokens of each block of a logged call's payload",
          description:
            "What each block of the payload GET …/context-log/{seq}/payload returns costs by contextd's token estimator (the one the budget report sums): `system[i]` is the i-th system block, `tools[i]` the i-th tool, `messages[i].blocks[j]` the j-th content block of the i-th message (a string content is one block), plus each message's fixed overhead. 404 as for the payload.",
          params: sessionIdParams.extend({ seq: z.coerce.number().int().min(1) }),
          response: {
            200: z
              .object({
                turn_seq: z.number(),
                system: z.array(z.number()),
                tools: z.array(z.number()),
                messages: z.array(
                  z.object({ role: z.string(), overhead: z.number(), blocks: z.array(z.number()) }),
                ),
                total: z.number().describe('the sum of every block and overhead'),
              })
              .describe('Token estimates per block, in payload order'),
          },
        },
      },
      async (request) =>
        services.context.loggedPayloadTokens({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          turnSeq: request.params.seq,
        }),
    );

    app.get(
      '/sessions/:id/context-log/:seq/payload',
      {
        schema: {
          operationId: 'getLoggedPayload',
          tags: TAGS,
          summary: 'The payload a logged context call returned, byte for byte',
          description:
            "The exact bytes whose SHA-256 is the log entry's `payload_sha256` (also sent as the `payload-sha256` header): what the model was sent at that turn. 404 `context_log.not_found` when no call is logged at that turn (dry runs are not logged), `context_log.payload_not_stored` for calls logged before payloads were stored. After an erase of content it held, the bytes carry `[content erased]` where the content was, no longer hash to `payload_sha256`, and the reply has the header `content-erased: true`.",
          params: sessionIdParams.extend({ seq: z.coerce.number().int().min(1) }),
          response: { 200: z.union([anthropicPayloadSchema, openaiChatPayloadSchema]) },
        },
      },
      async (request, reply) => {
        const logged = await services.context.loggedPayload({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          turnSeq: request.params.seq,
        });
        // Sent as stored: re-serializing through the schema would reorder keys and change the hash.
        if (logged.erased) void reply.header('content-erased', 'true');
        return reply
          .header('payload-sha256', logged.sha256)
          .type('application/json; charset=utf-8')
          .send(logged.text as never);
      },
    );
  };
}
