// Step 2 of the context call: read and retrieve. The lane's entries, the channel context and the
// quoted message in one parallel round with retrieval (context.retrieve.ts) beside them, then the
// thread's media; and the message's big tool results offloaded before assembly.
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import type { ContentBlock } from '../../shared/content-blocks.js';
import type { ChannelsService } from '../channels/channels.service.js';
import { createChunksRepository } from '../memory/chunks.repository.js';
import { searchedLexemes, type MemorySearchService } from '../memory/memory-search.service.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { toolHistory } from '../tools/core/tool-history.js';
import { historyTurnsView } from './core/history-turns.js';
import type { LoadedTurn, TurnFacts } from './context.load.js';
import { createThreadMediaLoader, type PlatformMediaFetcher } from './context.media.js';
import {
  createRetriever,
  minRelevance,
  retrievalCap,
  retrievalLimit,
  retrievalPlan,
} from './context.retrieve.js';
import type { LaneHistoryCache } from './lane-history-cache.js';

export function createTurnReader(deps: {
  db: Db;
  config: Pick<Config, 'THREAD_BUDGET'>;
  clock: Clock; // the call's time for the provider cache when the turn states none
  channels: Pick<ChannelsService, 'loadAnchorContext' | 'getChannelMessages' | 'neighbours'>;
  memorySearch: Pick<MemorySearchService, 'searchMemory'>;
  offload: Pick<OffloadService, 'offloadToolResults'>;
  blobs: Pick<BlobsRepository, 'findMeta' | 'readBytes'>;
  manifest: Pick<ManifestService, 'list'>;
  platformMedia?: PlatformMediaFetcher;
  laneHistory: Pick<LaneHistoryCache, 'laneEntries'>;
}) {
  const { config, laneHistory } = deps;
  const loadTurnMedia = createThreadMediaLoader(deps);
  const retrieve = createRetriever({ ...deps, chunks: createChunksRepository(deps.db) });

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

  return { readTurn, offloadedMessage };
}

/** What step 2 read and retrieved for the turn. */
export type TurnReads = Awaited<ReturnType<ReturnType<typeof createTurnReader>['readTurn']>>;
