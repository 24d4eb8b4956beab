// Wiring of the channel module (issue 3): ingest, the read side and channel search share one
// repository; reads see it through the user directory's names when one is given. Spread into
// createServices.
import type { AppDeps } from '../../deps.js';
import { createChannelsRepository } from './channels.repository.js';
import { createChannelSearchService } from './channel-search.service.js';
import { createChannelsService } from './channels.service.js';
import { createIngestService } from './ingest.service.js';
import { createIngestMetrics } from './channels.metrics.js';
import { withAuthorNames, type AuthorNames } from './named-reads.js';

export function createChannelServices(
  deps: Pick<AppDeps, 'database' | 'clock' | 'estimator' | 'metrics'>,
  options: { authorNames?: AuthorNames } = {},
) {
  const db = deps.database.db;
  const channels = createChannelsRepository(db);
  const reads = options.authorNames ? withAuthorNames(channels, options.authorNames) : channels;
  return {
    ingest: createIngestService({ db, channels, clock: deps.clock, estimator: deps.estimator }),
    ingestMetrics: createIngestMetrics(deps.metrics.registry),
    channels: createChannelsService({ channels: reads, estimator: deps.estimator }),
    channelSearch: createChannelSearchService({ channels: reads, clock: deps.clock }),
  };
}
