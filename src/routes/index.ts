// Every /v1 route module, registered in one place.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import type { Services } from '../services/index.js';
import { tenantRoutes } from './tenant.routes.js';

export async function registerV1Routes(
  app: FastifyInstance,
  services: Services,
  _deps: AppDeps,
): Promise<void> {
  // Feature modules register here: await app.register(xRoutes(services), { prefix: '/v1' }).
  await app.register(tenantRoutes(services), { prefix: '/v1' });
}
