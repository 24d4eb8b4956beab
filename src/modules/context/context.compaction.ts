// What the context call needs of compaction (docs/compaction.md, "When the view changes"): run it
// now (a purge, a blocked payload, a cold provider cache with the lane past its history share) or
// in the background (the window needs it), always judged against the caller's window; step 3b of
// the call decides which (createCompactionDecisions).
import type { CompactionScheduler } from '../compaction/compaction.scheduler.js';
import type { CompactResult, CompactionService } from '../compaction/compaction.service.js';
import type { CompactionSettings } from '../compaction/core/types.js';
import type { AssembleResult, CompactionMode } from './core/assemble.js';
import { budgetState, mandatoryTokens, type BudgetLimits } from './core/budget.js';
import { cacheCold } from './core/cost-model.js';
import { stableEstimator } from './core/stable-estimator.js';
import type { Config } from '../../config.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../shared/tokens.js';
import type { LoadedTurn, TurnFacts } from './context.load.js';
import type { TurnReads } from './context.read.js';

/** A compaction this call ran before assembling again: its result, or why it could not run. */
export interface CompactionRun {
  result: CompactResult | null;
  error: string | null;
}

/** The reply's `compaction`: what happened to the session's history on this call. */
export interface CompactionReport {
  mode: CompactionMode;
  available: boolean;
  action: 'none' | 'truncated' | 'scheduled' | 'compacted';
  /** The background job scheduled by this call (action `scheduled`). */
  job_id: string | null;
  /** What the compaction run before this payload did (action `compacted`). */
  result: CompactResult | null;
}

export interface ContextCompaction {
  compactNow(params: {
    tenantId: string;
    sessionId: string;
    laneKey: string;
    trigger: 'purge' | 'blocked' | 'cold';
    effectiveWindow: number;
  }): Promise<CompactionRun>;
  /** The job id (a job of the session that already waits, when there is one), or null when none could be queued. */
  schedule(params: {
    tenantId: string;
    sessionId: string;
    laneKey: string;
    reason: string;
    effectiveWindow: number;
  }): Promise<string | null>;
  /** The share of the window past which a lane is due for a change of view at a cold cache. */
  readonly historyShare: number;
  /** The share of the window a change of view keeps verbatim. */
  readonly keepShare: number;
}

export function createContextCompaction(deps: {
  service: CompactionService;
  scheduler: CompactionScheduler;
  settings: CompactionSettings;
}): ContextCompaction {
  const { settings } = deps;
  return {
    async compactNow(params) {
      try {
        const result = await deps.service.compact({
          tenantId: params.tenantId,
          sessionId: params.sessionId,
          laneKeys: [params.laneKey],
          trigger: params.trigger,
          force: true,
          budgetForces: true,
          wait: true,
          effectiveWindow: params.effectiveWindow,
          ...(params.trigger === 'purge'
            ? {}
            : { viewChange: params.trigger === 'cold' ? 'cold' : 'window' }),
        });
        return { result, error: null };
      } catch (error) {
        return { result: null, error: error instanceof Error ? error.message : String(error) };
      }
    },
    async schedule(params) {
      const queued = await deps.scheduler.schedule({
        tenantId: params.tenantId,
        sessionId: params.sessionId,
        reason: params.reason,
        laneKeys: [params.laneKey],
        effectiveWindow: params.effectiveWindow,
        viewChange: 'window',
      });
      return queued?.jobId ?? null;
    },
    historyShare: settings.historyShare,
    keepShare: settings.keepShare,
  };
}

/**
 * What this call needs of compaction. The pressure is what the lane's whole view would take
 * without the elastic retrieved material: older entries the payload had to leave out count, so
 * truncation does not hide that the lane needs compacting. Now: blocked (`sync` also at
 * should_compact), never on a dry run or a second pass. In the background: should_compact, blocked,
 * or entries left out.
 */
export function compactionNeed(params: {
  mode: CompactionMode;
  dryRun: boolean;
  alreadyCompacted: boolean;
  result: AssembleResult;
  /** The lane's turns in view (history_turns applied), with their stored estimates. */
  turns: readonly { seq: number; tokenEstimate: number }[];
  limits: Pick<BudgetLimits, 'compactTrigger' | 'hardBlock'>;
}) {
  const { budget, context } = params.result;
  const firstSent = context.lane.first_sent_seq ?? Number.POSITIVE_INFINITY;
  const droppedTokens = params.turns
    .filter((e) => e.seq < firstSent)
    .reduce((sum, e) => sum + e.tokenEstimate, 0);
  const multiplier = budget.used > 0 ? budget.used_with_margin / budget.used : 1;
  // What must be sent (retrieved material is elastic and does not count) plus what was left out.
  const mustSend = mandatoryTokens(budget.components) + droppedTokens;
  const state =
    budget.effective_window > 0
      ? budgetState((mustSend * multiplier) / budget.effective_window, params.limits)
      : budget.state;
  const active = params.mode !== 'never' && !params.dryRun;
  return {
    state,
    now:
      active &&
      !params.alreadyCompacted &&
      (state === 'blocked' || (params.mode === 'sync' && state === 'should_compact')),
    schedule:
      active && (state === 'should_compact' || state === 'blocked' || context.lane.dropped_entries > 0),
  };
}

/** The reply's `compaction` for what this call did. */
export function reportCompaction(params: {
  mode: CompactionMode;
  available: boolean;
  compacted: CompactResult | null;
  droppedEntries: number;
  scheduled: string | null;
}): CompactionReport {
  return {
    mode: params.mode,
    available: params.available,
    action: params.compacted
      ? 'compacted'
      : params.droppedEntries > 0
        ? 'truncated'
        : params.scheduled !== null
          ? 'scheduled'
          : 'none',
    job_id: params.scheduled,
    result: params.compacted,
  };
}

/**
 * Whether the lane's sent view changes before this payload because the provider cache is cold
 * anyway: the last call is older than the cache TTL (or there was none) and the history in view is
 * past `historyShare` of the caller's window. Changing the view then costs no cache read that was
 * not already lost; while the cache is warm, only the window's need changes it.
 */
export function coldViewChangeDue(params: {
  mode: CompactionMode;
  dryRun: boolean;
  cacheCold: boolean;
  viewTokens: number;
  effectiveWindow: number;
  historyShare: number;
}): boolean {
  return (
    params.mode !== 'never' &&
    !params.dryRun &&
    params.cacheCold &&
    params.effectiveWindow > 0 &&
    params.viewTokens > params.historyShare * params.effectiveWindow
  );
}

/**
 * The context call's compaction decisions: compact before this payload (a purge, a cold view change, a
 * blocked budget: the call then assembles again) or schedule it, with the reply's report.
 */
export function createCompactionDecisions(deps: {
  config: Pick<Config, 'COMPACT_TRIGGER' | 'HARD_BLOCK'>;
  estimator: TokenEstimator;
  compaction?: ContextCompaction;
}) {
  const { config } = deps;

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

  return { mustPurgeFirst, compactNow, coldViewChangeFirst, decideCompaction };
}

/** What the lane's history from `from` on takes: stored estimates with the per-message overhead. */
export function viewTokensOf(
  entries: readonly { seq: number; tokenEstimate: number }[],
  from: number,
): number {
  let sum = 0;
  for (const e of entries) if (e.seq >= from) sum += e.tokenEstimate + MESSAGE_OVERHEAD_TOKENS;
  return sum;
}
