// Builds every service from the deps: the one place where modules are wired together.
import type { AppDeps } from '../deps.js';
import { createContextServices } from './context-services.js';
import { createTenantsRepository } from '../store/tenants.repository.js';
import { createIdempotencyService } from './idempotency.js';
import { createChannelServices } from './channel-services.js';
import { createSessionServices } from './session-services.js';
import { createMemoriesRepository } from '../store/memories.repository.js';
import { createSearchRepository } from '../store/search.repository.js';
import { createMemoriesService } from './memories.service.js';
import { createMemorySearchService } from './memory-search.service.js';
import { createChunksRepository } from '../store/chunks.repository.js';
import { createChunksService } from './chunks.service.js';
import { createRetentionRepository } from '../store/retention.repository.js';
import { createRetentionService } from './retention.service.js';

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
