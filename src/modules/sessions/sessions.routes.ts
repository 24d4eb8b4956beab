// /v1/sessions: get-or-create, read, list, reset, delete; turns in, transcript and manifest out.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import {
  idempotencyKeyOf,
  replyIdempotent,
  replyIdempotentRecorded,
  sendIdempotent,
} from '../../http/idempotency/idempotent-reply.js';
import type { Services } from '../services.js';
import { manifestView } from './manifest.service.js';
import { sessionResultView, sessionView } from './sessions.service.js';
import { transcriptEntrySummary, transcriptEntryView } from './transcript.service.js';
import {
  keyPart,
  sessionIdParams,
  createSessionBody,
  sessionSchema,
  sessionResultSchema,
  appendBody,
  appendReply,
  entrySchema,
} from './sessions.schemas.js';

const TAGS = ['sessions'];

export function sessionsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/sessions',
      {
        schema: {
          operationId: 'createSession',
          tags: TAGS,
          summary: 'Get or create the live session for a key (fresh within max_age, else replaced)',
          headers: idempotencyKeyHeaders,
          body: createSessionBody,
          response: { 200: sessionResultSchema, 201: sessionResultSchema },
        },
      },
      async (request, reply) => {
        const { tenantId, body } = request;
        // get-or-create retries its own races, so its reply is recorded after it (not in its writes).
        return replyIdempotentRecorded<z.infer<typeof sessionResultSchema>>(
          services.idempotency,
          request,
          reply,
          { scope: 'sessions.create', request: body },
          async (record) => {
            const out = await services.sessions.getOrCreate({
              tenantId,
              sessionKey: body.session_key,
              parts: {
                agentId: body.agent_id,
                platform: body.platform,
                chatType: body.chat_type,
                userId: body.user_id,
                channelId: body.channel_id,
              },
              maxAgeMs: body.max_age_ms,
              metadata: body.metadata,
            });
            const result = { statusCode: out.created ? 201 : 200, body: sessionResultView(out) };
            await record(result);
            return result;
          },
        );
      },
    );

    app.get(
      '/sessions',
      {
        schema: {
          operationId: 'listSessions',
          tags: TAGS,
          summary: 'List sessions, newest first (filter by key, agent, live)',
          querystring: z.object({
            key: z.string().min(1).max(1024).optional(),
            agent_id: keyPart.optional(),
            live: z.enum(['true', 'false']).optional(),
            cursor: z.uuid().optional(),
            limit: z.coerce.number().int().min(1).max(200).default(50),
          }),
          response: {
            200: z.object({ sessions: z.array(sessionSchema), next_cursor: z.string().nullable() }),
          },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await services.sessions.list({
          tenantId: request.tenantId,
          sessionKey: q.key,
          agentId: q.agent_id,
          live: q.live === undefined ? undefined : q.live === 'true',
          cursor: q.cursor,
          limit: q.limit,
        });
        return { sessions: page.sessions.map(sessionView), next_cursor: page.nextCursor };
      },
    );

    app.get(
      '/sessions/:id',
      {
        schema: {
          operationId: 'getSession',
          tags: TAGS,
          summary: 'A session, with its usage calibration per model',
          params: sessionIdParams,
          response: { 200: sessionSchema },
        },
      },
      async (request) =>
        sessionView(await services.sessions.get({ tenantId: request.tenantId, id: request.params.id })),
    );

    for (const [path, operationId] of [
      ['/sessions/:id/reset', 'resetSession'],
      ['/sessions/:id/new', 'newSession'],
    ] as const) {
      app.post(
        path,
        {
          schema: {
            operationId,
            tags: TAGS,
            summary: 'End the session and start a new one for its key (links back, keeps compaction_count)',
            params: sessionIdParams,
            headers: idempotencyKeyHeaders,
            response: { 201: sessionResultSchema },
          },
        },
        async (request, reply) => {
          const { tenantId } = request;
          const { id } = request.params;
          // A retried reset with the same key gets the first reply instead of 409 session.ended.
          return replyIdempotent(
            services.idempotency,
            request,
            reply,
            { scope: 'sessions.reset', request: { id } },
            async (tx) => {
              const out = await services.sessions.reset({ tenantId, id }, tx);
              return { statusCode: 201, body: sessionResultView(out) };
            },
          );
        },
      );
    }

    app.delete(
      '/sessions/:id',
      {
        schema: {
          operationId: 'deleteSession',
          tags: TAGS,
          summary:
            'Hard delete: the session, its transcript, lane states, manifest, blobs, chunks and audit log',
          params: sessionIdParams,
          headers: idempotencyKeyHeaders,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const { tenantId } = request;
        const { id } = request.params;
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'sessions.delete', request: { id } },
          async (tx) => {
            await services.sessions.remove({ tenantId, id }, tx);
            return { statusCode: 204, body: null };
          },
        );
      },
    );

    app.post(
      '/sessions/:id/turns',
      {
        schema: {
          operationId: 'appendTurns',
          tags: TAGS,
          summary: 'Append user/assistant turns (Anthropic content blocks); Idempotency-Key per request',
          params: sessionIdParams,
          headers: idempotencyKeyHeaders,
          body: appendBody,
          response: { 201: appendReply },
        },
      },
      async (request, reply) => {
        const result = await services.transcript.appendTurns({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          turns: request.body.turns,
          idempotencyKey: idempotencyKeyOf(request),
        });
        const body = { session_id: request.params.id, entries: result.entries.map(transcriptEntrySummary) };
        return sendIdempotent(reply, { statusCode: 201, body, replayed: result.replayed });
      },
    );

    app.get(
      '/sessions/:id/transcript',
      {
        schema: {
          operationId: 'getTranscript',
          tags: TAGS,
          summary: 'The full audit trail in seq order (every kind and lane), paged by seq',
          params: sessionIdParams,
          querystring: z.object({
            cursor: z.coerce
              .number()
              .int()
              .nonnegative()
              .optional()
              .describe('the last seq of the previous page'),
            lane_key: z.string().min(1).max(1024).optional(),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          }),
          response: {
            200: z.object({ entries: z.array(entrySchema), next_cursor: z.string().nullable() }),
          },
        },
      },
      async (request) => {
        const page = await services.transcript.page({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          afterSeq: request.query.cursor,
          laneKey: request.query.lane_key,
          limit: request.query.limit,
        });
        return {
          entries: page.entries.map(transcriptEntryView),
          next_cursor: page.nextCursor === null ? null : String(page.nextCursor),
        };
      },
    );

    app.get(
      '/sessions/:id/attachments',
      {
        schema: {
          operationId: 'listAttachments',
          tags: TAGS,
          summary: 'The attachment manifest: media already put into this conversation',
          params: sessionIdParams,
          response: {
            200: z.object({
              attachments: z.array(
                z.object({
                  artifact_id: z.string(),
                  content_hash: z.string(),
                  display_name: z.string().nullable(),
                  media_type: z.string().nullable(),
                  source_message_id: z.string().nullable(),
                  source_thread_id: z.string().nullable(),
                  included_at_turn: z.number(),
                  created_at: z.string(),
                }),
              ),
            }),
          },
        },
      },
      async (request) => {
        const session = await services.sessions.get({ tenantId: request.tenantId, id: request.params.id });
        const rows = await services.manifest.list({ tenantId: request.tenantId, sessionId: session.id });
        return { attachments: rows.map(manifestView) };
      },
    );
  };
}
