// GET /v1/sessions/{id}/tools (built-in definitions) and POST /v1/sessions/{id}/tools/{name} (run one).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from '../../shared/media.js';
import type { Services } from '../services.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { idempotencyKeyOf, sendIdempotent } from '../../http/idempotency/idempotent-reply.js';

const TAGS = ['tools'];
const toolContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('image'),
    source: z.object({ type: z.literal('base64'), media_type: z.enum(IMAGE_MEDIA_TYPES), data: z.string() }),
  }),
]);

export function toolsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/sessions/:id/tools',
      {
        schema: {
          operationId: 'listTools',
          tags: TAGS,
          summary: 'Built-in tool definitions for this session, ready for the Messages API `tools` parameter',
          params: z.object({ id: z.uuid() }),
          response: {
            200: z.object({
              tools: z.array(
                z.object({
                  name: z.string(),
                  description: z.string().optional(),
                  input_schema: z.record(z.string(), z.unknown()),
                }),
              ),
            }),
          },
        },
      },
      async (request) =>
        services.tools.listTools({ tenantId: request.tenantId, sessionId: request.params.id }),
    );

    app.post(
      '/sessions/:id/tools/:name',
      {
        schema: {
          operationId: 'runTool',
          tags: TAGS,
          summary:
            "Run a built-in tool inside the session's tenant, channel and lane; the reply is the tool_result content",
          description:
            'With Idempotency-Key, a retry with the same input replays the first reply (header `idempotent-replayed: true`); another input under the key is 409 `idempotency.key_reused`.',
          params: z.object({ id: z.uuid(), name: z.string().min(1).max(64) }),
          headers: idempotencyKeyHeaders,
          body: z.strictObject({ input: z.record(z.string(), z.unknown()).default({}) }),
          response: {
            200: z.object({ content: z.array(toolContentBlock), is_error: z.boolean() }),
          },
        },
      },
      async (request, reply) => {
        const result = await services.tools.runTool({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          name: request.params.name,
          input: request.body.input,
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, result);
      },
    );
  };
}
