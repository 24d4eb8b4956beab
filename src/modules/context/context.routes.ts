// POST /v1/sessions/{id}/context (the main call) and GET /v1/sessions/{id}/context-log (audit).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { compactResultSchema } from '../compaction/compaction.schemas.js';
import { turnContentSchema } from '../../shared/content-blocks.js';
import { budgetComponentNames } from './core/budget.js';
import type { ContextReply } from './context.service.js';
import type { Services } from '../services.js';
import { TOOL_NAME_PATTERN, isBuiltinToolName } from '../tools/tools.schemas.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';

const TAGS = ['context'];
const sessionIdParams = z.object({ id: z.uuid() });
const positiveInt = z.number().int().positive();

const jsonSchemaObject = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    required: z.array(z.string()).optional(),
  })
  .describe('JSON Schema of the tool input: an object schema');

export const callerToolSchema = z.strictObject({
  name: z.string().regex(TOOL_NAME_PATTERN, 'tool names are 1–64 characters of [a-zA-Z0-9_-]'),
  description: z.string().max(20_000).optional(),
  input_schema: jsonSchemaObject,
  source: z
    .enum(['builtin', 'mcp', 'skill'])
    .describe("builtin: the agent's core tools, never deferred; mcp and skill tools may be deferred"),
});

export const contextBody = z
  .object({
    message: z.object({
      content: turnContentSchema,
      source: z
        .object({
          platform: z.string().min(1).max(64),
          channel_id: z.string().min(1).max(256),
          message_id: z.string().min(1).max(256),
        })
        .optional()
        .describe('the channel message this turn is (its anchor)'),
      lane_key: z.string().min(1).max(512).optional().describe('lane when there is no source message'),
      author: z
        .object({ id: z.string().max(256).optional(), name: z.string().max(256).optional() })
        .optional(),
      time: z.iso.datetime({ offset: true }).optional(),
    }),
    model: z.string().min(1).max(200).optional(),
    budget: z
      .object({
        total: positiveInt.max(10_000_000).optional(),
        max_output_tokens: positiveInt.max(1_000_000).optional(),
        max_context_tokens: positiveInt
          .optional()
          .describe('cap on what contextd adds beyond system, tools and the message (estimate units)'),
      })
      .optional(),
    system: z
      .array(
        z.object({
          name: z.string().min(1).max(200),
          text: z.string().max(400_000),
          cacheable: z.boolean().optional(),
        }),
      )
      .max(50)
      .optional(),
    agent_id: z.string().min(1).max(256).optional(),
    tools: z.array(callerToolSchema).max(500).optional(),
    include: z
      .object({
        snapshot: z.boolean().optional(),
        thread: z.boolean().optional(),
        memories: z.boolean().optional(),
        channel_search: z.boolean().optional(),
        lane_summaries: z.boolean().optional(),
        media: z.enum(['none', 'thread']).optional(),
      })
      .optional(),
    compaction: z.enum(['auto', 'never', 'sync']).optional(),
    history_turns: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe(
        "at most this many of the lane's latest turns are sent (a view: nothing is dropped from the transcript, and a tool_use never loses its tool_result)",
      ),
    dry_run: z.boolean().optional(),
    format: z.enum(['anthropic', 'openai']).optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.tools?.forEach((tool, index) => {
      if (isBuiltinToolName(tool.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tools', index, 'name'],
          message: `"${tool.name}" is a built-in tool name`,
        });
      } else if (seen.has(tool.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tools', index, 'name'],
          message: `duplicate tool name "${tool.name}"`,
        });
      }
      seen.add(tool.name);
    });
    const { total, max_output_tokens: output } = body.budget ?? {};
    if (total !== undefined && output !== undefined && output >= total) {
      ctx.addIssue({
        code: 'custom',
        path: ['budget', 'max_output_tokens'],
        message: 'must be below budget.total',
      });
    }
  });

const components = z.object(
  Object.fromEntries(budgetComponentNames.map((n) => [n, z.number()])) as Record<
    (typeof budgetComponentNames)[number],
    z.ZodNumber
  >,
);
const budgetSchema = z.object({
  total: z.number(),
  max_output_tokens: z.number(),
  effective_window: z.number(),
  max_context_tokens: z.number().nullable(),
  components,
  used: z.number(),
  added: z.number(),
  used_with_margin: z.number(),
  remaining: z.number(),
  percentage: z.number(),
  state: z.enum(['ok', 'compact_soon', 'should_compact', 'blocked']),
  safety_margin: z.number(),
  calibration: z
    .object({
      factor: z.number(),
      ratio: z.number().nullable(),
      calls: z.number(),
    })
    .describe(
      "the session's reported ÷ estimated input ratio for the model; applied (factor ≠ 1) from 3 reported calls, clamped to [0.5, 2]: used_with_margin = ceil(used × factor × safety_margin)",
    ),
});

const contextReply = z.object({
  payload: z
    .record(z.string(), z.unknown())
    .describe('Anthropic MessageCreateParams (or OpenAI chat with format=openai), ready to send'),
  format: z.enum(['anthropic', 'openai']),
  budget: budgetSchema,
  compaction: z.object({
    mode: z.enum(['auto', 'never', 'sync']),
    available: z.boolean(),
    action: z
      .enum(['none', 'truncated', 'scheduled', 'compacted'])
      .describe(
        'compacted: compaction ran before this payload (blocked, history left out, or a deleted message to purge); scheduled: a background compaction was queued (should_compact); truncated: older entries were left out of this payload',
      ),
    job_id: z.string().nullable().describe('the queued background compaction (action scheduled)'),
    result: compactResultSchema.nullable().describe('what the compaction before this payload did'),
  }),
  context: z.record(z.string(), z.unknown()),
  attachments: z.array(z.record(z.string(), z.unknown())),
  deferred_tools: z.array(
    z.object({ name: z.string(), description: z.string(), source: z.string(), tokens: z.number() }),
  ),
  notes: z.array(z.string()),
  cache: z.object({
    breakpoints: z.array(
      z.object({
        position: z.enum(['system', 'tools', 'summary', 'previous_turn', 'this_turn']),
        index: z.number(),
        block: z.number().optional(),
      }),
    ),
    stable_prefix_tokens: z.number(),
  }),
  turn_seq: z.number().nullable(),
  payload_sha256: z.string(),
  dry_run: z.boolean(),
});

const contextLogEntry = z.object({
  turn_seq: z.number(),
  lane_key: z.string(),
  lane_version: z.number(),
  payload_sha256: z.string(),
  model: z.string().nullable(),
  budget: z.record(z.string(), z.unknown()),
  deferred_tools: z.array(z.string()),
  created_at: z.string(),
});

/**
 * The reply as it goes on the wire: what the route's serializer would write. The context call
 * stores these bytes with its Idempotency-Key, so a replay is byte-identical (jsonb would reorder
 * the keys of the open payload object).
 */
function encodeContextReply(reply: ContextReply): string {
  // The payload, context and attachments are typed in the service (the payload is the SDK's
  // MessageCreateParams); the reply schema keeps them open so nothing is reordered or stripped.
  const encoded = z.safeEncode(contextReply, {
    ...reply,
    payload: reply.payload as unknown as Record<string, unknown>,
    context: reply.context as unknown as Record<string, unknown>,
    attachments: reply.attachments as unknown as Record<string, unknown>[],
  });
  if (!encoded.success) throw new Error(`context reply does not match its schema: ${encoded.error.message}`);
  return JSON.stringify(encoded.data);
}

export function contextRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/sessions/:id/context',
      {
        schema: {
          tags: TAGS,
          summary: 'Assemble the prompt payload for this turn (and append the turn unless dry_run)',
          description:
            'With Idempotency-Key (not on dry runs, which write nothing and ignore it), a retry with the same body replays the first reply byte for byte without appending again (header `idempotent-replayed: true`); another body under the key is 409 `idempotency.key_reused`.',
          params: sessionIdParams,
          headers: idempotencyKeyHeaders,
          body: contextBody,
          response: { 200: contextReply },
        },
      },
      async (request, reply) => {
        const result = await services.context.assemble({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          request: request.body,
          idempotencyKey: request.headers['idempotency-key'],
          encode: encodeContextReply,
        });
        if (result.replayed) void reply.header('idempotent-replayed', 'true');
        // Already encoded with the response schema: a JSON string is sent as it is.
        return reply.type('application/json; charset=utf-8').send(result.body as never);
      },
    );

    app.get(
      '/sessions/:id/context-log',
      {
        schema: {
          tags: TAGS,
          summary: 'Audit of context calls: turn, payload SHA-256, budget report, lane state version',
          params: sessionIdParams,
          querystring: z.object({
            after_seq: z.coerce.number().int().min(0).optional(),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          }),
          response: {
            200: z.object({ entries: z.array(contextLogEntry), next_cursor: z.number().nullable() }),
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
  };
}
