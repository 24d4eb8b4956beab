// Wire shapes of sessions and their transcripts: create, the session view, turns to append and
// the transcript entries.
import { z } from 'zod';
import { turnContentSchema } from '../../shared/content-blocks.js';

export const keyPart = z.string().min(1).max(256);
export const sessionIdParams = z.object({ id: z.uuid() });

export const createSessionBody = z
  .strictObject({
    session_key: z.string().min(1).max(1024).optional().describe('explicit key, e.g. telegram:chat:123'),
    agent_id: keyPart.optional(),
    platform: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a lowercase platform name')
      .optional(),
    chat_type: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'dm, group, channel, …')
      .optional(),
    user_id: keyPart.optional().describe('peer of a DM session'),
    channel_id: keyPart.optional().describe('peer of a group/channel session'),
    max_age_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('freshness: a session whose last turn is older is replaced; default SESSION_MAX_AGE_MS'),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    examples: [{ agent_id: 'release-bot', platform: 'slack', chat_type: 'channel', channel_id: 'C024BE91L' }],
  })
  .superRefine((body, ctx) => {
    if (body.session_key) return;
    for (const field of ['agent_id', 'platform', 'chat_type'] as const) {
      if (!body[field])
        ctx.addIssue({ code: 'custom', path: [field], message: `required without session_key` });
    }
    const peer = body.chat_type === 'dm' ? 'user_id' : 'channel_id';
    if (body.chat_type && !body[peer]) {
      ctx.addIssue({ code: 'custom', path: [peer], message: `required for chat_type "${body.chat_type}"` });
    }
  });

const calibrationSchema = z.record(
  z.string(),
  z.object({ ratio: z.number().nullable(), cache_read_share: z.number().nullable(), calls: z.number() }),
);

export const sessionSchema = z.object({
  id: z.string(),
  session_key: z.string(),
  agent_id: z.string().nullable(),
  platform: z.string().nullable(),
  channel_id: z.string().nullable(),
  user_id: z.string().nullable(),
  chat_type: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  last_turn_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  live: z.boolean(),
  turn_count: z.number(),
  compaction_count: z.number(),
  total_tokens: z.number(),
  next_seq: z.number(),
  reset_from: z.string().nullable(),
  pending_tool_use_ids: z.array(z.string()),
  calibration: calibrationSchema,
  cost_totals: z
    .object({
      calls: z.number(),
      cache_read: z.number(),
      cache_write: z.number(),
      uncached: z.number(),
      billed_input: z.number(),
    })
    .describe(
      "the sums of every logged context call's expected cost (budget.cost): input tokens read from the prompt cache, written to it, uncached, and the bill in base-input tokens (dry runs are not counted)",
    ),
  metadata: z.record(z.string(), z.unknown()),
});

export const sessionResultSchema = z.object({
  session: sessionSchema,
  created: z.boolean(),
  reason: z.enum(['new', 'stale', 'existing', 'reset']),
});

// A message's `usage` as the Anthropic SDK returns it: the counts it may leave out are `null` there,
// read here as not reported (dropped), and the fields it adds beyond the four counts (service_tier,
// server_tool_use, …) are accepted and dropped, so the bot can send `message.usage` as it is.
const reportedCount = z.number().int().nonnegative();
const usageSchema = z
  .object({
    input_tokens: reportedCount,
    output_tokens: reportedCount.nullish(),
    cache_creation_input_tokens: reportedCount.nullish(),
    cache_read_input_tokens: reportedCount.nullish(),
  })
  .meta({ 'x-unknown-fields': 'dropped' })
  .transform(({ input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens }) => ({
    input_tokens,
    ...(output_tokens == null ? {} : { output_tokens }),
    ...(cache_creation_input_tokens == null ? {} : { cache_creation_input_tokens }),
    ...(cache_read_input_tokens == null ? {} : { cache_read_input_tokens }),
  }));

const turnSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: turnContentSchema,
  lane_key: z.string().min(1).max(1024).optional(),
  author: z
    .strictObject({ id: z.string().max(256).optional(), name: z.string().max(256).optional() })
    .optional(),
  time: z.iso.datetime({ offset: true }).optional().describe('when the turn happened (group chats)'),
  usage: usageSchema.optional().describe('provider usage of the call that produced this assistant turn'),
  model: z.string().min(1).max(256).optional(),
  source: z.record(z.string(), z.string()).optional().describe('where the turn came from'),
});

export const appendBody = z.strictObject({ turns: z.array(turnSchema).min(1).max(100) }).meta({
  examples: [
    {
      turns: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check the release board.' },
            {
              type: 'tool_use',
              id: 'toolu_01A09q90qw90lq917835lq9',
              name: 'channel_context',
              input: { intent: 'release Friday blockers' },
            },
          ],
          model: 'claude-sonnet-5-5',
          usage: { input_tokens: 412, cache_read_input_tokens: 3_870, output_tokens: 58 },
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
              content: 'maria (14:02): the migration PR is the last blocker',
            },
          ],
        },
      ],
    },
  ],
});

const offloadedSchema = z.object({ tool_use_id: z.string(), ref_id: z.string() });
const entrySummarySchema = z.object({
  seq: z.number(),
  lane_key: z.string(),
  kind: z.string(),
  role: z.enum(['user', 'assistant']).nullable(),
  token_estimate: z.number(),
  created_at: z.string(),
  offloaded: z.array(offloadedSchema),
});
export const appendReply = z.object({ session_id: z.string(), entries: z.array(entrySummarySchema) });

export const entrySchema = entrySummarySchema.extend({
  content: z.unknown(),
  author: z.object({ id: z.string().optional(), name: z.string().optional() }).nullable(),
  turn_at: z.string().nullable(),
  usage: z.record(z.string(), z.number()).nullable(),
  model: z.string().nullable(),
  source: z.record(z.string(), z.string()).nullable(),
  idempotency_key: z.string().nullable(),
});
