// Wiring of the channel module (issue 3): ingest, the read side and channel search share one
// repository; with platform access (issue 13) reads backfill cold history. Spread into createServices.
import type { AppDeps } from '../../deps.js';
import { createChannelsRepository } from './channels.repository.js';
import { createChannelSearchService } from './channel-search.service.js';
import { createChannelsService } from './channels.service.js';
import { createIngestService } from './ingest.service.js';
import { createIngestMetrics } from './channels.metrics.js';
import { createBackfillRepository } from './backfill.repository.js';
import {
  createBackfillService,
  type PlatformCredential,
  type PlatformHistoryApi,
} from './backfill.service.js';

export interface ChannelPlatformAccess {
  api: PlatformHistoryApi;
  credentials: {
    credentialFor(params: {
      tenantId: string;
      platform: PlatformCredential['platform'];
    }): Promise<PlatformCredential | null>;
  };
}

export function createChannelServices(
  deps: Pick<AppDeps, 'database' | 'clock' | 'estimator' | 'metrics' | 'locks' | 'config'>,
  platform?: ChannelPlatformAccess,
) {
  const db = deps.database.db;
  const channels = createChannelsRepository(db);
  const ingest = createIngestService({ db, channels, clock: deps.clock, estimator: deps.estimator });
  const backfill = platform
    ? createBackfillService({
        db,
        backfills: createBackfillRepository(db),
        ingest,
        api: platform.api,
        credentials: platform.credentials,
        locks: deps.locks,
        clock: deps.clock,
        enabled: deps.config.PLATFORM_BACKFILL,
        // Another replica's backfill may wait its turn at the limiter, then make its calls.
        lockWaitMs: deps.config.PLATFORM_RATE_QUEUE_MAX_MS + 15_000,
      })
    : null;
  return {
    ingest,
    ingestMetrics: createIngestMetrics(deps.metrics.registry),
    channels: createChannelsService({
      channels,
      estimator: deps.estimator,
      ...(backfill ? { backfill } : {}),
    }),
    channelSearch: createChannelSearchService({ channels, clock: deps.clock }),
    ...(backfill ? { backfill } : {}),
  };
}
