// The context call (docs/design.md §5 "Context", §6.6), step by step: 1. load what assembly needs: one
// statement for the session and its turn's state, then one parallel round for the lane's entries, the
// channel context and retrieval (compacting first when a deleted text is in the lane's view); 2. retrieve
// (context.retrieve.ts); 3. assemble (pure, core/assemble.ts; again with the channel context when truncation
// left out the turn that carried it), then 3b. compact before replying when the budget makes it
// unavoidable, or schedule it; 4. unless dry_run, record the user turn and its audit row (context.record.ts).
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../../config.js';
import type { Clock } from '../../shared/clock.js';
import { assembleContext, type SystemSection } from './core/assemble.js';
import { DEFAULT_SAFETY_MARGIN } from './core/budget.js';
import { budgetCalibration } from '../sessions/core/calibration.js';
import type { ContentBlock } from '../../shared/content-blocks.js';
import { checkAnchorSource, plainText } from './core/current-turn.js';
import { asBlocks, toolResultIds } from '../sessions/core/history-view.js';
import { pendingSlotSchema } from '../lanes/core/pending-slot.js';
import { defaultLaneKey } from '../sessions/core/session-keys.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import { validateTurnSequence } from '../sessions/core/turn-validation.js';
import type { Db, Executor } from '../../db/client.js';
import type { ContextRepository } from './context.repository.js';
import type { LanesRepository } from '../lanes/lanes.repository.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import { lexemeText, searchedLexemes, type MemorySearchService } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { sessionEnded, sessionNotFound } from '../sessions/sessions.errors.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import {
  compactionNeed,
  reportCompaction,
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
import { createRetriever, retrievalLimit, retrievalPlan } from './context.retrieve.js';
import { createThreadMediaLoader, type PlatformMediaFetcher } from './context.media.js';
import { createContextLogReader } from './context.log.js';
import { historyTurnsView } from './core/history-turns.js';
import { toolHistory } from '../tools/core/tool-history.js';
import { recordTurn } from './context.record.js';
import { createLaneHistoryCache } from './lane-history-cache.js';
export type { ContextReply, ContextRequest, OutputFormat } from './context.types.js';
export { visibleMemoryScopes } from './context.retrieve.js';

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
  const retrieve = createRetriever(deps);
  const laneHistory = createLaneHistoryCache(deps);

  /**
   * One context call. `beforeCommit` runs inside the append transaction with the reply (a
   * non-dry-run call only), after everything else the call writes.
   */
  async function assembleTurn(params: {
    tenantId: string;
    sessionId: string;
    request: ContextRequest;
    beforeCommit?: (tx: Executor, assembled: Assembled) => Promise<void>;
    /** Set on the second pass, after a compaction this call ran (it runs at most one). */
    compacted?: CompactionRun;
  }): Promise<Assembled> {
    const { tenantId, sessionId, request } = params;
    const include = request.include ?? {};
    const userText = plainText(asBlocks(request.message.content) as Anthropic.ContentBlockParam[]);
    const isToolResultTurn =
      toolResultIds(asBlocks(request.message.content) as Anthropic.ContentBlockParam[]).length > 0;
    const wantsRetrieval =
      userText.trim() !== '' &&
      !isToolResultTurn &&
      (include.memories !== false || include.channel_search !== false);
    const source = request.message.source;

    // 1. Load: one statement reads the session, the anchor message (in the caller's tenant,
    // checked against the session's channel before use), the lane state, the previous call's
    // budget, the agent's sections and defaults, and the query's lexemes.
    const loaded = await context.loadTurn({
      tenantId,
      sessionId,
      anchor: source
        ? { platform: source.platform, channelId: source.channel_id, messageId: source.message_id }
        : null,
      snapshot: include.snapshot !== false,
      laneKey: request.message.lane_key ?? null,
      agentId: request.agent_id ?? null,
      // The query's lexemes depend only on the message: read here, off the retrieval's path.
      lexemeText: wantsRetrieval ? lexemeText(userText) : null,
      laneRead: laneHistory.readAhead(tenantId, sessionId),
    });
    if (!loaded) throw sessionNotFound(sessionId);
    const { session, agent } = loaded;
    if (session.endedAt) throw sessionEnded(session);
    checkAnchorSource(session, source);
    const found = await deps.channels.anchorFromRow(tenantId, loaded.anchor);
    const lexemes = wantsRetrieval ? searchedLexemes(loaded.lexemes ?? []) : null;
    const sections = agent?.sections ?? [];
    // history_turns: the request's, else the agent's default (PUT /v1/agents/{id}/settings).
    const historyTurns = request.history_turns ?? agent?.historyTurns ?? undefined;
    const anchor = found?.view ?? null;
    // Without an anchor or an explicit lane, the turn continues the lane of the last turn.
    const laneKey =
      anchor?.lane_key ??
      request.message.lane_key ??
      session.turnState.last_lane_key ??
      defaultLaneKey(session);
    // The session-wide turn rules (role order, tool pairing), with their stable codes.
    validateTurnSequence(
      session.turnState,
      [{ role: 'user', content: request.message.content, lane_key: laneKey }],
      laneKey,
    );

    // 1b. The lane's state came with the load, which picks the lane by the same rule in SQL; were the
    // two rules ever to disagree, this lane's state is read on its own.
    const laneState =
      loaded.laneKey === laneKey
        ? loaded.lane
        : await deps.lanes.getLaneState({ tenantId, sessionId, laneKey });
    // A deleted message's text is in this lane's view: compact first, so no payload carries it.
    if (deps.compaction && !params.compacted && (laneState?.purgeTexts?.length ?? 0) > 0) {
      const run = await deps.compaction.compactNow({ tenantId, sessionId, laneKey, trigger: 'purge' });
      return assembleTurn({ ...params, compacted: run });
    }
    const lane = laneViewOf(laneKey, laneState);
    const pendingSlot = pendingSlotSchema.safeParse(laneState?.pendingSlot ?? undefined);
    const hasChannel = Boolean(session.platform && session.channelId);
    const canAttachChannelContext = hasChannel && anchor !== null && include.snapshot !== false;
    // With the history while none is attached, else after an assembly that lost it (below); + backfill notes.
    const readNotes: string[] = [];
    const loadChannelContext = () =>
      deps.channels
        .loadAnchorContext({
          tenantId,
          platform: session.platform!,
          channelId: session.channelId!,
          messageId: anchor!.message_id,
          anchor: found!.row,
          snapshotRead: loaded.snapshot,
          threadBudget: config.THREAD_BUDGET,
        })
        .then((loaded) => (readNotes.push(...loaded.notes), loaded));
    const limit = retrievalLimit(request.budget?.max_context_tokens);
    const provisionalNow = anchor
      ? new Date(anchor.ts)
      : request.message.time
        ? new Date(request.message.time)
        : null;

    // 2. Retrieve. Retrieval needs "now": with an anchor or a stated time it starts beside the reads below.
    const { searchable, note: retrievalNote } = retrievalPlan({
      userText,
      isToolResultTurn,
      include,
      lexemes,
    });
    const retrieveAt = (now: Date) =>
      searchable
        ? retrieve({
            session,
            laneKey,
            query: userText,
            lexemes,
            now,
            limit,
            include,
            scopeVersions: loaded.scopeVersions,
          })
        : Promise.resolve([]);
    const early = provisionalNow ? retrieveAt(provisionalNow) : null;
    // Awaited below; until then a failure must not count as unhandled.
    early?.catch(() => {});
    const [entries, channelContext, quoted] = await Promise.all([
      laneHistory.laneEntries(
        { tenantId, sessionId, laneKey, fromSeq: lane.firstKeptSeq },
        session.entriesRemoved,
        loaded.laneRead,
      ),
      canAttachChannelContext && lane.contextAttachedSeq === null ? loadChannelContext() : null,
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
    const retrieved = await (early ?? retrieveAt(now));

    // Media of the current thread, opt-in (§6.11); the manifest decides attach or reference.
    const { media, manifestRows, mediaNotes } =
      include.media === 'thread' && anchor && hasChannel
        ? await loadTurnMedia({
            tenantId,
            sessionId,
            session,
            anchor,
            thread: channelContext?.thread ?? null,
          })
        : { media: [], manifestRows: [], mediaNotes: [] };

    const quotedMessage = quoted?.messages?.[0] ?? null;
    const knownMessageIds = [
      ...(anchor ? [anchor.message_id] : []),
      ...(quotedMessage ? [quotedMessage.message_id] : []),
    ];

    // Tool history in view: last use per tool, and deferred tools that tool_search promoted.
    const callerTools = request.tools ?? [];
    const { toolLastUsed, toolNames, promotedTools } = toolHistory(entries, callerTools);

    // What was sent stays sent: big tool results in this message are offloaded before assembly,
    // so the payload holds the same reference the transcript will.
    let messageContent: unknown = request.message.content;
    if (!request.dry_run && isToolResultTurn) {
      messageContent = (
        await deps.db.transaction((tx) =>
          deps.offload.offloadToolResults(
            { tenantId, sessionId, content: request.message.content as string | ContentBlock[], toolNames },
            tx,
          ),
        )
      ).content;
    }

    const system: SystemSection[] = (request.system ?? []).map((s) => ({
      ...s,
      cacheable: s.cacheable ?? true,
    }));
    const model = request.model ?? config.DEFAULT_MODEL;
    // history_turns: a view of the lane's latest turns, widened so no tool pair (nor the open tool
    // loop) is split.
    const { turns, viewFrom, history } = historyTurnsView(entries, historyTurns, isToolResultTurn);
    // 3. Assemble (pure).
    const assemble = (anchorContext: typeof channelContext) =>
      assembleContext({
        model,
        message: messageContent,
        now,
        limits: {
          total: request.budget?.total ?? config.CONTEXT_BUDGET,
          maxOutputTokens: request.budget?.max_output_tokens ?? config.MAX_OUTPUT_TOKENS,
          maxContextTokens: request.budget?.max_context_tokens ?? null,
          compactTrigger: config.COMPACT_TRIGGER,
          hardBlock: config.HARD_BLOCK,
          safetyMargin: DEFAULT_SAFETY_MARGIN,
          calibration: budgetCalibration(session.calibration, model),
        },
        compaction: request.compaction ?? 'auto',
        system,
        agentSections: sections.map((s) => ({ name: s.name, text: s.content, cacheable: s.cacheable })),
        structuredContext: hasChannel && include.snapshot !== false,
        tools: callerTools,
        toolLastUsed,
        promotedTools,
        toolDeferralShare: config.TOOL_DEFERRAL_SHARE,
        lane: { ...lane, pendingSlot: pendingSlot.success ? pendingSlot.data : null },
        history,
        channelContext: anchorContext ? channelContextInput(session, anchorContext, include) : null,
        knownMessageIds,
        quotedReply: quotedMessage ? quotedReplyOf(quotedMessage) : null,
        retrieved,
        retrievalSkipped: !searchable,
        media,
        manifest: manifestRows.map((r) => ({
          artifact_id: r.artifactId,
          sha256: r.contentHash,
          included_at_turn: r.includedAtTurn,
        })),
        previousPercentage: loaded.lastPercentage,
        estimator: deps.estimator,
      });
    let result = assemble(channelContext);
    // The turn that carried the lane's channel context is not in this payload: load it and
    // assemble again, attaching it in this turn (exact, and the snapshot reads happen only then).
    if (result.reattachChannelContext && canAttachChannelContext) {
      result = assemble(await loadChannelContext());
    }
    result.notes.push(...(retrievalNote ? [retrievalNote] : []), ...readNotes, ...mediaNotes);

    // 3b. Compaction: before replying when the budget makes it unavoidable, else in the background.
    const mode = request.compaction ?? 'auto';
    const need = compactionNeed({
      mode,
      dryRun: request.dry_run ?? false,
      alreadyCompacted: params.compacted !== undefined,
      result,
      turns: turns.filter((e) => e.seq >= viewFrom),
      limits: { compactTrigger: config.COMPACT_TRIGGER, hardBlock: config.HARD_BLOCK },
    });
    if (deps.compaction && need.now) {
      const run = await deps.compaction.compactNow({
        tenantId,
        sessionId,
        laneKey,
        trigger: 'blocked',
        effectiveWindow: result.budget.effective_window,
      });
      if (run.result) return assembleTurn({ ...params, compacted: run });
      result.notes.push(`Compaction could not run before this payload: ${run.error}.`);
    }
    const scheduled =
      deps.compaction && need.schedule
        ? await deps.compaction.schedule({ tenantId, sessionId, laneKey, reason: need.state })
        : null;
    const wire = replyOf(result, {
      format: request.format ?? 'anthropic',
      dryRun: request.dry_run ?? false,
      compaction: reportCompaction({
        mode,
        available: deps.compaction !== undefined,
        compacted: params.compacted?.result ?? null,
        droppedEntries: result.context.lane.dropped_entries,
        scheduled,
      }),
    });
    if (request.dry_run) return wire.reply(null);

    // 4. Record: the rendered user turn with its audit row, manifest, lane marker and slot.
    const appended = await recordTurn(deps, {
      tenantId,
      sessionId,
      request,
      result,
      session,
      lane,
      laneKey,
      sha: wire.sha256,
      payloadText: wire.payloadText,
      model,
      now,
      callerTools,
      onCommit: (tx, seq) => params.beforeCommit?.(tx, wire.reply(seq)) ?? Promise.resolve(),
    });
    // The lane over its thresholds after this turn: a background compaction (never on the hot path).
    if (deps.compaction && mode !== 'never' && scheduled === null) {
      const over = deps.compaction.overThresholds({
        entries: entries.filter((e) => e.kind === 'message' || e.kind === 'context_attachment').length + 1,
        // What the lane's view costs as sent (cleared tool results counted as cleared), plus this turn.
        tokens: result.budget.components.conversation + appended.entries[0]!.tokenEstimate,
        summaryUpdatedAt: laneState?.summaryUpdatedAt ?? null,
        summaryStale: laneState?.summaryStale ?? false,
        now,
      });
      if (over)
        await deps.compaction.schedule({ tenantId, sessionId, laneKey, reason: `thresholds:${over}` });
    }
    return wire.reply(appended.entries[0]!.seq);
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
          const assembled = await assembleTurn({
            tenantId,
            sessionId,
            request,
            beforeCommit: async (tx, committed) => {
              body = encode(committed.reply, committed.payloadText);
              await record({ statusCode: 200, body }, tx);
            },
          });
          return { statusCode: 200, body: body ?? encode(assembled.reply, assembled.payloadText) };
        },
      );
      return { body: result.body, replayed: result.replayed };
    },

    ...createContextLogReader(deps),
  };
}

export type ContextService = ReturnType<typeof createContextService>;
