// The context call (docs/design.md §5 "Context", §6.6): assembleTurn is its table of contents. The
// request's facts are computed once (turnFacts), then: 1. load the session and the turn's lane in one
// statement (compacting first when a deleted text is in the lane's view); 2. read the lane's entries and
// channel context and retrieve (context.retrieve.ts) in one parallel round; 3. assemble (pure,
// core/assemble.ts; again with the channel context when truncation left out the turn that carried it);
// (changing the lane's sent view first when the provider cache is cold and the lane is past its share of
// the window); 3b. decide compaction: now, when the budget makes it unavoidable, or scheduled; price the
// payload against the session's prompt cache (core/cost-model.ts); 4. unless dry_run, record the user turn,
// its audit row and the cost (context.record.ts).
import { redactContent, redactText } from '../memory/core/redaction.js';
import { traced } from '../../telemetry/traced.js';
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';
import { assembleContext, type AssembleInput, type AssembleResult } from './core/assemble.js';
import { compactionWindow, DEFAULT_SAFETY_MARGIN } from './core/budget.js';
import { cacheCold } from './core/cost-model.js';
import { billPayload } from './core/prompt-blocks.js';
import { stableEstimator } from './core/stable-estimator.js';
import { budgetCalibration } from '../sessions/core/calibration.js';
import type { ContentBlock } from '../../shared/content-blocks.js';
import { checkAnchorSource, plainText } from './core/current-turn.js';
import { asBlocks, toolResultIds } from '../sessions/core/history-view.js';
import { offloadRefIdOf } from '../sessions/core/offload.js';
import { pendingSlotSchema } from '../lanes/core/pending-slot.js';
import { turnLaneKey } from '../sessions/core/session-keys.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../shared/tokens.js';
import { validateTurnSequence } from '../sessions/core/turn-validation.js';
import type { Db, Executor } from '../../db/client.js';
import type { ContextRepository } from './context.repository.js';
import type { LanesRepository } from '../lanes/lanes.repository.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import { threadReadLimit } from '../channels/core/thread-budget.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import { lexemeText, searchedLexemes, type MemorySearchService } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { sessionEnded, sessionNotFound } from '../sessions/sessions.errors.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import {
  coldViewChangeDue,
  compactionNeed,
  reportCompaction,
  type CompactionReport,
  type CompactionRun,
  type ContextCompaction,
} from './context.compaction.js';
import {
  channelContextInput,
  laneViewOf,
  quotedReplyOf,
  replyOf,
  type Assembled,
  type ContextReply,
  type ContextRequest,
} from './context.types.js';
import { createChunksRepository } from '../memory/chunks.repository.js';
import {
  createRetriever,
  minRelevance,
  retrievalCap,
  retrievalLimit,
  retrievalPlan,
} from './context.retrieve.js';
import { createThreadMediaLoader, type PlatformMediaFetcher } from './context.media.js';
import { createContextLogReader } from './context.log.js';
import { historyTurnsView } from './core/history-turns.js';
import { toolHistory } from '../tools/core/tool-history.js';
import { conversationTools } from '../tools/core/tool-offer.js';
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
  const { config, context } = deps;
  const loadTurnMedia = createThreadMediaLoader(deps);
  const retrieve = createRetriever({ ...deps, chunks: createChunksRepository(deps.db) });
  const laneHistory = createLaneHistoryCache(deps);

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
      onCommit: (tx, seq) => params.beforeCommit?.(tx, wire.reply(seq)) ?? Promise.resolve(),
    }).then((appended) => appended.entries[0]!);
    return wire.reply(userTurn.seq);
  }

  /** What the request alone tells, once: the user's text, whether it answers tool calls, the mode. */
  function turnFacts(tenantId: string, sessionId: string, request: ContextRequest) {
    const include = request.include ?? {};
    const blocks = asBlocks(request.message.content) as Anthropic.ContentBlockParam[];
    const userText = plainText(blocks);
    const isToolResultTurn = toolResultIds(blocks).length > 0;
    return {
      tenantId,
      sessionId,
      request,
      include,
      userText,
      isToolResultTurn,
      wantsRetrieval:
        userText.trim() !== '' &&
        !isToolResultTurn &&
        (include.memories !== false || include.channel_search !== false),
      mode: request.compaction ?? 'auto',
      dryRun: request.dry_run ?? false,
      // The caller's window, or its cap when smaller: every compaction this call runs or
      // schedules is judged against it.
      window: compactionWindow({
        total: request.budget?.total ?? config.CONTEXT_BUDGET,
        maxOutputTokens: request.budget?.max_output_tokens ?? config.MAX_OUTPUT_TOKENS,
        maxContextTokens: request.budget?.max_context_tokens ?? null,
      }),
      model: request.model ?? config.DEFAULT_MODEL,
      callerTools: request.tools ?? [],
    };
  }
  type TurnFacts = ReturnType<typeof turnFacts>;

  /**
   * 1. Load: one statement reads the session, the anchor message (in the caller's tenant, checked
   * against the session's channel before use), the lane state, the previous call's budget, the
   * agent's sections and defaults, and the query's lexemes. The turn's lane key is decided here.
   */
  async function loadTurn(facts: TurnFacts) {
    const { tenantId, sessionId, request, include } = facts;
    const source = request.message.source;
    const loaded = await context.loadTurn({
      tenantId,
      sessionId,
      anchor: source
        ? { platform: source.platform, channelId: source.channel_id, messageId: source.message_id }
        : null,
      snapshot: include.snapshot !== false,
      threadNewest: threadReadLimit({ budget: config.THREAD_BUDGET }),
      laneKey: request.message.lane_key ?? null,
      agentId: request.agent_id ?? null,
      // The query's lexemes depend only on the message: read here, off the retrieval's path.
      lexemeText: facts.wantsRetrieval ? lexemeText(facts.userText) : null,
      laneRead: laneHistory.readAhead(tenantId, sessionId),
    });
    if (!loaded) throw sessionNotFound(sessionId);
    const { session } = loaded;
    if (session.endedAt) throw sessionEnded(session);
    checkAnchorSource(session, source);
    const found = await deps.channels.anchorFromRow(tenantId, loaded.anchor);
    const anchor = found?.view ?? null;
    const laneKey = turnLaneKey(anchor?.lane_key, request.message.lane_key, session);
    // The session-wide turn rules (role order, tool pairing), with their stable codes.
    validateTurnSequence(
      session.turnState,
      [{ role: 'user', content: request.message.content, lane_key: laneKey }],
      laneKey,
    );
    // The lane's state came with the load, which picks the lane by the same rule in SQL; were the
    // two rules ever to disagree, this lane's state is read on its own.
    const laneState =
      loaded.laneKey === laneKey
        ? loaded.lane
        : await deps.lanes.getLaneState({ tenantId, sessionId, laneKey });
    const hasChannel = Boolean(session.platform && session.channelId);
    return {
      loaded,
      session,
      found,
      anchor,
      laneKey,
      laneState,
      lane: laneViewOf(laneKey, laneState),
      hasChannel,
      canAttachChannelContext: hasChannel && anchor !== null && include.snapshot !== false,
    };
  }
  type LoadedTurn = Awaited<ReturnType<typeof loadTurn>>;

  /** A deleted message's text is in this lane's view: compact first, so no payload carries it. */
  function mustPurgeFirst(turn: LoadedTurn, compacted: CompactionRun | undefined) {
    return deps.compaction !== undefined && !compacted && (turn.laneState?.purgeTexts?.length ?? 0) > 0;
  }

  function compactNow(facts: TurnFacts, laneKey: string, trigger: 'purge' | 'blocked' | 'cold') {
    const { tenantId, sessionId } = facts;
    return deps.compaction!.compactNow({
      tenantId,
      sessionId,
      laneKey,
      trigger,
      effectiveWindow: facts.window,
    });
  }

  /**
   * The provider cache is cold anyway and the lane's history is past its share of the caller's
   * window: change the sent view before this payload, when it costs no cache read
   * (docs/compaction.md, "When the view changes").
   */
  function coldViewChangeFirst(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    compacted: CompactionRun | undefined,
  ) {
    if (!deps.compaction || compacted) return false;
    const from = turn.lane.firstKeptSeq;
    return coldViewChangeDue({
      mode: facts.mode,
      dryRun: facts.dryRun,
      cacheCold: cacheCold(turn.session.promptCache, reads.callAt),
      // The lane sends its summary as the view's head: a summary written for a larger window counts
      // (through the memo: the same summary is counted on every call until the next compaction).
      viewTokens:
        viewTokensOf(reads.entries, from) +
        (turn.lane.summary ? stableEstimator(deps.estimator).text(turn.lane.summary) : 0),
      effectiveWindow: facts.window,
      historyShare: deps.compaction.historyShare,
    });
  }

  /** Whether memory_search and compact_context can act in this call (tools/core/tool-offer.ts). */
  function conversationToolsOf(facts: TurnFacts, turn: LoadedTurn, reads: TurnReads) {
    const { lane, loaded } = turn;
    return conversationTools({
      hasChannel: turn.hasChannel,
      memoriesInScope: Object.entries(loaded.scopeVersions).some(
        ([key, version]) => key.startsWith('memories ') && version > 0,
      ),
      otherSessions: loaded.otherSessions,
      compacted: lane.summary !== null || lane.firstKeptSeq > 0 || lane.clearedBeforeSeq > 0,
      viewTokens: viewTokensOf(reads.entries, lane.firstKeptSeq),
      window: facts.window,
      keepShare: deps.compaction?.keepShare ?? null,
    });
  }

  /**
   * The turn's channel context, read while the lane has none attached or after an assembly that
   * lost it; its read notes (backfill) go to `notes`.
   */
  function channelContextLoader(turn: LoadedTurn, tenantId: string, notes: string[]) {
    const { session, anchor, found } = turn;
    return () =>
      deps.channels
        .loadAnchorContext({
          tenantId,
          platform: session.platform!,
          channelId: session.channelId!,
          messageId: anchor!.message_id,
          anchor: found!.row,
          snapshotRead: turn.loaded.snapshot,
          threadRead: turn.loaded.thread,
          threadBudget: config.THREAD_BUDGET,
        })
        .then((read) => (notes.push(...read.notes), read));
  }

  /**
   * 2. Read and retrieve: the lane's entries, the channel context and the quoted message in one
   * parallel round, with retrieval beside them when "now" is known before (an anchor or a stated
   * time), then the thread's media.
   */
  async function readTurn(facts: TurnFacts, turn: LoadedTurn) {
    const { tenantId, sessionId, request, include } = facts;
    const { session, anchor, laneKey, lane, hasChannel, loaded } = turn;
    const readNotes: string[] = [];
    const loadChannelContext = channelContextLoader(turn, tenantId, readNotes);
    const provisionalNow = anchor
      ? new Date(anchor.ts)
      : request.message.time
        ? new Date(request.message.time)
        : null;
    const retrieval = retrievalOf(facts, turn);
    // Retrieval needs "now": with an anchor or a stated time it starts beside the reads below.
    const early = provisionalNow ? retrieval.at(provisionalNow) : null;
    // Awaited below; until then a failure must not count as unhandled.
    early?.catch(() => {});
    const [entries, channelContext, quoted] = await Promise.all([
      laneHistory.laneEntries(
        { tenantId, sessionId, laneKey, fromSeq: lane.firstKeptSeq },
        session.entriesRemoved,
        loaded.laneRead,
      ),
      turn.canAttachChannelContext && lane.contextAttachedSeq === null ? loadChannelContext() : null,
      anchor?.reply_to_id && hasChannel
        ? deps.channels.getChannelMessages({
            tenantId,
            platform: session.platform!,
            channelId: session.channelId!,
            messageIds: [anchor.reply_to_id],
          })
        : null,
    ]);
    // "Now" is the anchor's time; without an anchor, the message's stated time, else the
    // latest stored turn of the lane, else the session's creation: never the wall clock.
    const now = provisionalNow ?? entries.at(-1)?.createdAt ?? session.createdAt;
    const retrieved = await (early ?? retrieval.at(now));
    // When the call happens, for the provider cache: the turn's time, else the clock's.
    const callAt = (provisionalNow ?? deps.clock.now()).getTime();
    // Media of the current thread, opt-in (§6.11); the manifest decides attach or reference.
    const media =
      include.media === 'thread' && anchor && hasChannel
        ? await loadTurnMedia({
            tenantId,
            sessionId,
            session,
            anchor,
            thread: channelContext?.thread ?? null,
          })
        : { media: [], manifestRows: [], mediaNotes: [] };
    return {
      entries,
      channelContext,
      loadChannelContext,
      readNotes,
      quotedMessage: quoted?.messages?.[0] ?? null,
      now,
      callAt,
      retrieved,
      retrievalTokens: retrieval.tokens,
      searchable: retrieval.searchable,
      retrievalNote: retrieval.note,
      ...media,
      // history_turns: the request's, else the agent's default (PUT /v1/agents/{id}/settings); a
      // view of the lane's latest turns, widened so no tool pair (nor the open tool loop) is split.
      view: historyTurnsView(
        entries,
        request.history_turns ?? loaded.agent?.historyTurns ?? undefined,
        facts.isToolResultTurn,
      ),
      // Tool history in view: last use per tool, and deferred tools that tool_search promoted.
      tools: toolHistory(entries, facts.callerTools),
    };
  }
  type TurnReads = Awaited<ReturnType<typeof readTurn>>;

  /** Whether the message searches (and why not), and the search at a given "now". */
  function retrievalOf(facts: TurnFacts, turn: LoadedTurn) {
    const { request, include } = facts;
    const { session, laneKey, loaded } = turn;
    const lexemes = facts.wantsRetrieval ? searchedLexemes(loaded.lexemes ?? []) : null;
    const plan = retrievalPlan({
      userText: facts.userText,
      isToolResultTurn: facts.isToolResultTurn,
      include,
      lexemes,
    });
    // Sized in tokens: the caller's cap, else a small default (context.retrieve.ts).
    const tokens = retrievalCap(request.budget?.max_context_tokens);
    const limit = retrievalLimit(tokens);
    return {
      tokens,
      searchable: plan.searchable,
      note: plan.note,
      at: (now: Date) =>
        plan.searchable
          ? retrieve({
              session,
              laneKey,
              query: facts.userText,
              lexemes,
              now,
              limit,
              minScore: (best) => minRelevance(request.budget?.max_context_tokens, best),
              include,
              scopeVersions: loaded.scopeVersions,
            })
          : Promise.resolve({ items: [], leftOut: [] }),
    };
  }

  /**
   * What was sent stays sent: big tool results in this message are offloaded before assembly, so
   * the payload holds the same reference the transcript will.
   */
  async function offloadedMessage(facts: TurnFacts, reads: TurnReads): Promise<unknown> {
    const { tenantId, sessionId, request } = facts;
    if (facts.dryRun || !facts.isToolResultTurn) return request.message.content;
    const offloaded = await deps.db.transaction((tx) =>
      deps.offload.offloadToolResults(
        {
          tenantId,
          sessionId,
          content: request.message.content as string | ContentBlock[],
          toolNames: reads.tools.toolNames,
        },
        tx,
      ),
    );
    return offloaded.content;
  }

  /**
   * 3. Assemble (pure, core/assemble.ts); again with the channel context when the turn that carried
   * it is not in this payload (exact, and the snapshot reads happen only then).
   */
  async function assembleWithChannelContext(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    message: unknown,
  ): Promise<AssembleResult> {
    const assemble = (channelContext: TurnReads['channelContext']) =>
      assembleContext(assembleInput(facts, turn, reads, message, channelContext));
    let result = assemble(reads.channelContext);
    if (result.reattachChannelContext && turn.canAttachChannelContext) {
      result = assemble(await reads.loadChannelContext());
    }
    result.notes.push(
      ...(reads.retrievalNote ? [reads.retrievalNote] : []),
      ...reads.readNotes,
      ...reads.mediaNotes,
    );
    return result;
  }

  /** Assembly's input: the request's limits and material, the lane's view, what was read. */
  function assembleInput(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    message: unknown,
    channelContext: TurnReads['channelContext'],
  ): AssembleInput {
    const { request, include } = facts;
    const { session, loaded, lane } = turn;
    const agent = loaded.agent;
    const tools = conversationToolsOf(facts, turn, reads);
    const pendingSlot = pendingSlotSchema.safeParse(turn.laneState?.pendingSlot ?? undefined);
    const quoted = reads.quotedMessage;
    return {
      model: facts.model,
      // What the model reads has its secrets redacted: the new turn and the history here (the
      // transcript keeps them as the audit record), the channel's messages in their reads,
      // retrieved material in its index (docs/memory.md, Redaction).
      message: redactContent(message),
      now: reads.now,
      limits: {
        total: request.budget?.total ?? config.CONTEXT_BUDGET,
        maxOutputTokens: request.budget?.max_output_tokens ?? config.MAX_OUTPUT_TOKENS,
        maxContextTokens: request.budget?.max_context_tokens ?? null,
        compactTrigger: config.COMPACT_TRIGGER,
        hardBlock: config.HARD_BLOCK,
        safetyMargin: DEFAULT_SAFETY_MARGIN,
        calibration: budgetCalibration(session.calibration, facts.model),
      },
      compaction: facts.mode,
      system: (request.system ?? []).map((s) => ({ ...s, cacheable: s.cacheable ?? true })),
      agentSections: (agent?.sections ?? []).map((s) => ({
        name: s.name,
        text: s.content,
        cacheable: s.cacheable,
      })),
      structuredContext: turn.hasChannel && include.snapshot !== false,
      tools: facts.callerTools,
      storedResults:
        loaded.storedResults ||
        asBlocks(message).some((b) => b.type === 'tool_result' && offloadRefIdOf(b.content) !== null),
      conversationTools: tools,
      toolLastUsed: reads.tools.toolLastUsed,
      promotedTools: reads.tools.promotedTools,
      toolDeferralShare: config.TOOL_DEFERRAL_SHARE,
      lane: { ...lane, pendingSlot: pendingSlot.success ? pendingSlot.data : null },
      history: reads.view.history.map((entry) => {
        const content = redactContent(entry.content);
        return content === entry.content ? entry : { ...entry, content };
      }),
      channelContext: channelContext ? channelContextInput(session, channelContext, include) : null,
      knownMessageIds: [
        ...(turn.anchor ? [turn.anchor.message_id] : []),
        ...(quoted ? [quoted.message_id] : []),
      ],
      quotedReply: quoted ? quotedReplyOf(quoted) : null,
      // Chunks indexed before secrets were redacted in them still hold them: redacted here too.
      retrieved: reads.retrieved.items.map((item) => {
        const text = redactText(item.text);
        return text === item.text ? item : { ...item, text };
      }),
      retrievalLeftOut: reads.retrieved.leftOut,
      retrievalTokens: reads.retrievalTokens,
      retrievalSkipped: !reads.searchable,
      media: reads.media,
      manifest: reads.manifestRows.map((r) => ({
        artifact_id: r.artifactId,
        sha256: r.contentHash,
        included_at_turn: r.includedAtTurn,
      })),
      previousPercentage: loaded.lastPercentage,
      estimator: deps.estimator,
    };
  }

  /**
   * 3b. Decide compaction: before replying when the budget makes it unavoidable (then the call
   * assembles again: `rerun`), else scheduled in the background; with the reply's report of it.
   */
  async function decideCompaction(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    result: AssembleResult,
    compacted: CompactionRun | undefined,
  ): Promise<{ rerun: CompactionRun } | { scheduled: string | null; report: CompactionReport }> {
    const { tenantId, sessionId } = facts;
    const { laneKey } = turn;
    const { turns, viewFrom } = reads.view;
    const need = compactionNeed({
      mode: facts.mode,
      dryRun: facts.dryRun,
      alreadyCompacted: compacted !== undefined,
      result,
      turns: turns.filter((e) => e.seq >= viewFrom),
      limits: { compactTrigger: config.COMPACT_TRIGGER, hardBlock: config.HARD_BLOCK },
    });
    if (deps.compaction && need.now) {
      const run = await compactNow(facts, laneKey, 'blocked');
      if (run.result) return { rerun: run };
      result.notes.push(`Compaction could not run before this payload: ${run.error}.`);
    }
    const scheduled =
      deps.compaction && need.schedule
        ? await deps.compaction.schedule({
            tenantId,
            sessionId,
            laneKey,
            reason: need.state,
            effectiveWindow: facts.window,
          })
        : null;
    const report = reportCompaction({
      mode: facts.mode,
      available: deps.compaction !== undefined,
      compacted: compacted?.result ?? null,
      droppedEntries: result.context.lane.dropped_entries,
      scheduled,
    });
    return { scheduled, report };
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
              beforeCommit: async (tx, committed) => {
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
/** What the lane's history from `from` on takes: stored estimates with the per-message overhead. */
function viewTokensOf(entries: readonly { seq: number; tokenEstimate: number }[], from: number): number {
  let sum = 0;
  for (const e of entries) if (e.seq >= from) sum += e.tokenEstimate + MESSAGE_OVERHEAD_TOKENS;
  return sum;
}

async function assembleAgainAfterBackgroundCommits<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof BackgroundCommitDuringAssembly) || tries >= MAX_ASSEMBLIES) throw error;
    }
  }
}
