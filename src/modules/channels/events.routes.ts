// POST /v1/events (normalized batches) and POST /v1/events/{platform} (raw platform payloads a
// bot forwards). A bad batch is a 400 naming every bad item and field; nothing is stored.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { idempotencyKeyOf, sendIdempotent } from '../../http/idempotency/idempotent-reply.js';
import {
  checkedEventBatch,
  eventBatchSchema,
  ingestOutcomes,
  MAX_EVENTS_PER_BATCH,
} from '../../shared/channel-events.js';
import { supportedPlatforms } from '../../platforms/index.js';
import type { Services } from '../services.js';

const eventType = z.enum([
  'message.created',
  'message.edited',
  'message.deleted',
  'reaction.added',
  'reaction.removed',
]);

const ingestItemResult = z.object({
  index: z.number().int().describe('position of the event in the batch'),
  type: eventType,
  message_id: z.string(),
  outcome: z.enum(ingestOutcomes),
  reason: z.string().optional(),
  lane_key: z.string().optional().describe('the lane the message is in after this batch'),
});

export const ingestReply = z.object({
  results: z.array(ingestItemResult),
  counts: z.object({
    created: z.number().int(),
    updated: z.number().int(),
    duplicate: z.number().int(),
    ignored: z.number().int(),
  }),
});

const platformIngestReply = ingestReply.extend({
  outcome: z.enum(['ingested', 'ignored']),
  reason: z.string().optional().describe('why the payload was ignored, or which adapted events were dropped'),
  challenge: z.string().optional().describe('Slack url_verification challenge, when that was the payload'),
});

/**
 * The batch route's validation: a body checkedEventBatch is sure of as it is, else zod (which
 * answers every invalid batch, so its 400s name the fields they did). Headers go to zod.
 */
function batchValidatorCompiler<S>(
  route: Parameters<FastifySchemaCompiler<S>>[0],
): ReturnType<FastifySchemaCompiler<S>> {
  const zodValidate = validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]);
  if (route.httpPart !== 'body') return zodValidate;
  return (data: unknown) => {
    const checked = checkedEventBatch(data);
    return checked ? { value: checked } : zodValidate(data);
  };
}

export function eventsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/events',
      {
        schema: {
          operationId: 'ingestEvents',
          tags: ['ingest'],
          summary: `Ingest a batch (1…${MAX_EVENTS_PER_BATCH}) of normalized channel events`,
          description:
            'Validated whole (a 400 lists every bad item as `events.<index>.<field>`, nothing stored), applied in one transaction. Idempotent on event_id and natural keys; out-of-order events converge.',
          headers: idempotencyKeyHeaders,
          body: eventBatchSchema,
          response: { 200: ingestReply },
        },
        validatorCompiler: batchValidatorCompiler,
      },
      async (request, reply) => {
        const { tenantId } = request;
        const result = await services.idempotency.run(
          { tenantId, scope: 'events', key: idempotencyKeyOf(request), request: request.body },
          async (tx) => ({
            statusCode: 200,
            body: await services.ingest.ingest({ tenantId, events: request.body.events }, tx),
          }),
        );
        if (result.replayed) return sendIdempotent(reply, result);
        services.ingestMetrics.observe(result.body.results, (i) => request.body.events[i]!.platform);
        // A fresh reply holds ingestReply's keys in its order (ingest.service builds it so), so its
        // JSON is what the route's serializer would write after a pass through zod. A replay is the
        // stored jsonb, whose key order is jsonb's: it goes through the serializer.
        const body = JSON.stringify(result.body);
        return sendIdempotent(reply.type('application/json; charset=utf-8'), { body, replayed: false });
      },
    );

    app.post(
      '/events/:platform',
      {
        schema: {
          operationId: 'ingestPlatformEvents',
          tags: ['ingest'],
          summary: 'Ingest one raw platform payload (Slack envelope, Telegram Update, Discord dispatch)',
          description:
            'Unknown or uninteresting shapes are answered 200 with outcome `ignored` and a reason. Discord thread messages may carry `parent_channel_id` (beside `d` or inside it) to be stored under the parent channel.',
          params: z.object({ platform: z.enum(supportedPlatforms) }),
          headers: idempotencyKeyHeaders,
          body: z.unknown(),
          response: { 200: platformIngestReply },
        },
      },
      async (request, reply) => {
        const { tenantId } = request;
        const { platform } = request.params;
        const result = await services.idempotency.run(
          { tenantId, scope: `events.${platform}`, key: idempotencyKeyOf(request), request: request.body },
          async (tx) => ({
            statusCode: 200,
            body: await services.ingest.ingestPlatformPayload(
              { tenantId, platform, payload: request.body },
              tx,
            ),
          }),
        );
        if (!result.replayed) services.ingestMetrics.observe(result.body.results, () => platform);
        return sendIdempotent(reply, result);
      },
    );
  };
}
