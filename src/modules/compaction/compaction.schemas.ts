// Wire shapes of compaction: the compact request and its result (CompactResult), the job reply,
// and the lane state view with its expansion.
import { z } from 'zod';

export const laneParams = z.object({
  id: z.uuid(),
  lane: z
    .string()
    .min(1)
    .max(512)
    .describe('the lane key (e.g. thread:C1:1700000000.0001), at most 512 characters in the path'),
});

export const compactBody = z
  .strictObject({
    lanes: z
      .array(z.string().min(1).max(512))
      .min(1)
      .max(100)
      .optional()
      .describe('only these lanes (default: every lane of the session)'),
    wait: z
      .boolean()
      .optional()
      .describe(
        'run now and reply with the result (waiting for a running compaction); default: queue a job, 202',
      ),
    force: z
      .boolean()
      .optional()
      .describe('compact lanes that are under their thresholds too (default true)'),
  })
  .default({});

const laneOutcomeSchema = z.object({
  lane_key: z.string(),
  outcome: z.enum(['committed', 'fenced', 'skipped']),
  strategies_run: z.array(z.enum(['clear_tool_results', 'summarize', 'truncate'])),
  before_tokens: z.number(),
  after_tokens: z.number(),
  before_messages: z.number(),
  after_messages: z.number(),
  summary_version: z.number(),
  first_kept_seq: z.number(),
  cleared_before_seq: z.number(),
  summarizer: z.enum(['llm', 'extractive']).nullable(),
  fallback_reason: z.string().nullable(),
  summarizer_tokens: z.object({ input: z.number(), output: z.number() }),
  identifiers: z
    .object({ total: z.number(), kept: z.number() })
    .nullable()
    .describe(
      'identifiers (ids, paths, URLs, numbers, error messages) of the summarized entries kept verbatim',
    ),
  key_terms: z
    .object({
      slice: z.object({ total: z.number(), kept: z.number() }),
      cumulative: z.object({ total: z.number(), kept: z.number() }),
    })
    .nullable()
    .describe(
      'names, numbers, dates and identifiers the new summary holds: of the entries this compaction summarized (slice) and of everything the lane summary ever covered (cumulative)',
    ),
  record_seq: z.number().nullable().describe('seq of the compaction record in the transcript'),
  reason: z.string().nullable(),
});

export const compactResultSchema = z.object({
  session_id: z.string(),
  before_tokens: z.number(),
  after_tokens: z.number(),
  before_messages: z.number(),
  after_messages: z.number(),
  strategies_run: z.array(z.enum(['clear_tool_results', 'summarize', 'truncate'])),
  lanes: z.array(laneOutcomeSchema),
});

export const compactionJobSchema = z.object({
  job_id: z.string(),
  session_id: z.string(),
  state: z.enum(['created', 'retry', 'active', 'completed', 'failed', 'cancelled']),
  deduplicated: z
    .boolean()
    .optional()
    .describe('a job for this session was already queued: this is that job (it will see the new turns too)'),
  result: compactResultSchema.nullable().optional(),
  error: z.string().nullable().optional(),
});

export const laneViewQuery = z.object({
  expand: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('true: also return the original entries the summary covers'),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  after: z.coerce.number().int().min(0).optional().describe('expansion cursor: entries after this seq'),
});

export const laneViewSchema = z.object({
  session_id: z.string(),
  lane_key: z.string(),
  summary: z.string().nullable(),
  summary_version: z.number(),
  summary_updated_at: z.string().nullable(),
  summary_stale: z.boolean(),
  summarized_through_seq: z.number(),
  first_kept_seq: z.number(),
  cleared_before_seq: z.number(),
  version: z.number(),
  purge_pending: z.boolean(),
  kept_entries: z.number(),
  kept_tokens: z.number(),
  compactions: z.number().describe('compaction records of this lane in the transcript'),
  expanded: z
    .object({
      entries: z.array(
        z.object({
          seq: z.number(),
          role: z.enum(['user', 'assistant']).nullable(),
          kind: z.string(),
          content: z.unknown(),
          created_at: z.string(),
        }),
      ),
      next_cursor: z.number().nullable(),
    })
    .nullable(),
});

export type LaneView = z.infer<typeof laneViewSchema>;
export type CompactionJobView = z.infer<typeof compactionJobSchema>;
export type CompactResult = z.infer<typeof compactResultSchema>;
export type LaneOutcome = z.infer<typeof laneOutcomeSchema>;

export const summarizerBudgetSchema = z.object({
  monthly_token_cap: z
    .number()
    .nullable()
    .describe(
      'summarizer tokens (input + output) per calendar month; past it the extractive summarizer is used',
    ),
  period: z.string().describe('the current month (UTC), e.g. 2026-11'),
  input_tokens: z.number().describe('provider-reported summarizer input tokens this month'),
  output_tokens: z.number().describe('provider-reported summarizer output tokens this month'),
});

export const summarizerBudgetBody = z.strictObject({
  monthly_token_cap: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
});
