// GET /v1/me: which tenant a key belongs to (bots use it to check their configuration).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../services.js';

export function tenantRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/me',
      {
        schema: {
          operationId: 'getMe',
          tags: ['tenancy'],
          summary: 'The tenant of the calling API key',
          response: { 200: z.object({ tenant_id: z.string(), name: z.string() }) },
        },
      },
      async (request) => {
        const tenant = await services.tenants.findTenant(request.tenantId);
        return { tenant_id: request.tenantId, name: tenant?.name ?? request.tenantId };
      },
    );
  };
}
