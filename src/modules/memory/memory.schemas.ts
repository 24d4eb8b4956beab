// Wire shapes of memories: create, update, the memory view and search.
import { z } from 'zod';
import { memoryScopes, memoryTypes } from './core/memories.js';
import { DEFAULT_MAX_RESULTS, MAX_MAX_RESULTS } from './memory-search.service.js';

export const memoryScopeSchema = z.enum(memoryScopes);
export const memoryTypeSchema = z.enum(memoryTypes);
const metadata = z
  .looseObject({
    lane_key: z.string().min(1).max(512).optional(),
    summary_version: z.number().int().nonnegative().optional(),
    updated_at_ms: z.number().int().nonnegative().optional(),
    message_range: z
      .strictObject({
        from: z.union([z.string(), z.number()]).optional(),
        to: z.union([z.string(), z.number()]).optional(),
      })
      .optional(),
  })
  .describe('lane_key, summary_version, updated_at_ms, message_range; other keys are kept as given');
const isoTime = z.iso.datetime({ offset: true });

export const memorySchema = z
  .object({
    id: z.string(),
    scope: memoryScopeSchema,
    scope_key: z.string(),
    type: memoryTypeSchema,
    text: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    source: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string().nullable(),
  })
  .describe('A memory record');
export const redactions = z.record(z.string(), z.number()).describe('secrets replaced, by kind');

export const createBody = z
  .strictObject({
    scope: memoryScopeSchema,
    scope_key: z
      .string()
      .max(512)
      .optional()
      .describe('tenant: none; channel: "platform:channel_id"; user: the user id; session: the session key'),
    type: memoryTypeSchema,
    text: z.string().describe('redacted before storing; at most 16,000 characters after redaction (413)'),
    metadata: metadata.optional(),
    source: z.string().max(512).nullable().optional(),
    expires_at: isoTime.nullable().optional(),
  })
  .meta({
    examples: [
      {
        scope: 'channel',
        scope_key: 'slack:C024BE91L',
        type: 'fact',
        text: 'Releases ship on Fridays only after the migration checklist is signed off by maria.',
        source: 'slack:C024BE91L/1700000123.000200',
      },
    ],
  });
export const createReply = z.object({
  memory: memorySchema,
  created: z.boolean(),
  deduplicated: z.boolean(),
  redactions,
});

export const patchBody = z
  .strictObject({
    text: z.string().optional(),
    type: memoryTypeSchema.optional(),
    metadata: metadata.optional().describe('merged into the stored metadata'),
    source: z.string().max(512).nullable().optional(),
    expires_at: isoTime.nullable().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'nothing to update' })
  .meta({
    examples: [
      {
        text: 'Releases ship on Fridays only after the migration checklist is signed off by maria or ivan.',
        expires_at: '2027-06-30T00:00:00Z',
      },
    ],
  });

export const idParams = z.object({ id: z.uuid() });

export const searchBody = z
  .strictObject({
    query: z.string().max(4_000),
    max_results: z.number().int().min(1).max(MAX_MAX_RESULTS).default(DEFAULT_MAX_RESULTS),
    filters: z
      .strictObject({
        scope: memoryScopeSchema.optional(),
        scope_key: z.string().max(512).optional(),
        types: z.array(memoryTypeSchema).max(memoryTypes.length).optional(),
        session_key: z.string().max(512).optional(),
        platform: z.string().max(64).optional(),
        channel_id: z.string().max(512).optional(),
        lane_key: z.string().max(512).optional(),
        since: isoTime.optional(),
        until: isoTime.optional(),
      })
      .default({})
      .describe(
        'scope/scope_key/types narrow memories, session_key narrows transcript chunks, platform/channel_id narrow channel messages; lane_key and since/until narrow every source',
      ),
    lane_key: z
      .string()
      .max(512)
      .optional()
      .describe(
        "the caller's lane: results from other lanes need a score ≥ 0.5 unless listed in named_lanes",
      ),
    named_lanes: z.array(z.string().max(512)).max(50).optional(),
    include_memories: z.boolean().default(true),
    include_transcripts: z.boolean().default(true),
    include_channel_messages: z.boolean().default(false),
  })
  .meta({
    examples: [
      {
        query: 'who signs off the release checklist',
        max_results: 5,
        filters: { scope: 'channel', scope_key: 'slack:C024BE91L', types: ['fact', 'outcome'] },
        include_transcripts: false,
      },
    ],
  });
const searchResult = z.object({
  kind: z.enum(['memory', 'transcript_chunk', 'channel_message']),
  id: z.string(),
  score: z.number().min(0).max(1),
  snippet: z.string(),
  text: z.string(),
  time: z.string(),
  lane_key: z.string().nullable(),
  source: z.record(z.string(), z.unknown()),
});
export const searchReply = z.object({
  results: z.array(searchResult),
  terms: z.array(z.string()),
  note: z.string().optional(),
});
