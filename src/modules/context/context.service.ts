// The context call (docs/design.md §5 "Context", §6.6): assembleTurn is its table of contents, each
// step in its own module. The request's facts are computed once (turnFacts, context.load.ts), then:
// 1. load the session and the turn's lane in one statement (context.load.ts), compacting first when
//    a deleted text is in the lane's view;
// 2. read the lane's entries and channel context and retrieve in one parallel round (context.read.ts,
//    context.retrieve.ts), changing the lane's sent view first when the provider cache is cold and
//    the lane is past its share of the window; offload the message's big tool results;
// 3. assemble (context.assemble.ts; pure, core/assemble.ts; again with the channel context when
//    truncation left out the turn that carried it);
// 3b. decide compaction (context.compaction.ts): now, when the budget makes it unavoidable, or
//    scheduled; price the payload against the session's prompt cache (core/cost-model.ts);
// 4. unless dry_run, record the user turn, its audit row and the cost (context.record.ts).
import { traced } from '../../telemetry/traced.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';
import { billPayload } from './core/prompt-blocks.js';
import { stableEstimator } from './core/stable-estimator.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import type { Db, Executor } from '../../db/client.js';
import type { ContextRepository } from './context.repository.js';
import type { LanesRepository } from '../lanes/lanes.repository.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import type { MemorySearchService } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import {
  createCompactionDecisions,
  type CompactionRun,
  type ContextCompaction,
} from './context.compaction.js';
import { replyOf, type Assembled, type ContextReply, type ContextRequest } from './context.types.js';
import type { PlatformMediaFetcher } from './context.media.js';
import { createContextLogReader } from './context.log.js';
import { createTurnLoader } from './context.load.js';
import { createTurnReader } from './context.read.js';
import { createTurnAssembler } from './context.assemble.js';
import { recordTurn } from './context.record.js';
import { createLaneHistoryCache } from './lane-history-cache.js';
import { BackgroundCommitDuringAssembly } from './context.errors.js';
export type { ContextReply, ContextRequest, OutputFormat } from './context.types.js';

export function createContextService(deps: {
  db: Db;
  config: Pick<
    Config,
    | 'DEFAULT_MODEL'
    | 'CONTEXT_BUDGET'
    | 'MAX_OUTPUT_TOKENS'
    | 'COMPACT_TRIGGER'
    | 'HARD_BLOCK'
    | 'TOOL_DEFERRAL_SHARE'
    | 'THREAD_BUDGET'
  >;
  estimator: TokenEstimator;
  clock: Clock; // when a call is logged (assembly's "now" is the anchor's, never the clock)
  /** The context log's reads (the call itself reads the session in ContextRepository.loadTurn). */
  sessions: Pick<SessionsRepository, 'findById'>;
  transcript: Pick<TranscriptService, 'laneEntries' | 'laneEntriesFrom' | 'appendTurns'>;
  channels: Pick<
    ChannelsService,
    'loadAnchorContext' | 'getChannelMessages' | 'anchorFromRow' | 'neighbours'
  >;
  memorySearch: Pick<MemorySearchService, 'searchMemory'>;
  offload: Pick<OffloadService, 'offloadToolResults'>;
  blobs: Pick<BlobsRepository, 'findMeta' | 'readBytes'>;
  manifest: Pick<ManifestService, 'list' | 'record'>;
  platformMedia?: PlatformMediaFetcher;
  context: ContextRepository;
  lanes: Pick<LanesRepository, 'getLaneState' | 'markContextAttached' | 'clearPendingSlot'>;
  idempotency: Pick<IdempotencyService, 'runRecorded'>;
  /** Compaction before a payload that needs it, and scheduling in the background. */
  compaction?: ContextCompaction;
}) {
  const laneHistory = createLaneHistoryCache(deps);
  const { turnFacts, loadTurn } = createTurnLoader({ ...deps, laneHistory });
  const { readTurn, offloadedMessage } = createTurnReader({ ...deps, laneHistory });
  const { assembleWithChannelContext } = createTurnAssembler(deps);
  const { mustPurgeFirst, compactNow, coldViewChangeFirst, decideCompaction } =
    createCompactionDecisions(deps);

  /**
   * One context call, as a list of steps over facts computed once. `beforeCommit` runs inside the
   * append transaction with the reply (a non-dry-run call only), after everything else the call
   * writes.
   */
  async function assembleTurn(params: {
    tenantId: string;
    sessionId: string;
    request: ContextRequest;
    beforeCommit?: (tx: Executor, assembled: Assembled) => Promise<void>;
    /** Set on the second pass, after a compaction this call ran (it runs at most one). */
    compacted?: CompactionRun;
  }): Promise<Assembled> {
    const facts = turnFacts(params.tenantId, params.sessionId, params.request);
    const turn = await traced('load', () => loadTurn(facts));
    if (mustPurgeFirst(turn, params.compacted)) {
      return assembleTurn({ ...params, compacted: await compactNow(facts, turn.laneKey, 'purge') });
    }
    const reads = await traced('retrieval', () => readTurn(facts, turn));
    if (coldViewChangeFirst(facts, turn, reads, params.compacted)) {
      return assembleTurn({ ...params, compacted: await compactNow(facts, turn.laneKey, 'cold') });
    }
    const message = await offloadedMessage(facts, reads);
    const result = await traced('assembly', () => assembleWithChannelContext(facts, turn, reads, message));
    const compaction = await decideCompaction(facts, turn, reads, result, params.compacted);
    if ('rerun' in compaction) return assembleTurn({ ...params, compacted: compaction.rerun });
    // What this payload is expected to cost against the cache the session's earlier calls left
    // (its blocks counted through the memo: most of them were counted in the session's last call;
    // the retrieved block at the tokens assembly packed it by, an upper bound of its own count).
    const billed = billPayload({
      payload: result.payload,
      model: facts.model,
      at: reads.callAt,
      state: turn.session.promptCache,
      estimator: stableEstimator(deps.estimator),
      counted: result.counted,
    });
    result.budget = { ...result.budget, cost: billed.cost };
    const wire = replyOf(result, {
      format: facts.request.format ?? 'anthropic',
      dryRun: facts.dryRun,
      compaction: compaction.report,
    });
    if (facts.dryRun) return wire.reply(null);
    const userTurn = await recordTurn(deps, {
      tenantId: facts.tenantId,
      sessionId: facts.sessionId,
      request: facts.request,
      result,
      session: turn.session,
      lane: turn.lane,
      laneKey: turn.laneKey,
      sha: wire.sha256,
      billed,
      payloadText: wire.payloadText,
      model: facts.model,
      now: reads.now,
      callerTools: facts.callerTools,
      onCommit(tx, seq) {
        return params.beforeCommit?.(tx, wire.reply(seq)) ?? Promise.resolve();
      },
    }).then((appended) => appended.entries[0]!);
    return wire.reply(userTurn.seq);
  }

  return {
    /**
     * The context call. A non-dry-run call with an Idempotency-Key runs once: a retry with the same
     * body gets the first reply's exact bytes (`encode` is the wire encoding, stored in the
     * transaction that appends the turn), another body is 409 `idempotency.key_reused`. A dry run
     * writes nothing and ignores the key.
     */
    async assemble(params: {
      tenantId: string;
      sessionId: string;
      request: ContextRequest;
      idempotencyKey?: string;
      /** The wire bytes of a reply; `payloadText` is JSON.stringify(reply.payload), already made. */
      encode: (reply: ContextReply, payloadText: string) => string;
    }): Promise<{ body: string; replayed: boolean }> {
      const { tenantId, sessionId, request, encode } = params;
      const result = await deps.idempotency.runRecorded<string>(
        {
          tenantId,
          scope: 'sessions.context',
          key: request.dry_run ? undefined : params.idempotencyKey,
          request: { session_id: sessionId, body: request },
        },
        async (record) => {
          let body: string | null = null;
          const assembled = await assembleAgainAfterBackgroundCommits(() =>
            assembleTurn({
              tenantId,
              sessionId,
              request,
              async beforeCommit(tx, committed) {
                body = encode(committed.reply, committed.payloadText);
                await record({ statusCode: 200, body }, tx);
              },
            }),
          );
          return { statusCode: 200, body: body ?? encode(assembled.reply, assembled.payloadText) };
        },
      );
      return { body: result.body, replayed: result.replayed };
    },

    ...createContextLogReader(deps),
  };
}

export type ContextService = ReturnType<typeof createContextService>;

/** Assemblies a call runs at most when compactions keep committing under it (each one is rare). */
const MAX_ASSEMBLIES = 3;

/**
 * contextd's own background work never fails a bot's turn: a compaction that committed while the
 * call assembled makes it assemble again over the new state (bounded; the last attempt's conflict
 * is a 409 like any other concurrent append).
 */
async function assembleAgainAfterBackgroundCommits<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof BackgroundCommitDuringAssembly) || tries >= MAX_ASSEMBLIES) throw error;
    }
  }
}
