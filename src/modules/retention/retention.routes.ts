// GET/PUT /v1/tenant/retention: the calling tenant's retention periods.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotent } from '../../http/idempotency/idempotent-reply.js';
import type { Services } from '../services.js';
import { retentionSettingsBody, retentionSettingsSchema } from './retention.schemas.js';

export function retentionRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/tenant/retention',
      {
        schema: {
          tags: ['tenancy'],
          operationId: 'getRetention',
          summary: "The tenant's retention periods: its own and those in force",
          response: { 200: retentionSettingsSchema },
        },
      },
      async (request) => services.retention.getSettings(request.tenantId),
    );

    app.put(
      '/tenant/retention',
      {
        schema: {
          tags: ['tenancy'],
          operationId: 'setRetention',
          summary: "Set the tenant's retention periods (null: the service default)",
          headers: idempotencyKeyHeaders,
          body: retentionSettingsBody,
          response: { 200: retentionSettingsSchema },
        },
      },
      async (request, reply) =>
        replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'tenant.retention.put', request: request.body },
          async (tx) => ({
            statusCode: 200,
            body: await services.retention.setSettings(request.tenantId, request.body, tx),
          }),
        ),
    );
  };
}
