// Builds every service from the deps: the one place where modules are wired together.
import type { AppDeps } from '../deps.js';
import { createContextServices } from './context/context.module.js';
import { createTenantsRepository } from './tenants/tenants.repository.js';
import { createIdempotencyService } from '../http/idempotency/idempotency.service.js';
import { createChannelServices } from './channels/channels.module.js';
import { createSessionServices } from './sessions/sessions.module.js';
import { createMemoriesRepository } from './memory/memories.repository.js';
import { createSearchRepository } from './memory/search.repository.js';
import { createMemoriesService } from './memory/memories.service.js';
import { createMemorySearchService } from './memory/memory-search.service.js';
import { createChunksRepository } from './memory/chunks.repository.js';
import { createChunksService } from './memory/chunks.service.js';
import { createRetentionRepository } from './retention/retention.repository.js';
import { createRetentionService } from './retention/retention.service.js';

export function createServices(deps: AppDeps) {
  const db = deps.database.db;
  const tenants = createTenantsRepository(db, deps.ids);
  const sessionServices = createSessionServices(deps);
  const chunks = createChunksService({ chunks: createChunksRepository(db), clock: deps.clock });
  // Transcript chunks (issue 5) are indexed inside every append transaction.
  sessionServices.transcript.addAppendHook((tx, { tenantId, session, entries }) =>
    chunks.indexTranscriptEntries(tx, {
      tenantId,
      sessionId: session.id,
      sessionKey: session.sessionKey,
      entries,
    }),
  );
  const channelServices = createChannelServices(deps);
  // Edits and deletes of channel messages rebuild the transcript chunks that quoted them.
  channelServices.ingest.addChangeHook((tx, params) => chunks.onChannelMessagesChanged(tx, params));
  const services = {
    tenants,
    idempotency: createIdempotencyService(db),
    ...sessionServices,
    ...channelServices,
    memories: createMemoriesService({
      memories: createMemoriesRepository(db),
      idempotency: createIdempotencyService(db),
      clock: deps.clock,
      ids: deps.ids,
    }),
    memorySearch: createMemorySearchService({ search: createSearchRepository(db), clock: deps.clock }),
    chunks,
    retention: createRetentionService({
      retention: createRetentionRepository(db),
      locks: deps.locks,
      clock: deps.clock,
      config: deps.config,
    }),
  };
  return { ...services, ...createContextServices(deps, services) };
}

export type Services = ReturnType<typeof createServices>;
