// Every /v1 route module, registered in one place.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import type { Services } from './services.js';
import { contextRoutes } from './context/context.routes.js';
import { toolsRoutes } from './tools/tools.routes.js';
import { lanesRoutes } from './context/lanes.routes.js';
import { tenantRoutes } from './tenants/tenants.routes.js';
import { agentsRoutes } from './agents/agents.routes.js';
import { blobsRoutes } from './sessions/blobs.routes.js';
import { sessionsRoutes } from './sessions/sessions.routes.js';
import { memoriesRoutes } from './memory/memories.routes.js';
import { eventsRoutes } from './channels/events.routes.js';
import { webhooksRoutes } from './channels/webhooks.routes.js';
import { channelsRoutes } from './channels/channels.routes.js';
import { compactionRoutes } from './compaction/compaction.routes.js';
import { platformsRoutes } from './platforms/platforms.routes.js';
import { retentionRoutes } from './retention/retention.routes.js';
import { erasureRoutes } from './erasure/erasure.routes.js';

export async function registerV1Routes(
  app: FastifyInstance,
  services: Services,
  deps: AppDeps,
): Promise<void> {
  // Feature modules register here: await app.register(xRoutes(services), { prefix: '/v1' }).
  await app.register(tenantRoutes(services), { prefix: '/v1' });
  await app.register(sessionsRoutes(services), { prefix: '/v1' });
  await app.register(blobsRoutes(services, deps), { prefix: '/v1' });
  await app.register(agentsRoutes(services), { prefix: '/v1' });
  await app.register(memoriesRoutes(services, deps), { prefix: '/v1' });
  await app.register(eventsRoutes(services), { prefix: '/v1' });
  await app.register(webhooksRoutes(services, deps), { prefix: '/v1' });
  await app.register(channelsRoutes(services), { prefix: '/v1' });
  await app.register(contextRoutes(services), { prefix: '/v1' });
  await app.register(toolsRoutes(services), { prefix: '/v1' });
  await app.register(lanesRoutes(services), { prefix: '/v1' });
  await app.register(compactionRoutes(services), { prefix: '/v1' });
  await app.register(platformsRoutes(services), { prefix: '/v1' });
  await app.register(retentionRoutes(services), { prefix: '/v1' });
  await app.register(erasureRoutes(services), { prefix: '/v1' });
}
