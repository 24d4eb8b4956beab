// /v1/platforms/{platform}/credentials: a tenant's bot token for a platform (stored, never returned).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import type { Services } from '../services.js';
import { credentialsBody, credentialsView, tokenPlatformParams } from './platforms.schemas.js';

const TAGS = ['platforms'];

export function platformsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/platforms/:platform/credentials',
      {
        schema: {
          operationId: 'putPlatformCredentials',
          tags: TAGS,
          summary: "Store the tenant's bot token for a platform (replaces any stored one; never returned)",
          params: tokenPlatformParams,
          headers: idempotencyKeyHeaders,
          body: credentialsBody,
          response: { 200: credentialsView, 201: credentialsView },
        },
      },
      async (request, reply) => {
        const { tenantId, params, body } = request;
        const result = await services.idempotency.run(
          {
            tenantId,
            scope: 'platforms.credentials.put',
            key: request.headers['idempotency-key'],
            request: { platform: params.platform, body },
          },
          async (tx) => {
            const { view, created } = await services.platformCredentials.put(
              {
                tenantId,
                platform: params.platform,
                botToken: body.bot_token,
                workspaceId: body.workspace_id,
              },
              tx,
            );
            return { statusCode: created ? 201 : 200, body: view };
          },
        );
        if (result.replayed) void reply.header('idempotent-replayed', 'true');
        return reply.code(result.statusCode === 201 ? 201 : 200).send(result.body);
      },
    );

    app.get(
      '/platforms/:platform/credentials',
      {
        schema: {
          operationId: 'getPlatformCredentials',
          tags: TAGS,
          summary: 'Whether a bot token is stored for the platform (its last 4 characters at most)',
          params: tokenPlatformParams,
          response: { 200: credentialsView },
        },
      },
      async (request) =>
        services.platformCredentials.get({ tenantId: request.tenantId, platform: request.params.platform }),
    );

    app.delete(
      '/platforms/:platform/credentials',
      {
        schema: {
          operationId: 'deletePlatformCredentials',
          tags: TAGS,
          summary: "Forget the platform's bot token (idempotent: 204 also when none was stored)",
          params: tokenPlatformParams,
          headers: idempotencyKeyHeaders,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const { tenantId, params } = request;
        const result = await services.idempotency.run(
          {
            tenantId,
            scope: 'platforms.credentials.delete',
            key: request.headers['idempotency-key'],
            request: { platform: params.platform },
          },
          async (tx) => {
            await services.platformCredentials.remove({ tenantId, platform: params.platform }, tx);
            return { statusCode: 204, body: null };
          },
        );
        if (result.replayed) void reply.header('idempotent-replayed', 'true');
        return reply.code(204).send(null);
      },
    );
  };
}
