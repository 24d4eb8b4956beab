// Wiring of the channel module (issue 3): ingest, the read side and channel search share one
// repository. Spread into createServices.
import type { AppDeps } from '../../deps.js';
import { createChannelsRepository } from './channels.repository.js';
import { createChannelSearchService } from './channel-search.service.js';
import { createChannelsService } from './channels.service.js';
import { createIngestService } from './ingest.service.js';
import { createIngestMetrics } from './channels.metrics.js';

export function createChannelServices(deps: Pick<AppDeps, 'database' | 'clock' | 'estimator' | 'metrics'>) {
  const db = deps.database.db;
  const channels = createChannelsRepository(db);
  return {
    ingest: createIngestService({ db, channels, clock: deps.clock, estimator: deps.estimator }),
    ingestMetrics: createIngestMetrics(deps.metrics.registry),
    channels: createChannelsService({ channels, estimator: deps.estimator }),
    channelSearch: createChannelSearchService({ channels, clock: deps.clock }),
  };
}
