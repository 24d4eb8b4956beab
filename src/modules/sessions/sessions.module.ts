// Wiring of the session side: sessions, transcript, offload, blobs, manifest, agent
// sections and usage calibration, built from the deps and spread into createServices.
import type { AppDeps } from '../../deps.js';
import { createAgentSectionsRepository } from '../agents/agent-sections.repository.js';
import { createBlobsRepository } from './blobs.repository.js';
import { createChannelMediaRepository } from '../channels/channel-media.repository.js';
import { createManifestRepository } from './manifest.repository.js';
import { createSessionsRepository } from './sessions.repository.js';
import { createTranscriptRepository } from './transcript.repository.js';
import { createAgentSectionsService } from '../agents/agent-sections.service.js';
import { createBlobsService } from './blobs.service.js';
import { createCalibrationService } from './calibration.service.js';
import { createManifestService } from './manifest.service.js';
import { createOffloadService } from './offload.service.js';
import { createSessionsService } from './sessions.service.js';
import { createTranscriptService, type ContextCallLog } from './transcript.service.js';

export function createSessionServices(deps: AppDeps, built: { contextLog: ContextCallLog }) {
  const db = deps.database.db;
  const sessionsRepo = createSessionsRepository(db);
  const blobsRepo = createBlobsRepository(db);
  const transcriptRepo = createTranscriptRepository(db);
  const offload = createOffloadService({
    blobs: blobsRepo,
    sessions: sessionsRepo,
    transcript: transcriptRepo,
    channelMedia: createChannelMediaRepository(db),
    ids: deps.ids,
    config: deps.config,
  });
  return {
    sessions: createSessionsService({
      db,
      sessions: sessionsRepo,
      clock: deps.clock,
      ids: deps.ids,
      config: deps.config,
    }),
    transcript: createTranscriptService({
      db,
      sessions: sessionsRepo,
      transcript: transcriptRepo,
      // Transcript pages tolerate replication lag: the read replica when there is one.
      reads: {
        sessions: createSessionsRepository(deps.database.readDb),
        transcript: createTranscriptRepository(deps.database.readDb),
      },
      offload,
      calibration: createCalibrationService({ registry: deps.metrics.registry }),
      contextLog: built.contextLog,
      clock: deps.clock,
      estimator: deps.estimator,
    }),
    offload,
    blobs: createBlobsService({
      blobs: blobsRepo,
      sessions: sessionsRepo,
      ids: deps.ids,
      config: deps.config,
    }),
    manifest: createManifestService({ manifest: createManifestRepository(db) }),
    agentSections: createAgentSectionsService({
      sections: createAgentSectionsRepository(db),
      clock: deps.clock,
      estimator: deps.estimator,
    }),
  };
}
