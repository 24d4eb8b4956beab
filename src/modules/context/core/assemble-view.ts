// Assembly steps 5–7 (core/assemble.ts): channel context, the history in view and what retrieval
// may add beside it.
import { tooLarge } from '../../../shared/errors.js';
import { type BudgetComponents } from './budget.js';
import { renderDataBlock, safeJson } from './context-blocks.js';
import { fitHistorySuffix, type HistoryMessage } from '../../sessions/core/history-view.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../../shared/tokens.js';
import {
  OTHER_LANE_MIN_SCORE,
  RETRIEVAL_RESERVE_SHARE,
  VIEW_START_TEXT,
  type AssembleInput,
  type RetrievedItem,
} from './assemble.types.js';
import { sumTokens } from './stable-estimator.js';
import { RETRIEVED_LABEL, retrievedLine } from './retrieved-block.js';
import { shownInView } from './shown-in-view.js';
import { fitTurnContext } from './turn-context.js';
import type { CurrentTurn, Room } from './assemble-fixed.js';

/** Room for the opening user message a view that starts with an assistant turn needs. */
const VIEW_START_RESERVE = (estimator: TokenEstimator) =>
  estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS;

/**
 * Sizes of retrieved items as rendered inside the block (nesting and separators included), beside
 * the wrapper's: each item's JSON plus its separator; only items of this lane (or scoring high
 * enough) that no known message already shows.
 */
export function retrievalSizer(input: AssembleInput, stable: TokenEstimator) {
  const header = stable.text(renderDataBlock(RETRIEVED_LABEL, {}));
  return {
    wrapper: {
      header,
      groupSize(key: string) {
        return stable.text(safeJson({ [key]: [] }));
      },
    },
    retrievalFor(shownIds: readonly string[]) {
      const known = new Set([...input.knownMessageIds, ...shownIds]);
      const eligible = input.retrieved.filter(
        (item) =>
          (!item.lane_key || item.lane_key === input.lane.laneKey || item.score >= OTHER_LANE_MIN_SCORE) &&
          !(item.message_id && known.has(item.message_id)),
      );
      // A row's own tokens; the first row of a (source, day) group also pays for the group's keys.
      const sizes = eligible.map((item) => stable.text(safeJson(retrievedLine(item))) + 1);
      // Chunks of history about to be dropped count too: they are what retrieval brings back.
      const all = eligible.length === 0 ? 0 : header + sizes.reduce((a, b) => a + b, 0);
      return { eligible, sizes, total: Math.min(all, input.retrievalTokens ?? Number.POSITIVE_INFINITY) };
    },
  };
}
export type Retrieval = ReturnType<ReturnType<typeof retrievalSizer>['retrievalFor']>;

/** Where history is cut: the newest whole units that fit beside a retrieval reserve. */
export function historyCutter(current: CurrentTurn, hasSummary: boolean, estimator: TokenEstimator) {
  const { history, wholeFrom } = current;
  const tokens = sumTokens(history);
  const viewStartTokens =
    !hasSummary && history[0]?.message.role === 'assistant' ? VIEW_START_RESERVE(estimator) : 0;
  return {
    hasSummary,
    tokens,
    viewStartTokens,
    /** Index of the first history message sent. */
    cut(available: number, retrievable: number) {
      if (tokens + viewStartTokens <= available) return 0;
      const reserve = Math.min(retrievable, Math.floor(RETRIEVAL_RESERVE_SHARE * Math.max(0, available)));
      return fitHistorySuffix(
        history,
        Math.max(0, available - reserve - VIEW_START_RESERVE(estimator)),
        wholeFrom,
      );
    },
  };
}
export type HistoryCutter = ReturnType<typeof historyCutter>;

/**
 * 5. Channel context for this turn: snapshot, thread, quoted reply, media, budgeted before history.
 * Snapshot and thread come once per lane (the service passes them while the lane has none attached
 * for its summary version) and again when the turn that carried them is not among the history this
 * payload sends. Whether it is depends on the room they would take, so history is cut without them
 * first; when they are re-attached, history is cut at least as far, so the carrying turn stays out
 * (the channel context is sent once) and the rest still fits. `firstKept` is set when the cut
 * without re-attaching is final; `leastCut` is the floor of the cut after re-attaching.
 */
export function fitChannelContext(
  input: AssembleInput,
  history: readonly HistoryMessage[],
  room: Room,
  cutter: HistoryCutter,
  sizer: ReturnType<typeof retrievalSizer>,
  stable: TokenEstimator,
) {
  const contextRoom = room.left();
  const fit = { input, room: contextRoom, estimator: input.estimator, stable };
  const carriedAt = input.lane.contextAttachedSeq ?? null;
  let turnContext = fitTurnContext({
    ...fit,
    channel: carriedAt === null ? input.channelContext : null,
    recovery:
      carriedAt === null && input.lane.compactedSinceAttach
        ? { kind: 'compaction', sentSeqs: new Set(history.flatMap((m) => m.seqs)) }
        : null,
  });
  let retrieval = sizer.retrievalFor(turnContext.shownIds);
  let firstKept: number | null = null;
  let leastCut = 0;
  let reattach = false;
  if (carriedAt !== null) {
    const cut = cutter.cut(contextRoom - turnContext.used, retrieval.total);
    const sent = history.slice(cut);
    if (carriedAt >= (sent[0]?.seqs[0] ?? Number.POSITIVE_INFINITY)) {
      firstKept = cut;
    } else if (input.channelContext) {
      turnContext = fitTurnContext({
        ...fit,
        channel: input.channelContext,
        recovery: { kind: 'truncation', sentSeqs: new Set(sent.flatMap((m) => m.seqs)) },
      });
      retrieval = sizer.retrievalFor(turnContext.shownIds);
      leastCut = cut;
    } else {
      reattach = true;
      firstKept = cut;
    }
  }
  return { turnContext, retrieval, firstKept, leastCut, reattach };
}

/**
 * 6. History: keep the newest whole units that fit, leaving a reserve for retrieved material; a 413
 * `context_overflow` when it does not fit and compaction is "never". Chunks of dropped history may
 * come back as retrieved material; chunks still in view, and rows, channel messages and texts a
 * sent turn already shows, are never retrieved again.
 */
export function keepHistory(
  input: AssembleInput,
  current: CurrentTurn,
  channel: ReturnType<typeof fitChannelContext>,
  room: Room,
  cutter: HistoryCutter,
  components: BudgetComponents,
  window: number,
) {
  const { history } = current;
  const { limits, estimator } = input;
  // (A re-attachment's least cut means history did not fit without it either.)
  if (
    input.compaction === 'never' &&
    (channel.leastCut > 0 || cutter.tokens + cutter.viewStartTokens > room.left())
  ) {
    throw tooLarge(
      'context_overflow',
      `the conversation does not fit and compaction is "never": history needs ${cutter.tokens} tokens, ${Math.max(0, room.left())} are left`,
      {
        history_tokens: cutter.tokens,
        room: Math.max(0, room.left()),
        window_room: Math.max(0, room.windowLeft()),
        max_context_tokens: limits.maxContextTokens,
        effective_window: window,
        safety_margin: limits.safetyMargin,
        calibration_factor: limits.calibration?.factor ?? 1,
        components,
      },
    );
  }
  const firstKept =
    channel.firstKept ?? Math.max(channel.leastCut, cutter.cut(room.left(), channel.retrieval.total));
  const kept = history.slice(firstKept);
  const needsViewStart = !cutter.hasSummary && kept[0]?.message.role === 'assistant';
  return {
    kept,
    // Counted in transcript entries (consecutive same-role entries render as one message).
    dropped: history.slice(0, firstKept).reduce((n, m) => n + m.seqs.length, 0),
    needsViewStart,
    tokens: sumTokens(kept) + (needsViewStart ? VIEW_START_RESERVE(estimator) : 0),
    retrievable: retrievableOutsideView(history, firstKept, kept, channel.retrieval),
  };
}
export type HistoryView = ReturnType<typeof keepHistory>;

/** The retrieval candidates (with their sizes) that the sent history does not already show. */
export function retrievableOutsideView(
  history: readonly HistoryMessage[],
  firstKept: number,
  kept: readonly HistoryMessage[],
  retrieval: Retrieval,
) {
  const firstSentSeq = kept[0]?.seqs[0] ?? Number.POSITIVE_INFINITY;
  const shown = shownInView(history);
  const candidates: RetrievedItem[] = [];
  const sizes: number[] = [];
  retrieval.eligible.forEach((item, i) => {
    // In view: a chunk of history the payload still sends.
    if ((item.seq_range && item.seq_range[1] >= firstSentSeq) || shown(item, firstKept)) return;
    candidates.push(item);
    sizes.push(retrieval.sizes[i]!);
  });
  return { candidates, sizes };
}

export function droppedNote(dropped: number) {
  return `${dropped} oldest history entr${dropped === 1 ? 'y was' : 'ies were'} left out to fit the budget.`;
}
