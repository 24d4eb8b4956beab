// The context budget (docs/design.md §6.6): effective window, per-component usage, the state that drives
// compaction, and the two limits assembly enforces (the model window and `max_context_tokens`).
//
// Safety margin (§6.3): our estimates are BPE counts times a model factor, not the provider's
// count, so the one limit we cannot measure exactly — the model's window — is enforced on
// `ceil(used × safety_margin)`; `percentage` and `state` use that same margin-adjusted figure, so
// the state, the notes and the enforcement always agree. `max_context_tokens` is a cap the caller
// states in our own estimate units (the reply reports the same numbers), so it is enforced on the
// raw estimate, without the margin.
//
// Calibration (§6.3): once a session has reported enough provider usage for the model, the
// window figure is also multiplied by its real ÷ estimated ratio: `ceil(used × factor × margin)`.
// Multiplying the sum is multiplying every component; the components, `used`, `added` and the
// `max_context_tokens` cap stay in estimate units, the units stored estimates and the cap use.
import { NO_CALIBRATION, type BudgetCalibration } from '../../sessions/core/calibration.js';

export const DEFAULT_SAFETY_MARGIN = 1.2;
export const COMPACT_SOON_SHARE = 0.8;

export const budgetComponentNames = [
  'system',
  'tools',
  'channel_context',
  'summary',
  'memories',
  'conversation',
  'current_turn',
] as const;
type BudgetComponent = (typeof budgetComponentNames)[number];
export type BudgetComponents = Record<BudgetComponent, number>;

/** The states of a budget, least pressed first (budgetState decides which). */
export const budgetStates = ['ok', 'compact_soon', 'should_compact', 'blocked'] as const;
type BudgetState = (typeof budgetStates)[number];

export interface BudgetLimits {
  /** The model's context window in tokens. */
  total: number;
  /** Reserved for the reply. */
  maxOutputTokens: number;
  /** Cap on what contextd adds beyond system, tools and the message itself; null = no cap. */
  maxContextTokens: number | null;
  /** Share of the effective window at which a background compaction should start (0.95). */
  compactTrigger: number;
  /** Share at which the payload is blocked until compacted (0.98). */
  hardBlock: number;
  safetyMargin: number;
  /** The session's usage calibration for the model; none (factor 1) when omitted. */
  calibration?: BudgetCalibration;
}

export interface BudgetReport {
  total: number;
  max_output_tokens: number;
  effective_window: number;
  max_context_tokens: number | null;
  components: BudgetComponents;
  /** Sum of the components (raw estimate). */
  used: number;
  /** What contextd added: channel_context + summary + memories + conversation (raw estimate). */
  added: number;
  /** ceil(used × calibration.factor × safety_margin): the figure compared with the window. */
  used_with_margin: number;
  /** effective_window − used_with_margin (may be negative only in a 413/422 error's details). */
  remaining: number;
  /** used_with_margin / effective_window, rounded to 4 decimals. */
  percentage: number;
  state: BudgetState;
  safety_margin: number;
  /** The usage calibration applied to the window figure (factor 1: none). */
  calibration: BudgetCalibration;
  /** Room for contextd's material left after retrieval, and why (assembly sets it). */
  unused?: UnusedRoom;
}

export const unusedReasons = ['no_more_candidates', 'next_item_too_large', 'retrieval_skipped'] as const;
/**
 * What assembly left of `min(window room, max_context_tokens)` once everything was placed:
 * every retrieved candidate went in (`no_more_candidates`), the next one did not fit whole
 * (`next_item_too_large`), or retrieval did not run for this message (`retrieval_skipped`).
 */
export interface UnusedRoom {
  tokens: number;
  reason: (typeof unusedReasons)[number];
}

export function emptyComponents(): BudgetComponents {
  return {
    system: 0,
    tools: 0,
    channel_context: 0,
    summary: 0,
    memories: 0,
    conversation: 0,
    current_turn: 0,
  };
}

export function effectiveWindow(limits: Pick<BudgetLimits, 'total' | 'maxOutputTokens'>): number {
  return Math.max(0, limits.total - limits.maxOutputTokens);
}

/**
 * The window a lane's compaction is judged against (the view-change decision, the compaction run
 * before a payload, the background job): the effective window, or the caller's
 * `max_context_tokens` when smaller, since that cap is what the summary and the history must fit
 * in. Judged against the model's window alone, a lane the cap truncates is "under target".
 */
export function compactionWindow(
  limits: Pick<BudgetLimits, 'total' | 'maxOutputTokens' | 'maxContextTokens'>,
): number {
  const window = effectiveWindow(limits);
  return limits.maxContextTokens === null ? window : Math.min(window, limits.maxContextTokens);
}

export function withMargin(tokens: number, margin: number): number {
  return Math.ceil(tokens * margin);
}

/** Raw estimate → the figure compared with the window: × calibration factor × safety margin. */
export function windowMultiplier(limits: Pick<BudgetLimits, 'safetyMargin' | 'calibration'>): number {
  return (limits.calibration?.factor ?? 1) * limits.safetyMargin;
}

/** The state for a share of the effective window. */
export function budgetState(share: number, limits: Pick<BudgetLimits, 'compactTrigger' | 'hardBlock'>) {
  if (share >= limits.hardBlock) return 'blocked' as const;
  if (share >= limits.compactTrigger) return 'should_compact' as const;
  if (share >= COMPACT_SOON_SHARE) return 'compact_soon' as const;
  return 'ok' as const;
}

function addedTokens(c: BudgetComponents): number {
  return c.channel_context + c.summary + c.memories + c.conversation;
}

/**
 * Retrieved material is elastic: it shrinks to whatever room is left, so it never raises the
 * budget state. The state judges what must be sent (everything else).
 */
const ELASTIC_COMPONENTS: readonly BudgetComponent[] = ['memories'];

/** The share of the effective window that `tokens` (a raw estimate) takes with the margin applied. */
function windowShare(tokens: number, limits: BudgetLimits): number {
  const window = effectiveWindow(limits);
  return window === 0 ? Number.POSITIVE_INFINITY : withMargin(tokens, windowMultiplier(limits)) / window;
}

/** The raw estimate of what must be sent: every component but the elastic ones. */
export function mandatoryTokens(components: BudgetComponents): number {
  return budgetComponentNames
    .filter((name) => !ELASTIC_COMPONENTS.includes(name))
    .reduce((sum, name) => sum + components[name], 0);
}

export function budgetReport(components: BudgetComponents, limits: BudgetLimits): BudgetReport {
  const window = effectiveWindow(limits);
  const used = budgetComponentNames.reduce((sum, name) => sum + components[name], 0);
  const usedWithMargin = withMargin(used, windowMultiplier(limits));
  const share = window === 0 ? Number.POSITIVE_INFINITY : usedWithMargin / window;
  const mandatoryShare = windowShare(mandatoryTokens(components), limits);
  return {
    total: limits.total,
    max_output_tokens: limits.maxOutputTokens,
    effective_window: window,
    max_context_tokens: limits.maxContextTokens,
    components: { ...components },
    used,
    added: addedTokens(components),
    used_with_margin: usedWithMargin,
    remaining: window - usedWithMargin,
    percentage: Number.isFinite(share) ? Math.round(share * 10_000) / 10_000 : 1,
    state: budgetState(mandatoryShare, limits),
    safety_margin: limits.safetyMargin,
    calibration: { ...(limits.calibration ?? NO_CALIBRATION) },
  };
}

/**
 * Largest raw estimate the whole payload may reach and still stay below the hard block once the
 * calibration and the margin are applied: ceil(x × factor × margin) < hardBlock × window.
 */
export function windowCeiling(limits: BudgetLimits): number {
  const window = effectiveWindow(limits);
  const limit = limits.hardBlock * window;
  const multiplier = windowMultiplier(limits);
  let x = Math.floor(limit / multiplier);
  while (x > 0 && withMargin(x, multiplier) >= limit) x -= 1;
  return x;
}

/**
 * Room left for contextd's own material (summary, channel context, retrieved, history) once the
 * mandatory part (system, tools, the message) is placed: the smaller of the window ceiling and
 * the caller's cap. Negative when the mandatory part alone does not fit.
 */
export function roomForAdded(mandatory: number, limits: BudgetLimits): number {
  const byWindow = windowCeiling(limits) - mandatory;
  return limits.maxContextTokens === null ? byWindow : Math.min(byWindow, limits.maxContextTokens);
}
