// Wiring of context assembly, the agent tools and the client-written lane state, built
// on the other modules' services and spread into createServices.
import type { AppDeps } from '../../deps.js';
import { createBlobsRepository } from '../sessions/blobs.repository.js';
import { createChannelMediaRepository } from '../channels/channel-media.repository.js';
import type { ContextRepository } from './context.repository.js';
import { createLanesRepository } from '../lanes/lanes.repository.js';
import { createSessionsRepository } from '../sessions/sessions.repository.js';
import type { AgentSectionsService } from '../agents/agent-sections.service.js';
import type { BlobsService } from '../sessions/blobs.service.js';
import type { ChannelSearchService } from '../channels/channel-search.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import { createContextService } from './context.service.js';
import { createContextLogReader } from './context.log.js';
import { createContextRepository } from './context.repository.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import { createLanesService } from './lanes.service.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { MemorySearchService } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { createToolsService } from '../tools/tools.service.js';
import { createToolMetrics, withToolMetrics } from '../tools/tools.metrics.js';
import { createContextMetrics, withContextMetrics } from './context.metrics.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import type { CompactionModule } from '../compaction/compaction.module.js';
import { createContextCompaction } from './context.compaction.js';
import type { PlatformMediaService } from '../platforms/platform-media.service.js';

export function createContextServices(
  deps: Pick<AppDeps, 'database' | 'config' | 'estimator' | 'clock' | 'metrics'>,
  built: {
    transcript: TranscriptService;
    channels: ChannelsService;
    channelSearch: ChannelSearchService;
    memorySearch: MemorySearchService;
    agentSections: AgentSectionsService;
    offload: OffloadService;
    manifest: ManifestService;
    blobs: BlobsService;
    idempotency: IdempotencyService;
    compaction: CompactionModule['compaction'];
    /** The context log and load statement's repository, built once with the session side's. */
    contextRepository: ContextRepository;
    /** Fetches platform media the tenant's token can reach. */
    platformMedia?: PlatformMediaService;
  },
) {
  const db = deps.database.db;
  const sessions = createSessionsRepository(db);
  const { contextRepository } = built;
  const lanesRepository = createLanesRepository(db);
  const context = withContextMetrics(
    createContextService({
      db,
      config: deps.config,
      estimator: deps.estimator,
      clock: deps.clock,
      sessions,
      transcript: built.transcript,
      channels: built.channels,
      memorySearch: built.memorySearch,
      offload: built.offload,
      blobs: createBlobsRepository(db),
      ...(built.platformMedia ? { platformMedia: built.platformMedia } : {}),
      manifest: built.manifest,
      context: contextRepository,
      lanes: lanesRepository,
      idempotency: built.idempotency,
      compaction: createContextCompaction({
        service: built.compaction,
        scheduler: built.compaction,
        settings: built.compaction.settings,
      }),
    }),
    createContextMetrics(deps.metrics.registry),
  );
  // Context-log pages, logged payloads and their tokens (the inspector's reads) tolerate replication lag: the
  // read replica when there is one. The latest call's deferred tools (tool_search) stay here.
  if (deps.database.readDb !== db) {
    const replica = createContextLogReader({
      sessions: createSessionsRepository(deps.database.readDb),
      context: createContextRepository(deps.database.readDb),
      estimator: deps.estimator,
    });
    context.contextLog = replica.contextLog;
    context.loggedPayload = replica.loggedPayload;
    context.loggedPayloadTokens = replica.loggedPayloadTokens;
  }
  const tools = withToolMetrics(
    createToolsService({
      sessions,
      channels: built.channels,
      channelSearch: built.channelSearch,
      memorySearch: built.memorySearch,
      offload: built.offload,
      context,
      blobs: built.blobs,
      channelMedia: createChannelMediaRepository(db),
      ...(built.platformMedia ? { platformMedia: built.platformMedia } : {}),
      idempotency: built.idempotency,
      compaction: built.compaction,
      clock: deps.clock,
    }),
    createToolMetrics(deps.metrics.registry),
  );
  const lanes = createLanesService({
    sessions,
    lanes: lanesRepository,
    idempotency: built.idempotency,
    clock: deps.clock,
  });
  return { context, tools, lanes };
}
