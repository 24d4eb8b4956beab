// Wiring of compaction: repository, summarizers (the LLM one when a key is configured, the
// extractive one always as the fallback), the fenced compaction service, the durable job queue
// and the scheduler over them, plus the hooks other modules call (edits/deletes, appends).
import Anthropic from '@anthropic-ai/sdk';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../shared/errors.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { createCompactionRepository } from './compaction.repository.js';
import { createLanesRepository } from '../lanes/lanes.repository.js';
import { createSessionsRepository } from '../sessions/sessions.repository.js';
import { createCompactionMetrics, observeQueueDepth } from './compaction.metrics.js';
import { createCompactionService } from './compaction.service.js';
import { createCompactionScheduler } from './compaction.scheduler.js';
import { createCompactionQueue } from './compaction.jobs.js';
import { createLlmSummarizer } from './llm-summarizer.js';
import { createSummarizerSpendRepository } from './summarizer-spend.repository.js';
import { createSummarizerSpendService } from './summarizer-spend.service.js';
import { chunkForSummarizer } from './core/chunking.js';
import { completeSummary, finalizeSummary, summarizeExtractive } from './core/extractive.js';
import { purgeNeedle } from './core/purge.js';
import { sizeReasons } from './core/lane-plan.js';
import { compactionDefaults, type CompactionSettings, type Summarizer } from './core/types.js';

interface CompactionModuleOptions {
  settings?: CompactionSettings;
  lockTtlMs?: number;
  /** false: no queue connection (tests that call the service directly). */
  startQueue?: boolean;
}

export function createCompactionModule(
  deps: AppDeps,
  built: { sessions: Pick<SessionsService, 'get'> } & Record<string, unknown>,
  options: CompactionModuleOptions = {},
) {
  const { config } = deps;
  const db = deps.database.db;
  const repo = createCompactionRepository(db);
  const lanes = createLanesRepository(db);
  const settings: CompactionSettings = options.settings ?? {
    ...compactionDefaults,
    summarizerWindowTokens: config.SUMMARY_WINDOW_TOKENS,
  };
  const metrics = createCompactionMetrics(deps.metrics.registry);
  const extractive: Summarizer = {
    summarize: async (request) => ({
      text: finalizeSummary(summarizeExtractive(request, settings, deps.estimator), settings),
      summarizer: 'extractive',
      fallbackReason: config.ANTHROPIC_API_KEY ? null : 'no_api_key',
      usage: { inputTokens: 0, outputTokens: 0 },
      calls: 0,
    }),
  };
  const client =
    deps.llm ??
    (config.ANTHROPIC_API_KEY
      ? new Anthropic({
          apiKey: config.ANTHROPIC_API_KEY,
          ...(config.ANTHROPIC_BASE_URL ? { baseURL: config.ANTHROPIC_BASE_URL } : {}),
          maxRetries: 1,
          timeout: config.SUMMARY_TIMEOUT_MS,
        })
      : null);
  const spend = createSummarizerSpendService({
    repo: createSummarizerSpendRepository(db),
    clock: deps.clock,
  });
  const summarizerFor = (tenantId: string): Summarizer =>
    client
      ? createLlmSummarizer({
          client,
          tenantId,
          model: config.SUMMARY_MODEL,
          settings,
          estimator: deps.estimator,
          spend,
          chunk: (entries, maxTokens, roleNames) =>
            chunkForSummarizer(entries, { maxTokens, estimator: deps.estimator, roleNames }),
          extractive: (request) => summarizeExtractive(request, settings, deps.estimator),
          finalize: (text) => finalizeSummary(text, settings),
          complete: (text, request) => completeSummary(text, request, settings, deps.estimator),
        })
      : extractive;

  const service = createCompactionService({
    db,
    repo,
    lanes,
    locks: deps.locks,
    clock: deps.clock,
    ids: deps.ids,
    estimator: deps.estimator,
    settings,
    summarizerFor,
    metrics,
    sessions: {
      // Only "not found" is null: a database failure must stay an error (a 503), not become a 404.
      findById: async ({ tenantId, id }) =>
        built.sessions.get({ tenantId, id }).catch((error: unknown) => {
          if (error instanceof AppError && error.statusCode === 404) return null;
          throw error;
        }),
    },
    // The lane view (GET …/lanes/{lane}, its expansion) tolerates replication lag.
    ...(deps.database.readDb === db
      ? {}
      : {
          laneViewReads: {
            sessions: createSessionsRepository(deps.database.readDb),
            lanes: createLanesRepository(deps.database.readDb),
            repo: createCompactionRepository(deps.database.readDb),
          },
        }),
    defaultEffectiveWindow: config.CONTEXT_BUDGET - config.MAX_OUTPUT_TOKENS,
    lockTtlMs: options.lockTtlMs ?? 30_000,
    waitMs: 60_000,
  });
  const queue = createCompactionQueue({ database: deps.database, config });
  observeQueueDepth(deps.metrics.registry, queue);
  const scheduler = createCompactionScheduler({
    service,
    queue,
    lanesOverThresholds: async ({ tenantId, sessionId, laneKeys }) =>
      (await lanes.laneSizes({ tenantId, sessionId, laneKeys }))
        .filter((lane) => sizeReasons(lane, settings).length > 0)
        .map((lane) => lane.laneKey),
  });

  return {
    compaction: {
      ...service,
      ...scheduler,
      records: repo.records,
      settings,
      /**
       * Edits and deletes of channel messages (inside the ingest transaction): summaries covering
       * them go stale; a deleted text still in a lane's view makes that lane compact first.
       */
      onChannelMessagesChanged: lanes.markChangedMessages,
      needleFor: purgeNeedle,
    },
    compactionQueue: queue,
    summarizerSpend: spend,
  };
}

export type CompactionModule = ReturnType<typeof createCompactionModule>;
