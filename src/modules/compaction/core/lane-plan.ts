// The compaction chain for one lane, as a pure plan (docs/compaction.md, "The chain"): stop as
// soon as the lane is under target; (1) clear old tool results — view only, when the provider
// cache is already cold unless the budget forces it; (2) summarize all but the most recent K
// entries; (3) truncate: move the view further forward, folding what leaves it into the same
// summary. Every cut is at a unit boundary, so a tool_use never loses its tool_result.
import {
  asBlocks,
  fitHistorySuffix,
  renderHistory,
  toolUseIds,
  unitStarts,
} from '../../sessions/core/history-view.js';
import { storedToolLoopStart, toolSafeStart } from '../../sessions/core/render.js';
import type { TokenEstimator } from '../../../shared/tokens.js';
import { renderedContextTag } from '../../../shared/content-blocks.js';
import type { CompactionSettings, CompactionStrategy, LaneEntry } from './types.js';

type CompactionReason =
  'entries' | 'tokens' | 'view' | 'summary_age' | 'stale' | 'purge' | 'history_share' | 'window' | 'cold';

/**
 * Why the sent view changes now (docs/compaction.md, "When the view changes"): the payload needs
 * the room (`window`), or the provider cache is cold anyway and the lane is past its history share
 * (`cold`). Either keeps the newest `keepShare` of the window verbatim and summarizes the rest.
 */
export type ViewChange = 'window' | 'cold';

/** The view (rendered context included) may grow to this many times the token threshold before it is cleared. */
const VIEW_TOKENS_FACTOR = 4;

export interface LanePlanInput {
  lane: {
    firstKeptSeq: number;
    clearedBeforeSeq: number;
    summary: string | null;
    summaryUpdatedAt: Date | null;
    summaryStale: boolean;
  };
  /** The lane's turns from first_kept_seq on, oldest first. */
  entries: readonly LaneEntry[];
  now: number;
  /** When the session's latest context call was made (null: never). */
  lastCallAt: number | null;
  effectiveWindow: number;
  /** Compact even when under the thresholds (API, tool). */
  force: boolean;
  /** The payload does not fit now: clear even while the provider cache is warm. */
  budgetForces: boolean;
  /** A deleted text forces the view to start at least here (purgeCut). */
  minFirstKeptSeq: number;
  /** Set when the context policy decided the sent view changes now (and why). */
  viewChange?: ViewChange;
  estimator: TokenEstimator;
  settings: CompactionSettings;
}

export interface LanePlan {
  steps: CompactionStrategy[];
  reasons: CompactionReason[];
  clearedBeforeSeq: number;
  /** Entries before this seq leave the view into the summary; null when nothing is summarized. */
  summarizeBeforeSeq: number | null;
  firstKeptSeq: number;
  beforeTokens: number;
  /** Estimated view tokens after the plan, without the new summary (known only once written). */
  afterViewTokens: number;
  keptMessages: number;
  /** Set when the lane needs only a clearing that waits for the provider cache to go cold. */
  deferred: 'cache_warm' | null;
}

/** Tokens of the lane's view (kept entries rendered, cleared results counted as cleared). */
function viewTokens(
  entries: readonly LaneEntry[],
  firstKeptSeq: number,
  clearedBeforeSeq: number,
  estimator: TokenEstimator,
): number {
  return renderHistory({ entries, firstKeptSeq, clearedBeforeSeq, estimator }).reduce(
    (s, m) => s + m.tokens,
    0,
  );
}

/** clearedBeforeSeq that leaves the results of the last `keep` tool uses visible. */
export function clearingPoint(entries: readonly LaneEntry[], current: number, keep: number): number {
  const useSeqs = entries
    .filter((e) => e.role === 'assistant')
    .flatMap((e) => toolUseIds(asBlocks(e.content)).map(() => e.seq));
  if (useSeqs.length <= keep) return current;
  return Math.max(current, useSeqs[useSeqs.length - keep]!);
}

/**
 * The lane's entries without the context contextd rendered into its turns (snapshot, retrieved
 * material, notes): what was said. The token threshold measures this, so a turn carrying a large
 * retrieved block does not trigger a compaction by itself (its context is cleared instead).
 */
function withoutRenderedContext(entries: readonly LaneEntry[], estimator: TokenEstimator): LaneEntry[] {
  return entries.map((e) => {
    if (e.role !== 'user' || !Array.isArray(e.content)) return e;
    const blocks = (e.content as { type: string; text?: string }[]).filter(
      (b) => b.type !== 'text' || !renderedContextTag(b.text ?? ''),
    );
    if (blocks.length === e.content.length) return e;
    const content = blocks.length > 0 ? blocks : [{ type: 'text', text: '…' }];
    return { ...e, content, tokenEstimate: estimator.content(content) };
  });
}

/**
 * The size thresholds a lane compacts at: more kept entries than `maxEntries`, more tokens said in
 * them than `maxTokens`. The plan measures the rendered view (laneReasons); an append measures the
 * stored estimates SQL sums (the compaction module's lanesOverThresholds) to decide whether to
 * queue a compaction at all. Both compare here.
 */
export function sizeReasons(
  size: { entries: number; tokens: number },
  settings: Pick<CompactionSettings, 'maxEntries' | 'maxTokens'>,
): ('entries' | 'tokens')[] {
  const reasons: ('entries' | 'tokens')[] = [];
  if (size.entries > settings.maxEntries) reasons.push('entries');
  if (size.tokens > settings.maxTokens) reasons.push('tokens');
  return reasons;
}

/** Why the lane needs compaction (empty: it is under its thresholds). */
function laneReasons(input: LanePlanInput, tokens: number, saidTokens = tokens): CompactionReason[] {
  const { lane, entries, settings } = input;
  const kept = entries.filter((e) => e.seq >= lane.firstKeptSeq);
  const reasons: CompactionReason[] = sizeReasons({ entries: kept.length, tokens: saidTokens }, settings);
  if (tokens > VIEW_TOKENS_FACTOR * settings.maxTokens) reasons.push('view');
  if (
    lane.summary !== null &&
    lane.summaryUpdatedAt !== null &&
    input.now - lane.summaryUpdatedAt.getTime() > settings.maxSummaryAgeMs &&
    kept.some((e) => e.at > lane.summaryUpdatedAt!.getTime())
  ) {
    reasons.push('summary_age');
  }
  if (lane.summaryStale) reasons.push('stale');
  if (input.minFirstKeptSeq > lane.firstKeptSeq) reasons.push('purge');
  if (tokens > input.settings.historyShare * input.effectiveWindow) reasons.push('history_share');
  return reasons;
}

export function planLane(input: LanePlanInput): LanePlan {
  const { lane, entries, estimator, settings } = input;
  const turns = [...entries].filter((e) => e.seq >= lane.firstKeptSeq).sort((a, b) => a.seq - b.seq);
  const before = viewTokens(turns, lane.firstKeptSeq, lane.clearedBeforeSeq, estimator);
  const said = withoutRenderedContext(turns, estimator);
  const saidTokens = (cleared: number) => viewTokens(said, lane.firstKeptSeq, cleared, estimator);
  const reasons = laneReasons(input, before, saidTokens(lane.clearedBeforeSeq));
  if (input.viewChange) reasons.push(input.viewChange);
  const plan: LanePlan = {
    steps: [],
    reasons,
    clearedBeforeSeq: lane.clearedBeforeSeq,
    summarizeBeforeSeq: null,
    firstKeptSeq: lane.firstKeptSeq,
    beforeTokens: before,
    afterViewTokens: before,
    keptMessages: turns.length,
    deferred: null,
  };
  if (reasons.length === 0 && !input.force) return plan;

  // 1. Clear old tool results: changes the cached prefix, so only once the cache is cold, unless
  // the budget forces it (or the prefix changes anyway because the lane is summarized below).
  const cold = input.lastCallAt === null || input.now - input.lastCallAt >= settings.cacheTtlMs;
  const cleared = clearingPoint(turns, lane.clearedBeforeSeq, settings.keepToolUses);
  const afterClearing = viewTokens(turns, lane.firstKeptSeq, cleared, estimator);
  if (cleared > lane.clearedBeforeSeq) {
    const clearingSuffices =
      laneReasons(input, afterClearing, saidTokens(cleared)).length === 0 && !input.force;
    const urgent = input.budgetForces || reasons.includes('view');
    if (!cold && !urgent && clearingSuffices) {
      // Clearing alone would do, but it would cost a cache miss now: wait for a cold cache (or
      // for the budget to force it).
      plan.deferred = 'cache_warm';
      return plan;
    }
    if (cold || urgent) {
      plan.steps.push('clear_tool_results');
      plan.clearedBeforeSeq = cleared;
      plan.afterViewTokens = afterClearing;
      if (clearingSuffices) return plan;
    }
  }

  // 2. Summarize all but the most recent K entries (moved back so a kept result keeps its call);
  // a change of the sent view keeps the newest share of the window instead.
  const keepFrom = input.viewChange
    ? viewKeepFrom(turns, lane, input)
    : turns.length > settings.keepRecent
      ? turns[turns.length - settings.keepRecent]!.seq
      : lane.firstKeptSeq;
  // An open tool loop stays whole: its first assistant message holds the thinking the API needs
  // back with the results (docs/sessions.md, "Extended thinking and tool loops").
  const loopStart = storedToolLoopStart(turns);
  let cut = Math.max(
    Math.min(toolSafeStart(turns, keepFrom), loopStart ?? Number.POSITIVE_INFINITY),
    lane.firstKeptSeq,
    input.minFirstKeptSeq,
  );

  // 3. Truncate: while the kept view is over half its token threshold (hysteresis, so the next
  // turn does not trigger again) or over the history share, move the start forward by whole
  // units, always keeping the last one.
  const clearedAt = cleared > lane.clearedBeforeSeq ? cleared : lane.clearedBeforeSeq;
  const target = input.viewChange
    ? Math.floor(settings.keepShare * input.effectiveWindow)
    : Math.min(settings.maxTokens / 2, settings.historyShare * input.effectiveWindow);
  const messages = renderHistory({
    entries: turns,
    firstKeptSeq: cut,
    clearedBeforeSeq: clearedAt,
    estimator,
  });
  let total = messages.reduce((s, m) => s + m.tokens, 0);
  const loopIndex = loopStart === null ? -1 : messages.findIndex((m) => m.seqs.at(-1)! >= loopStart);
  const starts = unitStarts(messages, loopIndex === -1 ? undefined : loopIndex);
  let truncated = false;
  // The previous exchange (the last two units) is never truncated away.
  for (let u = 0; u + 2 < starts.length && total > target; u += 1) {
    for (let i = starts[u]!; i < starts[u + 1]!; i += 1) total -= messages[i]!.tokens;
    cut = messages[starts[u + 1]!]!.seqs[0]!;
    truncated = true;
  }

  // A stale summary is rebuilt even when no entry leaves the view; one over its share of the window
  // the view changes for (written for a larger one) is fitted to it even when none does.
  const rebuild = lane.summaryStale;
  const refit =
    input.viewChange !== undefined &&
    lane.summary !== null &&
    estimator.text(lane.summary) > Math.floor(settings.summaryWindowShare * input.effectiveWindow);
  if (cut > lane.firstKeptSeq || rebuild || refit) {
    if (!plan.steps.includes('clear_tool_results') && cleared > lane.clearedBeforeSeq) {
      // The summary changes the prefix anyway: clearing costs no extra cache miss now.
      plan.steps.push('clear_tool_results');
    }
    plan.clearedBeforeSeq = clearedAt;
    plan.steps.push('summarize');
    if (truncated) plan.steps.push('truncate');
    plan.summarizeBeforeSeq = cut;
    plan.firstKeptSeq = cut;
    plan.afterViewTokens = viewTokens(turns, cut, plan.clearedBeforeSeq, estimator);
    plan.keptMessages = turns.filter((e) => e.seq >= cut).length;
  }
  return plan;
}

/**
 * Where the verbatim view starts after a change of the sent view: the newest whole units within
 * `keepShare` of the window, and never fewer than the last two (the previous exchange).
 */
function viewKeepFrom(
  turns: readonly LaneEntry[],
  lane: LanePlanInput['lane'],
  input: Pick<LanePlanInput, 'effectiveWindow' | 'estimator' | 'settings'>,
): number {
  const messages = renderHistory({
    entries: turns,
    firstKeptSeq: lane.firstKeptSeq,
    clearedBeforeSeq: lane.clearedBeforeSeq,
    estimator: input.estimator,
  });
  const starts = unitStarts(messages);
  if (starts.length <= 2) return lane.firstKeptSeq;
  const room = Math.floor(input.settings.keepShare * input.effectiveWindow);
  const lastTwo = starts[starts.length - 2]!;
  let from = fitHistorySuffix(messages, room);
  if (from === 0) return lane.firstKeptSeq;
  if (from > lastTwo) from = lastTwo;
  // fitHistorySuffix returns a unit start (or 0); a message index maps to its first entry's seq.
  return messages[from]?.seqs[0] ?? lane.firstKeptSeq;
}
