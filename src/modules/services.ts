// Builds every service from the deps: the one place where modules are wired together.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../deps.js';
import { afterCommit } from '../db/retries.js';
import { createContextServices } from './context/context.module.js';
import { createContextRepository } from './context/context.repository.js';
import { createTenantsRepository } from './tenants/tenants.repository.js';
import { createIdempotencyService } from '../http/idempotency/idempotency.service.js';
import { createChannelServices } from './channels/channels.module.js';
import { createSessionServices } from './sessions/sessions.module.js';
import { createMemoriesRepository } from './memory/memories.repository.js';
import { createSearchRepository } from './memory/search.repository.js';
import { createMemoriesService } from './memory/memories.service.js';
import { createScopeCache } from './memory/scope-cache.js';
import { SCOPE_SCAN_MAX, createMemorySearchService } from './memory/memory-search.service.js';
import { createChunksRepository } from './memory/chunks.repository.js';
import { createChunksService } from './memory/chunks.service.js';
import { createRetentionRepository } from './retention/retention.repository.js';
import { createRetentionService } from './retention/retention.service.js';
import { createSearchRedactionRepository } from './retention/search-redaction.repository.js';
import { createCompactionModule } from './compaction/compaction.module.js';
import { createPlatformsModule } from './platforms/platforms.module.js';
import { createErasureRepository } from './erasure/erasure.repository.js';
import { createErasureService } from './erasure/erasure.service.js';

export function createServices(deps: AppDeps, log?: Pick<FastifyBaseLogger, 'warn'>) {
  const db = deps.database.db;
  const tenants = createTenantsRepository(db, deps.ids);
  const contextRepository = createContextRepository(db);
  const sessionServices = createSessionServices(deps, { contextLog: contextRepository });
  const chunks = createChunksService({ chunks: createChunksRepository(db), clock: deps.clock });
  // Transcript chunks are indexed inside every append transaction.
  sessionServices.transcript.addAppendHook((tx, { tenantId, session, entries }) =>
    chunks.indexTranscriptEntries(tx, {
      tenantId,
      sessionId: session.id,
      sessionKey: session.sessionKey,
      entries,
    }),
  );
  // Platform tokens, clients and the user directory; channel reads show directory names.
  const platforms = createPlatformsModule(deps, log);
  const channelServices = createChannelServices(
    deps,
    { apis: platforms.platformApis, credentials: platforms.platformCredentials },
    { authorNames: platforms.userDirectory },
  );
  // Authors that arrive by id only are queued for a name lookup as soon as they are ingested.
  channelServices.ingest.addIngestedHook(({ tenantId, events }) =>
    platforms.userResolver.scheduleAuthors(tenantId, events),
  );
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
    memorySearch: createMemorySearchService({
      search: createSearchRepository(db, {
        genericPlans: deps.database.kind === 'postgres' ? deps.database.genericPlanDb : db,
      }),
      clock: deps.clock,
      scopeCache: createScopeCache(db, { cap: SCOPE_SCAN_MAX }),
    }),
    /**
     * The search routes' searches, on the read replica when configured (they tolerate lag); the
     * context call's retrieval uses `memorySearch`, on the primary.
     */
    memorySearchReads:
      deps.database.readDb === db
        ? undefined
        : createMemorySearchService({
            search: createSearchRepository(deps.database.readDb),
            clock: deps.clock,
            scopeCache: createScopeCache(deps.database.readDb, { cap: SCOPE_SCAN_MAX }),
          }),
    chunks,
    ...platforms,
    retention: createRetentionService({
      retention: createRetentionRepository(db),
      searchRedaction: createSearchRedactionRepository(db),
      locks: deps.locks,
      clock: deps.clock,
      config: deps.config,
    }),
  };
  const compactionModule = createCompactionModule(deps, services);
  const { compaction } = compactionModule;
  // Edits and deletes mark the summaries that cover them stale; a deleted text still in a lane's
  // view makes that lane compact before its next payload (docs/compaction.md).
  // A summary that covers a deleted message is rebuilt at once by a background job (queued after
  // the commit, so its worker sees the stale mark), not at the idle lane's next compaction: until
  // then search, the inspector and the lane view could serve what it said in other words.
  channelServices.ingest.addChangeHook(async (tx, { tenantId, messages }) => {
    const rebuild = await compaction.onChannelMessagesChanged(
      {
        tenantId,
        at: deps.clock.now(),
        changes: messages.map((m) => {
          const needle = m.previousText ? compaction.needleFor(m.previousText) : null;
          return {
            platform: m.platform,
            channelId: m.channelId,
            messageId: m.messageId,
            // As it appears inside jsonb's text form (strings are JSON-escaped there).
            needle: needle ? JSON.stringify(needle).slice(1, -1) : null,
            deletedText: m.deleted && m.previousText ? m.previousText : null,
          };
        }),
      },
      tx,
    );
    const bySession = new Map<string, string[]>();
    for (const lane of rebuild)
      bySession.set(lane.sessionId, [...(bySession.get(lane.sessionId) ?? []), lane.laneKey]);
    if (bySession.size === 0) return;
    afterCommit(tx, () => {
      for (const [sessionId, laneKeys] of bySession)
        void compaction.schedule({ tenantId, sessionId, reason: 'purge', laneKeys });
    });
  });
  // Then the transcript chunks holding those messages, or quoting a deleted one, are rebuilt (after
  // the marks, so they read the lanes' scrub_texts).
  channelServices.ingest.addChangeHook((tx, params) => chunks.onChannelMessagesChanged(tx, params));
  // Turns appended through /turns to a session that has made no context call yet: a lane over its
  // thresholds gets a background compaction (compaction.scheduler.ts).
  sessionServices.transcript.addAfterAppend(({ tenantId, session, entries }) =>
    compaction.afterAppend({
      tenantId,
      sessionId: session.id,
      laneKeys: [...new Set(entries.map((e) => e.laneKey))],
      hasCalled: session.promptCache !== null,
    }),
  );
  // Erasing content: everywhere it is stored, then the summaries that held it rebuilt.
  const erasure = createErasureService({
    db,
    repo: createErasureRepository(db),
    ingest: channelServices.ingest,
    chunks,
    // Rebuilt now; when that fails (another compaction held the session too long), by a job.
    compactLanes: ({ tenantId, sessionId, laneKeys }) =>
      compaction
        .compact({ tenantId, sessionId, laneKeys, trigger: 'purge', wait: true })
        .catch(async (error: unknown) => {
          await compaction.schedule({ tenantId, sessionId, reason: 'purge', laneKeys });
          throw error;
        }),
    clock: deps.clock,
    ids: deps.ids,
    ...(log ? { log } : {}),
  });
  return {
    ...services,
    erasure,
    ...compactionModule,
    ...createContextServices(deps, { ...services, compaction, contextRepository }),
  };
}

export type Services = ReturnType<typeof createServices>;
