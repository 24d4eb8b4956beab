// /v1/memories: typed durable records (create, list, read, update, delete) and search over
// memories, transcript chunks and channel messages.
import { redactText } from './core/redaction.js';
import { makeSnippet } from './core/retrieval-ranking.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { idempotencyKeyOf, sendIdempotent } from '../../http/idempotency/idempotent-reply.js';
import type { Services } from '../services.js';
import type { AppDeps } from '../../deps.js';
import {
  memoryScopeSchema,
  memoryTypeSchema,
  memorySchema,
  redactions,
  createBody,
  createReply,
  patchBody,
  idParams,
  searchBody,
  searchReply,
} from './memory.schemas.js';

export function memoriesRoutes(services: Services, deps: Pick<AppDeps, 'clock'>): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/memories',
      {
        schema: {
          operationId: 'createMemory',
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
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, result);
      },
    );

    app.get(
      '/memories',
      {
        schema: {
          operationId: 'listMemories',
          tags: ['memory'],
          summary: 'List memories, newest first (cursor paging; expired ones are left out)',
          querystring: z.object({
            scope: memoryScopeSchema.optional(),
            scope_key: z.string().max(512).optional(),
            type: memoryTypeSchema.optional(),
            limit: z.coerce.number().int().min(1).max(200).default(50),
            cursor: z.uuid().optional(),
          }),
          response: {
            200: z.object({ memories: z.array(memorySchema), next_cursor: z.string().nullable() }),
          },
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
        schema: {
          operationId: 'getMemory',
          tags: ['memory'],
          summary: 'Read a memory',
          params: idParams,
          response: { 200: memorySchema },
        },
      },
      async (request) => services.memories.get({ tenantId: request.tenantId, id: request.params.id }),
    );

    app.patch(
      '/memories/:id',
      {
        schema: {
          operationId: 'updateMemory',
          tags: ['memory'],
          summary: 'Update a memory (409 memory.duplicate when the new text already exists in its scope)',
          headers: idempotencyKeyHeaders,
          params: idParams,
          body: patchBody,
          response: { 200: z.object({ memory: memorySchema, redactions }) },
        },
      },
      async (request, reply) => {
        const result = await services.memories.update({
          tenantId: request.tenantId,
          id: request.params.id,
          patch: request.body,
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, result);
      },
    );

    app.delete(
      '/memories/:id',
      {
        schema: {
          operationId: 'deleteMemory',
          tags: ['memory'],
          summary: 'Delete a memory',
          headers: idempotencyKeyHeaders,
          params: idParams,
          response: { 204: z.null().describe('deleted') },
        },
      },
      async (request, reply) => {
        const result = await services.memories.delete({
          tenantId: request.tenantId,
          id: request.params.id,
          idempotencyKey: idempotencyKeyOf(request),
        });
        return sendIdempotent(reply, result);
      },
    );

    app.post(
      '/memories/search',
      {
        schema: {
          operationId: 'searchMemories',
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
        const reply = await (services.memorySearchReads ?? services.memorySearch).searchMemory({
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
        // Chunks and memories stored before the current rules are redacted on the way out too
        // (the search index holds them as they were until rewritten: docs/memory.md).
        return {
          ...reply,
          results: reply.results.map((r) => {
            const text = redactText(r.text);
            return text === r.text ? r : { ...r, text, snippet: r.snippet && makeSnippet(text, reply.terms) };
          }),
        };
      },
    );
  };
}
