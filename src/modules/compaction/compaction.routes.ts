// /v1/sessions/{id}/compact (run or queue a compaction), its job status, and the lane state view
// with the original entries its summary covers (docs/compaction.md).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../services.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotent, replyIdempotentRecorded } from '../../http/idempotency/idempotent-reply.js';
import type { CompactResult } from './compaction.service.js';
import {
  compactBody,
  compactResultSchema,
  compactionJobSchema,
  type CompactionJobView,
  laneParams,
  laneViewQuery,
  laneViewSchema,
  summarizerBudgetBody,
  summarizerBudgetSchema,
} from './compaction.schemas.js';

const TAGS = ['sessions'];

export function compactionRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/sessions/:id/compact',
      {
        schema: {
          tags: TAGS,
          operationId: 'compactSession',
          summary: 'Compact the session now (`wait`) or queue a compaction job (202)',
          description:
            'Runs the compaction chain (clear old tool results, summarize older entries into the lane summary, truncate) for every lane of the session, or the named ones. With `wait: true` the reply is the CompactResult; otherwise a job is queued (one per session) and the reply is 202 with it. A compaction already running is a 409 `compaction.running` with `holder_age_ms`, unless `wait`; a job already queued for the session is answered (`deduplicated: true`) instead of a second one. With Idempotency-Key, a retry with the same body replays the first reply (header `idempotent-replayed: true`); another body under the key is 409 `idempotency.key_reused`.',
          params: z.object({ id: z.uuid() }),
          headers: idempotencyKeyHeaders,
          body: compactBody,
          response: { 200: compactResultSchema, 202: compactionJobSchema },
        },
      },
      async (request, reply) => {
        const body = request.body ?? {};
        // The compaction commits in its own transactions: the reply is recorded once it is known.
        return replyIdempotentRecorded<CompactResult | CompactionJobView>(
          services.idempotency,
          request,
          reply,
          { scope: 'sessions.compact', request: { session_id: request.params.id, body } },
          async (record) => {
            const outcome = await services.compaction.requestCompaction({
              tenantId: request.tenantId,
              sessionId: request.params.id,
              laneKeys: body.lanes,
              wait: body.wait ?? false,
              force: body.force ?? true,
            });
            const result =
              outcome.kind === 'queued'
                ? { statusCode: 202, body: outcome.job }
                : { statusCode: 200, body: outcome.result };
            await record(result);
            return result;
          },
        );
      },
    );

    app.get(
      '/sessions/:id/compact/jobs/:jobId',
      {
        schema: {
          tags: TAGS,
          operationId: 'getCompactionJob',
          summary: 'A queued compaction job: its state and, once done, its CompactResult',
          params: z.object({ id: z.uuid(), jobId: z.string().min(1).max(128) }),
          response: { 200: compactionJobSchema },
        },
      },
      async (request) =>
        services.compaction.getJob({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          jobId: request.params.jobId,
        }),
    );

    app.get(
      '/tenant/summarizer',
      {
        schema: {
          tags: ['tenancy'],
          operationId: 'getSummarizerBudget',
          summary: "This month's summarizer spend of the tenant and its monthly cap",
          response: { 200: summarizerBudgetSchema },
        },
      },
      async (request) => services.summarizerSpend.view(request.tenantId),
    );

    app.put(
      '/tenant/summarizer',
      {
        schema: {
          tags: ['tenancy'],
          operationId: 'setSummarizerBudget',
          summary: 'Set (or clear, with null) the monthly summarizer token cap of the tenant',
          headers: idempotencyKeyHeaders,
          body: summarizerBudgetBody,
          response: { 200: summarizerBudgetSchema },
        },
      },
      async (request, reply) =>
        replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'tenant.summarizer.put', request: request.body },
          async (tx) => ({
            statusCode: 200,
            body: await services.summarizerSpend.setCap(request.tenantId, request.body.monthly_token_cap, tx),
          }),
        ),
    );

    app.get(
      '/sessions/:id/lanes/:lane',
      {
        schema: {
          tags: TAGS,
          operationId: 'getLane',
          summary: "A lane's state: its rolling summary, view start, cleared point and version",
          description:
            '`expand=true` adds a page of the original transcript entries the summary covers (`after` pages on), so every summary can be checked against what it summarized.',
          params: laneParams,
          querystring: laneViewQuery,
          response: { 200: laneViewSchema },
        },
      },
      async (request) =>
        services.compaction.laneView({
          tenantId: request.tenantId,
          sessionId: request.params.id,
          laneKey: request.params.lane,
          expand: request.query.expand,
          limit: request.query.limit,
          ...(request.query.after !== undefined ? { after: request.query.after } : {}),
        }),
    );
  };
}
