// Assembly steps 1–4 (core/assemble.ts): the tools, the system prompt, the current turn and the
// room beside what every payload must hold, and the lane summary.
import { unprocessable } from '../../../shared/errors.js';
import { builtinToolsFor } from '../../tools/tools.schemas.js';
import { windowCeiling, windowMultiplier, withMargin, type BudgetComponents } from './budget.js';
import { withoutMessageCacheControl } from './cache-breakpoints.js';
import { CHANNEL_CONTEXT_GUIDE, CHANNEL_GUIDE_NAME } from './channel-guide.js';
import { renderSummaryBlock } from './context-blocks.js';
import { plainText, validateUserTurn } from './current-turn.js';
import { asBlocks, historyWithOpenLoop } from '../../sessions/core/history-view.js';
import { callerToolCandidate, deferTools } from '../../tools/core/tool-deferral.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../../shared/tokens.js';
import {
  NOTES_RESERVE_TOKENS,
  SUMMARY_MAX_ROOM_SHARE,
  type AssembleInput,
  type SystemSection,
  type TextBlock,
} from './assemble.types.js';

/**
 * 1. Tools: built-ins first, then the caller's as given (without `source`), after deferral.
 * read_result only when the session has a stored result to read; tool_search only when deferral
 * holds a tool back (deferral is judged without it first: with it the list only grows);
 * memory_search and compact_context only when they can act (input.conversationTools). All follow
 * the session's state, not the turn's material, so the tools block stays the same bytes from call to
 * call and changes once when one of them appears.
 */
export function selectTools(input: AssembleInput, window: number, stable: TokenEstimator) {
  const defer = (toolSearch: boolean) =>
    deferTools({
      tools: [
        ...builtinToolsFor({
          hasChannel: input.structuredContext,
          readResult: input.structuredContext || input.storedResults,
          toolSearch,
          ...input.conversationTools,
        }).map((tool) => ({
          tool,
          source: 'builtin' as const,
          lastUsedSeq: input.toolLastUsed[tool.name],
        })),
        ...input.tools.map((t) => callerToolCandidate(t, input.toolLastUsed)),
      ],
      effectiveWindow: window,
      share: input.toolDeferralShare,
      promoted: new Set(input.promotedTools),
      estimator: stable,
    });
  const without = defer(false);
  return without.deferred.length > 0 ? defer(true) : without;
}

/** 2. System: cacheable sections (inline, then agent), the guide, then the non-cacheable ones. */
export function orderSystem(input: AssembleInput, stable: TokenEstimator) {
  const sections = [...input.system, ...input.agentSections];
  const ordered: SystemSection[] = [
    ...sections.filter((s) => s.cacheable),
    ...(input.structuredContext
      ? [{ name: CHANNEL_GUIDE_NAME, text: CHANNEL_CONTEXT_GUIDE, cacheable: true }]
      : []),
    ...sections.filter((s) => !s.cacheable),
  ].filter((s) => s.text.length > 0);
  return {
    blocks: ordered.map((s): TextBlock => ({ type: 'text', text: s.text })),
    tokens: ordered.reduce((sum, s) => sum + stable.text(s.text), 0),
    lastCacheable: ordered.map((s) => s.cacheable).lastIndexOf(true),
  };
}

/**
 * 3. The current turn: the history in view (an open tool loop keeps its thinking and is never cut
 * in two), and the new message checked against it.
 */
export function currentTurn(input: AssembleInput) {
  const { estimator } = input;
  const { history, wholeFrom } = historyWithOpenLoop({
    entries: input.history,
    firstKeptSeq: input.lane.firstKeptSeq,
    clearedBeforeSeq: input.lane.clearedBeforeSeq,
    answersToolCalls: asBlocks(input.message).some((b) => b.type === 'tool_result'),
    estimator,
  });
  const userBlocks = withoutMessageCacheControl(validateUserTurn(input.message, history));
  return {
    history,
    wholeFrom,
    userBlocks,
    userText: plainText(userBlocks),
    userTokens: estimator.content(userBlocks) + MESSAGE_OVERHEAD_TOKENS,
  };
}
export type CurrentTurn = ReturnType<typeof currentTurn>;

/** The room left for contextd's own material: the window ceiling and, separately, the caller's cap. */
export interface Room {
  left(): number;
  /** What the window ceiling alone leaves. */
  windowLeft(): number;
  take(tokens: number): void;
}

/**
 * 3. What every payload must hold (system, tools, the message, the notes reserve) against the window
 * ceiling: a 422 `budget.too_small` when it does not fit, else the room left beside it.
 */
export function mandatoryRoom(
  limits: AssembleInput['limits'],
  components: BudgetComponents,
  userTokens: number,
  window: number,
): Room {
  const mandatory = components.system + components.tools + userTokens;
  const ceiling = windowCeiling(limits);
  if (mandatory + NOTES_RESERVE_TOKENS > ceiling) {
    const requiredWithMargin = withMargin(mandatory + NOTES_RESERVE_TOKENS, windowMultiplier(limits));
    throw unprocessable(
      'budget.too_small',
      `the budget cannot hold the system prompt, the tools and the message: they need ${requiredWithMargin} tokens with the safety margin${
        limits.calibration && limits.calibration.factor !== 1 ? ' and the usage calibration' : ''
      }, the effective window allows ${Math.floor(limits.hardBlock * window)}`,
      {
        required: {
          system: components.system,
          tools: components.tools,
          message: userTokens,
          notes_reserve: NOTES_RESERVE_TOKENS,
        },
        required_with_margin: requiredWithMargin,
        effective_window: window,
        hard_block: limits.hardBlock,
        safety_margin: limits.safetyMargin,
        calibration_factor: limits.calibration?.factor ?? 1,
        total: limits.total,
        max_output_tokens: limits.maxOutputTokens,
      },
    );
  }
  let windowRoom = ceiling - mandatory - NOTES_RESERVE_TOKENS;
  let capRoom = limits.maxContextTokens ?? Number.POSITIVE_INFINITY;
  return {
    left() {
      return Math.min(windowRoom, capRoom);
    },
    windowLeft() {
      return windowRoom;
    },
    take(tokens) {
      windowRoom -= tokens;
      capRoom -= tokens;
    },
  };
}

/** 4. The lane summary, as the first labelled user message, when it takes at most its share of the room. */
export function fitSummary(
  input: AssembleInput,
  room: Room,
  components: BudgetComponents,
  notes: string[],
  stable: TokenEstimator,
): TextBlock | null {
  if (!input.lane.summary) return null;
  const text = renderSummaryBlock(input.lane.laneKey, input.lane.summaryVersion, input.lane.summary);
  // The same summary is sent on every call until the next compaction: counted once.
  const tokens = stable.text(text) + MESSAGE_OVERHEAD_TOKENS;
  if (tokens <= room.left() * SUMMARY_MAX_ROOM_SHARE) {
    components.summary = tokens;
    room.take(tokens);
    return { type: 'text', text };
  }
  notes.push(
    tokens <= room.left()
      ? `The lane summary (${tokens} tokens) would take more than half of the room left (${room.left()} tokens) and was left out: the turns and material retrieved for this message use it.`
      : `The lane summary (${tokens} tokens) did not fit the budget and was left out.`,
  );
  return null;
}
