// Wiring of the channel module: ingest, the read side and channel search share one
// repository; reads see it through the user directory's names when one is given, and with the
// platform clients they backfill cold history. Spread into
// createServices.
import type { AppDeps } from '../../deps.js';
import type { PlatformApis } from '../../platforms/api/platform-api.js';
import type { PlatformCredentialsService } from '../platforms/platform-credentials.service.js';
import { createChannelsRepository } from './channels.repository.js';
import { createChannelSearchService } from './channel-search.service.js';
import { createChannelsService } from './channels.service.js';
import { createIngestService } from './ingest.service.js';
import { createIngestStatistics } from './ingest-statistics.js';
import { createTableStatisticsRepository } from './table-statistics.repository.js';
import { withAuthorNames, withRedactedText, type AuthorNames } from './named-reads.js';
import { createBackfillMetrics, createIngestMetrics } from './channels.metrics.js';
import { createBackfillRepository } from './backfill.repository.js';
import { createBackfillService, type PlatformHistoryApi } from './backfill.service.js';

interface ChannelPlatformAccess {
  apis: PlatformApis;
  credentials: Pick<PlatformCredentialsService, 'credentialFor'>;
}

/** The platform clients' history calls, as backfill uses them. */
const historyApiOf = (apis: PlatformApis): PlatformHistoryApi => ({
  slackHistory: (credential, params) => apis.slack.conversationsHistory(credential, params),
  slackReplies: (credential, params) => apis.slack.conversationsReplies(credential, params),
  discordMessages: (credential, params) => apis.discord.channelMessages(credential, params),
});

export function createChannelServices(
  deps: Pick<AppDeps, 'database' | 'clock' | 'estimator' | 'metrics' | 'locks' | 'config'>,
  platform: ChannelPlatformAccess,
  options: { authorNames?: AuthorNames } = {},
) {
  const db = deps.database.db;
  const channels = createChannelsRepository(db);
  const reads = withRedactedText(
    options.authorNames ? withAuthorNames(channels, options.authorNames) : channels,
  );
  const statistics = createIngestStatistics(createTableStatisticsRepository(db));
  const ingest = createIngestService({
    db,
    channels,
    clock: deps.clock,
    estimator: deps.estimator,
    statistics,
  });
  const backfill = createBackfillService({
    db,
    backfills: createBackfillRepository(db),
    ingest,
    api: historyApiOf(platform.apis),
    credentials: platform.credentials,
    locks: deps.locks,
    clock: deps.clock,
    enabled: deps.config.PLATFORM_BACKFILL,
    // Another replica's backfill may wait its turn at the limiter, then make its calls.
    lockWaitMs: deps.config.PLATFORM_RATE_QUEUE_MAX_MS + deps.config.PLATFORM_TIMEOUT_MS + 5_000,
    metrics: createBackfillMetrics(deps.metrics.registry),
  });
  return {
    ingest,
    ingestStatistics: statistics,
    ingestMetrics: createIngestMetrics(deps.metrics.registry),
    channels: createChannelsService({ channels: reads, estimator: deps.estimator, backfill }),
    channelSearch: createChannelSearchService({ channels: reads, clock: deps.clock }),
    backfill,
  };
}
