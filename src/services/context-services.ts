// Wiring of context assembly and the agent tools (issue 6), built on the other modules' services
// and spread into createServices.
import type { AppDeps } from '../deps.js';
import { createBlobsRepository } from '../store/blobs.repository.js';
import { createContextRepository } from '../store/context.repository.js';
import { createSessionsRepository } from '../store/sessions.repository.js';
import type { AgentSectionsService } from './agent-sections.service.js';
import type { ChannelSearchService } from './channel-search.service.js';
import type { ChannelsService } from './channels.service.js';
import { createContextService } from './context.service.js';
import type { ManifestService } from './manifest.service.js';
import type { MemorySearchService } from './memory-search.service.js';
import type { OffloadService } from './offload.service.js';
import { createToolsService } from './tools.service.js';
import type { TranscriptService } from './transcript.service.js';

export function createContextServices(
  deps: Pick<AppDeps, 'database' | 'config' | 'estimator' | 'clock'>,
  built: {
    transcript: TranscriptService;
    channels: ChannelsService;
    channelSearch: ChannelSearchService;
    memorySearch: MemorySearchService;
    agentSections: AgentSectionsService;
    offload: OffloadService;
    manifest: ManifestService;
  },
) {
  const db = deps.database.db;
  const sessions = createSessionsRepository(db);
  const context = createContextService({
    db,
    config: deps.config,
    estimator: deps.estimator,
    sessions,
    transcript: built.transcript,
    channels: built.channels,
    memorySearch: built.memorySearch,
    agentSections: built.agentSections,
    offload: built.offload,
    blobs: createBlobsRepository(db),
    manifest: built.manifest,
    context: createContextRepository(db),
  });
  const tools = createToolsService({
    sessions,
    channels: built.channels,
    channelSearch: built.channelSearch,
    memorySearch: built.memorySearch,
    offload: built.offload,
    context,
    clock: deps.clock,
  });
  return { context, tools };
}
