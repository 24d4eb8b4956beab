// /v1/platforms/{platform}/credentials: a tenant's bot token for a platform (stored, never returned);
// /v1/platforms/{platform}/users: the user directory that names authors stored by id.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotent } from '../../http/idempotency/idempotent-reply.js';
import type { Services } from '../services.js';
import {
  credentialsBody,
  credentialsView,
  directoryPlatformParams,
  directoryUserView,
  pushUsersBody,
  pushUsersReply,
  tokenPlatformParams,
} from './platforms.schemas.js';

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
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'platforms.credentials.put', request: { platform: params.platform, body } },
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
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'platforms.credentials.delete', request: { platform: params.platform } },
          async (tx) => {
            await services.platformCredentials.remove({ tenantId, platform: params.platform }, tx);
            return { statusCode: 204, body: null };
          },
        );
      },
    );

    app.put(
      '/platforms/:platform/users',
      {
        schema: {
          operationId: 'putPlatformUsers',
          tags: TAGS,
          summary:
            'Push display names for platform user ids (merged into the directory; pushed names win over resolved ones)',
          params: directoryPlatformParams,
          headers: idempotencyKeyHeaders,
          body: pushUsersBody,
          response: { 200: pushUsersReply },
        },
      },
      async (request, reply) => {
        const { tenantId, params, body } = request;
        return replyIdempotent(
          services.idempotency,
          request,
          reply,
          { scope: 'platforms.users.put', request: { platform: params.platform, body } },
          async (tx) => ({
            statusCode: 200,
            body: await services.userDirectory.push(
              {
                tenantId,
                platform: params.platform,
                users: body.users.map((u) => ({
                  userId: u.user_id,
                  displayName: u.display_name,
                  realName: u.real_name ?? null,
                  isBot: u.is_bot ?? false,
                })),
              },
              tx,
            ),
          }),
        );
      },
    );

    app.get(
      '/platforms/:platform/users/:userId',
      {
        schema: {
          operationId: 'getPlatformUser',
          tags: TAGS,
          summary: 'One directory entry (pushed, or resolved through the platform API with the stored token)',
          params: directoryPlatformParams.extend({ userId: z.string().min(1).max(256) }),
          response: { 200: directoryUserView },
        },
      },
      async (request) => services.userDirectory.get({ tenantId: request.tenantId, ...request.params }),
    );
  };
}
