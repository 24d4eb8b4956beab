// /v1/memories: typed durable records (create, list, read, update, delete) and search over
// memories, transcript chunks and channel messages.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { memoryScopes, memoryTypes } from './core/memories.js';
import { DEFAULT_MAX_RESULTS, MAX_MAX_RESULTS } from './memory-search.service.js';
import type { Services } from '../services.js';
import type { AppDeps } from '../../deps.js';

const scope = z.enum(memoryScopes);
const type = z.enum(memoryTypes);
const metadata = z
  .looseObject({
    lane_key: z.string().min(1).max(512).optional(),
    summary_version: z.number().int().nonnegative().optional(),
    updated_at_ms: z.number().int().nonnegative().optional(),
    message_range: z
      .object({
        from: z.union([z.string(), z.number()]).optional(),
        to: z.union([z.string(), z.number()]).optional(),
      })
      .optional(),
  })
  .describe('lane_key, summary_version, updated_at_ms, message_range; other keys are kept as given');
const isoTime = z.iso.datetime({ offset: true });

const memory = z
  .object({
    id: z.string(),
    scope,
    scope_key: z.string(),
    type,
    text: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    source: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string().nullable(),
  })
  .describe('A memory record');
const redactions = z.record(z.string(), z.number()).describe('secrets replaced, by kind');

const createBody = z.object({
  scope,
  scope_key: z
    .string()
    .max(512)
    .optional()
    .describe('tenant: none; channel: "platform:channel_id"; user: the user id; session: the session key'),
  type,
  text: z.string().describe('redacted before storing; at most 16,000 characters after redaction (413)'),
  metadata: metadata.optional(),
  source: z.string().max(512).nullable().optional(),
  expires_at: isoTime.nullable().optional(),
});
const createReply = z.object({ memory, created: z.boolean(), deduplicated: z.boolean(), redactions });

const patchBody = z
  .object({
    text: z.string().optional(),
    type: type.optional(),
    metadata: metadata.optional().describe('merged into the stored metadata'),
    source: z.string().max(512).nullable().optional(),
    expires_at: isoTime.nullable().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'nothing to update' });

const idParams = z.object({ id: z.uuid() });

const searchBody = z.object({
  query: z.string().max(4_000),
  max_results: z.number().int().min(1).max(MAX_MAX_RESULTS).default(DEFAULT_MAX_RESULTS),
  filters: z
    .object({
      scope: scope.optional(),
      scope_key: z.string().max(512).optional(),
      types: z.array(type).max(memoryTypes.length).optional(),
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
    .describe("the caller's lane: results from other lanes need a score ≥ 0.5 unless listed in named_lanes"),
  named_lanes: z.array(z.string().max(512)).max(50).optional(),
  include_memories: z.boolean().default(true),
  include_transcripts: z.boolean().default(true),
  include_channel_messages: z.boolean().default(false),
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
const searchReply = z.object({
  results: z.array(searchResult),
  terms: z.array(z.string()),
  note: z.string().optional(),
});

export function memoriesRoutes(services: Services, deps: Pick<AppDeps, 'clock'>): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/memories',
      {
        schema: {
          tags: ['memory'],
          summary:
            'Create a memory (redacted; the same text in the same scope and type is returned, not duplicated)',
          headers: idempotencyKeyHeaders,
          body: createBody,
          response: { 200: createReply, 201: createReply },
        },
      },
      async (request, reply) => {
        const result = await services.memories.create({
          tenantId: request.tenantId,
          input: request.body,
          idempotencyKey: request.headers['idempotency-key'],
        });
        return reply.code(result.statusCode === 201 ? 201 : 200).send(result.body);
      },
    );

    app.get(
      '/memories',
      {
        schema: {
          tags: ['memory'],
          summary: 'List memories, newest first (cursor paging; expired ones are left out)',
          querystring: z.object({
            scope: scope.optional(),
            scope_key: z.string().max(512).optional(),
            type: type.optional(),
            limit: z.coerce.number().int().min(1).max(200).default(50),
            cursor: z.uuid().optional(),
          }),
          response: { 200: z.object({ memories: z.array(memory), next_cursor: z.string().nullable() }) },
        },
      },
      async (request) =>
        services.memories.list({
          tenantId: request.tenantId,
          scope: request.query.scope,
          scopeKey: request.query.scope_key,
          type: request.query.type,
          cursor: request.query.cursor,
          limit: request.query.limit,
        }),
    );

    app.get(
      '/memories/:id',
      {
        schema: { tags: ['memory'], summary: 'Read a memory', params: idParams, response: { 200: memory } },
      },
      async (request) => services.memories.get({ tenantId: request.tenantId, id: request.params.id }),
    );

    app.patch(
      '/memories/:id',
      {
        schema: {
          tags: ['memory'],
          summary: 'Update a memory (409 memory.duplicate when the new text already exists in its scope)',
          headers: idempotencyKeyHeaders,
          params: idParams,
          body: patchBody,
          response: { 200: z.object({ memory, redactions }) },
        },
      },
      async (request) => {
        const result = await services.memories.update({
          tenantId: request.tenantId,
          id: request.params.id,
          patch: request.body,
          idempotencyKey: request.headers['idempotency-key'],
        });
        return result.body;
      },
    );

    app.delete(
      '/memories/:id',
      {
        schema: {
          tags: ['memory'],
          summary: 'Delete a memory',
          headers: idempotencyKeyHeaders,
          params: idParams,
          response: { 204: z.null().describe('deleted') },
        },
      },
      async (request, reply) => {
        await services.memories.delete({
          tenantId: request.tenantId,
          id: request.params.id,
          idempotencyKey: request.headers['idempotency-key'],
        });
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/memories/search',
      {
        schema: {
          tags: ['memory'],
          summary: 'Search memories, transcript chunks and (optionally) channel messages',
          body: searchBody,
          response: { 200: searchReply },
        },
      },
      async (request) => {
        const body = request.body;
        const f = body.filters;
        const sources = [
          ...(body.include_memories ? (['memories'] as const) : []),
          ...(body.include_transcripts && !f.types?.length ? (['transcript_chunks'] as const) : []),
          ...(body.include_channel_messages ? (['channel_messages'] as const) : []),
        ];
        return services.memorySearch.searchMemory({
          tenantId: request.tenantId,
          query: body.query,
          maxResults: body.max_results,
          sources,
          laneKey: body.lane_key,
          namedLanes: body.named_lanes,
          now: deps.clock.now(),
          filters: {
            scope: f.scope,
            scopeKey: f.scope_key,
            types: f.types,
            sessionKey: f.session_key,
            platform: f.platform,
            channelId: f.channel_id,
            laneKey: f.lane_key,
            since: f.since ? new Date(f.since) : undefined,
            until: f.until ? new Date(f.until) : undefined,
          },
        });
      },
    );
  };
}
