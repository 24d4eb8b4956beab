// Wire shapes of the context call: the request, the reply (with its typed payload, context and
// attachments) and the audit log entry.
import { z } from 'zod';
import { compactResultSchema } from '../compaction/compaction.schemas.js';
import { turnContentSchema } from '../../shared/content-blocks.js';
import { budgetComponentNames, budgetStates, unusedReasons } from './core/budget.js';
import { LEFT_OUT_REASON_TEXT, leftOutReasons, MAX_LEFT_OUT_ITEMS } from './core/left-out.js';
import {
  SERVER_TOOL_NAMES,
  TOOL_NAME_PATTERN,
  isBuiltinToolName,
  serverToolTypes,
} from '../tools/tools.schemas.js';
import { pendingSlotSchema } from '../lanes/core/pending-slot.js';
import { historyTurnsSchema } from '../agents/agents.schemas.js';
import { contextReplyExample, contextRequestExample } from './context.examples.js';
import {
  anthropicPayloadSchema,
  cacheControl,
  clientToolOptions,
  openaiChatPayloadSchema,
} from './payload.schemas.js';

export const sessionIdParams = z.object({ id: z.uuid() });
const positiveInt = z.number().int().positive();

const jsonSchemaObject = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    required: z.array(z.string()).optional(),
  })
  .describe('JSON Schema of the tool input: an object schema');

const toolName = z.string().regex(TOOL_NAME_PATTERN, 'tool names are 1–64 characters of [a-zA-Z0-9_-]');
const toolSource = z
  .enum(['builtin', 'mcp', 'skill'])
  .optional()
  .describe(
    "contextd's own field, never sent: mcp and skill tools may be deferred when tools take too much of the window; builtin tools, and tools without a source, are always sent as given",
  );

/** A client tool as `messages.create` takes it, plus contextd's optional `source`. */
const clientToolSchema = z.strictObject({
  type: z.literal('custom').nullable().optional(),
  name: toolName,
  description: z.string().max(20_000).optional(),
  input_schema: jsonSchemaObject,
  ...clientToolOptions,
  source: toolSource,
});

/** A server tool by its `type`, with the name the API requires; its other fields are the API's to check. */
const serverToolSchema = z
  .looseObject({
    type: z.enum(serverToolTypes, { error: 'not a server tool type the Messages API knows' }),
    name: z.string().optional(),
    cache_control: cacheControl.nullable().optional(),
    source: toolSource,
  })
  .superRefine((tool, ctx) => {
    const name = SERVER_TOOL_NAMES[tool.type];
    if (tool.name !== (name ?? undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: name === null ? `${tool.type} takes no name` : `${tool.type} is named "${name}"`,
      });
    }
  });

type CallerToolInput = z.infer<typeof clientToolSchema> | z.infer<typeof serverToolSchema>;

const isServerTool = (tool: { type?: unknown }) =>
  tool.type !== undefined && tool.type !== null && tool.type !== 'custom';

/**
 * A tool as `messages.create` takes it: a client tool (name, input_schema, …) or a server tool by
 * its `type`. Checked in two steps so a bad field is reported at its own path (`tools.2.input_schema`).
 */
const callerToolSchema = z
  .looseObject({ type: z.string().nullable().optional() })
  .describe(
    `an Anthropic tool: a client tool {name, description?, input_schema, cache_control?, …} or a server tool {type, name, …} of one of these types: ${serverToolTypes.join(', ')}; optional \`source\` (builtin | mcp | skill) is contextd's and is not sent`,
  )
  .superRefine((tool, ctx) => {
    const result = (isServerTool(tool) ? serverToolSchema : clientToolSchema).safeParse(tool);
    if (result.success) return;
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
    }
  }) as unknown as z.ZodType<CallerToolInput>;

/** Most cache_control breakpoints a request may have (the Messages API's limit). */
const MAX_CACHE_BREAKPOINTS = 4;

export const contextBody = z
  .strictObject({
    message: z.strictObject({
      content: turnContentSchema,
      source: z
        .strictObject({
          platform: z.string().min(1).max(64),
          channel_id: z.string().min(1).max(256),
          message_id: z.string().min(1).max(256),
        })
        .optional()
        .describe('the channel message this turn is (its anchor)'),
      lane_key: z.string().min(1).max(512).optional().describe('lane when there is no source message'),
      author: z
        .strictObject({ id: z.string().max(256).optional(), name: z.string().max(256).optional() })
        .optional(),
      time: z.iso.datetime({ offset: true }).optional(),
    }),
    model: z.string().min(1).max(200).optional(),
    budget: z
      .strictObject({
        total: positiveInt.max(10_000_000).optional(),
        max_output_tokens: positiveInt.max(1_000_000).optional(),
        max_context_tokens: positiveInt
          .optional()
          .describe('cap on what contextd adds beyond system, tools and the message (estimate units)'),
      })
      .optional(),
    system: z
      .array(
        z.strictObject({
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
      .strictObject({
        snapshot: z.boolean().optional(),
        thread: z.boolean().optional(),
        memories: z.boolean().optional(),
        channel_search: z.boolean().optional(),
        lane_summaries: z.boolean().optional(),
        media: z.enum(['none', 'thread']).optional(),
      })
      .optional(),
    compaction: z.enum(['auto', 'never', 'sync']).optional(),
    history_turns: historyTurnsSchema
      .optional()
      .describe(
        "at most this many of the lane's latest turns are sent (a view: nothing is dropped from the transcript, and a tool_use never loses its tool_result); default: the agent's (PUT /v1/agents/{agentId}/settings), else the whole lane",
      ),
    dry_run: z.boolean().optional(),
    format: z.enum(['anthropic', 'openai']).optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    let marked = 0;
    body.tools?.forEach((tool, index) => {
      if (tool.cache_control) {
        marked += 1;
        if (marked > MAX_CACHE_BREAKPOINTS) {
          ctx.addIssue({
            code: 'custom',
            path: ['tools', index, 'cache_control'],
            message: `at most ${MAX_CACHE_BREAKPOINTS} tools may carry cache_control (the Messages API's limit on breakpoints)`,
          });
        }
      }
      if (tool.name === undefined) return;
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
  })
  .meta({ examples: [contextRequestExample] });

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
  state: z.enum(budgetStates),
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
  unused: z
    .object({ tokens: z.number(), reason: z.enum(unusedReasons) })
    .describe(
      'room for contextd material (the smaller of max_context_tokens and the window room) left after retrieval, and why: no_more_candidates (every retrieved item went in), next_item_too_large (the next item did not fit whole), retrieval_skipped (no retrieval for this message)',
    ),
  cost: z
    .object({
      cache_read: z.number().describe('input tokens expected to be read from the prompt cache (0.1× price)'),
      cache_write: z.number().describe('input tokens expected to be written to the cache, both lifetimes'),
      cache_write_5m: z.number().describe('of cache_write: 5-minute entries (1.25× price)'),
      cache_write_1h: z.number().describe('of cache_write: 1-hour entries (2× price)'),
      uncached: z
        .number()
        .describe('input tokens billed at the base price (after the last cached breakpoint)'),
      input_tokens: z
        .number()
        .describe('all input tokens of the payload: cache_read + cache_write + uncached'),
      billed_input: z
        .number()
        .describe(
          'the expected bill in base-input tokens: 0.1 × read + 1.25 × write_5m + 2 × write_1h + uncached',
        ),
      basis: z
        .enum(['cold', 'expired', 'miss', 'warm'])
        .describe(
          "against what the payload was priced: cold (the session's first call: everything written or uncached), expired (the cache entries of earlier calls had lived out), miss (live entries, none a prefix of this payload), warm (a cached prefix is read)",
        ),
    })
    .optional()
    .describe(
      "what this payload is expected to cost under the provider's prompt-caching rules, against the cache the session's earlier calls left (docs/cost-model.md); estimates by contextd's token estimator",
    ),
});

const contextPartState = z
  .enum(['attached', 'omitted_budget', 'none'])
  .describe('attached: in this turn; omitted_budget: left out for room; none: nothing to attach');

const assembledContextSchema = z
  .object({
    channel: z.object({ platform: z.string(), channel_id: z.string() }).nullable(),
    snapshot: contextPartState,
    thread: contextPartState,
    quoted_reply: contextPartState,
    retrieved: z.array(
      z.object({
        kind: z.enum(['memory', 'transcript', 'channel_message']),
        id: z.string(),
        score: z.number(),
        tokens: z.number(),
      }),
    ),
    lane: z.object({
      lane_key: z.string(),
      version: z.number(),
      summary_version: z.number(),
      summary_included: z.boolean(),
      first_kept_seq: z.number(),
      cleared_before_seq: z.number(),
      first_sent_seq: z.number().nullable(),
      dropped_entries: z.number(),
    }),
    focus_anchor: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('reply'), message_id: z.string() }),
        z.object({ kind: z.literal('assistant_turn'), seq: z.number() }),
      ])
      .nullable(),
    pending_slot: z
      .object({ name: z.string(), type: pendingSlotSchema.shape.type, value: z.string() })
      .nullable(),
  })
  .meta({ id: 'AssembledContext', description: "what this turn's context holds, by source" });

const attachmentSchema = z
  .object({
    artifact_id: z.string(),
    sha256: z.string(),
    media_type: z.string(),
    display_name: z.string(),
    source_message_id: z.string().nullable(),
    source_thread_id: z.string().nullable(),
    disposition: z
      .enum(['attached', 'referenced', 'reattached'])
      .describe(
        'attached: sent as a content block now; referenced: sent in an earlier turn still in view; reattached: sent again because the turn that carried it left the payload',
      ),
    tokens: z.number(),
  })
  .meta({ id: 'Attachment' });

const cacheReportSchema = z.object({
  breakpoints: z.array(
    z.object({
      position: z.enum(['system', 'tools', 'summary', 'previous_turn', 'this_turn']),
      index: z.number(),
      block: z.number().optional(),
    }),
  ),
  stable_prefix_tokens: z.number(),
});

const deferredToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  source: z.string(),
  tokens: z.number(),
});

const leftOutSchema = z
  .object({
    counts: z
      .partialRecord(z.enum(leftOutReasons), z.number())
      .describe('every candidate left out, by reason'),
    items: z
      .array(
        z.object({
          kind: z.enum(['memory', 'transcript', 'channel_message']),
          id: z.string(),
          score: z.number(),
          reason: z.enum(leftOutReasons),
          tokens: z.number().optional().describe("the row's tokens as it would have been sent (did_not_fit)"),
          excerpt: z.string().describe('the start of its text'),
        }),
      )
      .describe(`the best-scored of them, at most ${MAX_LEFT_OUT_ITEMS}`),
  })
  .meta({
    id: 'LeftOut',
    description: `Retrieval candidates that are not in the payload, and why: ${leftOutReasons
      .map((r) => `${r} (${LEFT_OUT_REASON_TEXT[r]})`)
      .join('; ')}.`,
  });

/** The reply's fields after `payload` and `format`, in wire order. */
const replyFields = {
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
  context: assembledContextSchema,
  attachments: z.array(attachmentSchema),
  deferred_tools: z.array(deferredToolSchema),
  notes: z.array(z.string()),
  cache: cacheReportSchema,
  turn_seq: z.number().nullable(),
  payload_sha256: z.string(),
  dry_run: z.boolean(),
  left_out: leftOutSchema
    .optional()
    .describe(
      'dry runs only: the retrieval candidates left out and why (a logged call: its context-log entry)',
    ),
};

/** The context reply as documented: the payload typed by `format`. */
export const contextReplySchema = z
  .discriminatedUnion('format', [
    z.object({ payload: anthropicPayloadSchema, format: z.literal('anthropic'), ...replyFields }),
    z.object({ payload: openaiChatPayloadSchema, format: z.literal('openai'), ...replyFields }),
  ])
  .meta({ id: 'ContextReply', examples: [contextReplyExample] });

/**
 * The reply as the route sends it: payload, context and attachments open, as assembly built them (a
 * parse would rebuild them in schema key order and change the bytes the payload hash and the
 * Idempotency-Key replay are taken over). The route stringifies the reply without encoding it;
 * the test app checks every reply's bytes against this schema's encoding, and its content against
 * `contextReplySchema`.
 */
export const contextReplyWireSchema = z.object({
  payload: z.record(z.string(), z.unknown()),
  format: z.enum(['anthropic', 'openai']),
  ...replyFields,
  context: z.record(z.string(), z.unknown()),
  attachments: z.array(z.record(z.string(), z.unknown())),
});

export const contextLogEntrySchema = z
  .object({
    turn_seq: z.number(),
    lane_key: z.string(),
    lane_version: z.number(),
    payload_sha256: z.string(),
    model: z.string().nullable(),
    budget: z.record(z.string(), z.unknown()),
    deferred_tools: z.array(z.string()),
    deferred_tool_details: z
      .array(deferredToolSchema)
      .describe('the deferred tools as the reply listed them (`deferred_tools` has their names)'),
    context: assembledContextSchema
      .nullable()
      .describe("the reply's `context`: parts by source, retrieved items with scores, the lane view"),
    cache: cacheReportSchema
      .nullable()
      .describe("the reply's `cache`: breakpoints and the stable prefix's tokens"),
    notes: z.array(z.string()).nullable().describe("the reply's `notes`"),
    attachments: z.array(attachmentSchema).nullable().describe("the reply's `attachments`"),
    left_out: leftOutSchema
      .nullable()
      .describe('the retrieval candidates the payload left out and why (null: logged before they were kept)'),
    created_at: z.string().meta({ description: 'When the call was made.' }),
    anchor_at: z.string().nullable().meta({
      description:
        "The time assembly took as now: the anchor message's, else the turn's stated time, else the lane's latest turn's.",
    }),
    replayable: z.boolean().meta({
      description:
        'Whether GET …/context-log/{seq}/payload can return this payload (calls logged since replay).',
    }),
  })
  .describe('`context`, `cache`, `notes` and `attachments` are null on calls logged before they were kept');
