// Step 1 of the context call: what the request alone tells, computed once (turnFacts), and the load:
// one statement reads the session, the anchor, the lane's state and the agent; the turn's lane key
// is decided here.
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../../config.js';
import { compactionWindow } from './core/budget.js';
import { checkAnchorSource, plainText } from './core/current-turn.js';
import { asBlocks, toolResultIds } from '../sessions/core/history-view.js';
import { turnLaneKey } from '../sessions/core/session-keys.js';
import { validateTurnSequence } from '../sessions/core/turn-validation.js';
import { sessionEnded, sessionNotFound } from '../sessions/sessions.errors.js';
import { threadReadLimit } from '../channels/core/thread-budget.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { LanesRepository } from '../lanes/lanes.repository.js';
import { lexemeText } from '../memory/memory-search.service.js';
import type { ContextRepository } from './context.repository.js';
import { laneViewOf, type ContextRequest } from './context.types.js';
import type { LaneHistoryCache } from './lane-history-cache.js';

export function createTurnLoader(deps: {
  config: Pick<Config, 'DEFAULT_MODEL' | 'CONTEXT_BUDGET' | 'MAX_OUTPUT_TOKENS' | 'THREAD_BUDGET'>;
  context: Pick<ContextRepository, 'loadTurn'>;
  channels: Pick<ChannelsService, 'anchorFromRow'>;
  lanes: Pick<LanesRepository, 'getLaneState'>;
  /** The session's lane read rides on the load when it can (LaneHistoryCache.readAhead). */
  laneHistory: Pick<LaneHistoryCache, 'readAhead'>;
}) {
  const { config, context, laneHistory } = deps;

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

  return { turnFacts, loadTurn };
}

type TurnLoader = ReturnType<typeof createTurnLoader>;
/** What the request alone tells, computed once per call. */
export type TurnFacts = ReturnType<TurnLoader['turnFacts']>;
/** The session, the anchor and the turn's lane, as step 1 loaded them. */
export type LoadedTurn = Awaited<ReturnType<TurnLoader['loadTurn']>>;
