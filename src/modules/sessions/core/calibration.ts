// Usage calibration (docs/design.md §6.3): per session and model, how far our input estimates are from
// what the provider reported, and how much of the input was read from the prompt cache. Pure.
import type { UsageCalibration } from '../../../db/schema.js';

export interface ReportedUsage {
  input_tokens: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** All input tokens the provider processed for the call (uncached + cache write + cache read). */
export function reportedInputTokens(usage: ReportedUsage): number {
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** Adds one call's reported usage and our estimate of its input to the per-model sums. */
export function addUsage(
  calibration: UsageCalibration,
  model: string,
  usage: ReportedUsage,
  estimatedInput: number,
): UsageCalibration {
  const previous = calibration.models[model] ?? {
    reported_input: 0,
    estimated_input: 0,
    cache_read: 0,
    cache_write: 0,
    calls: 0,
  };
  return {
    models: {
      ...calibration.models,
      [model]: {
        reported_input: previous.reported_input + reportedInputTokens(usage),
        estimated_input: previous.estimated_input + estimatedInput,
        cache_read: previous.cache_read + (usage.cache_read_input_tokens ?? 0),
        cache_write: previous.cache_write + (usage.cache_creation_input_tokens ?? 0),
        calls: previous.calls + 1,
      },
    },
  };
}

interface CalibrationView {
  /** Reported ÷ estimated input tokens; null until an estimate above zero exists. */
  ratio: number | null;
  /** Cache-read share of the reported input tokens; null until input was reported. */
  cache_read_share: number | null;
  calls: number;
}

/** The public view: per model, the ratio to apply to estimates and the cache-read share. */
export function calibrationView(calibration: UsageCalibration): Record<string, CalibrationView> {
  const view: Record<string, CalibrationView> = {};
  for (const model of Object.keys(calibration.models).sort()) {
    const m = calibration.models[model]!;
    view[model] = {
      ratio: m.estimated_input > 0 ? round(m.reported_input / m.estimated_input) : null,
      cache_read_share: m.reported_input > 0 ? round(m.cache_read / m.reported_input) : null,
      calls: m.calls,
    };
  }
  return view;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** Reported calls of a model a session needs before its ratio is applied to the budget. */
const CALIBRATION_MIN_CALLS = 3;
/** The applied factor is clamped to this range: a ratio outside it says more about the caller. */
const CALIBRATION_FACTOR_MIN = 0.5;
const CALIBRATION_FACTOR_MAX = 2;

export interface BudgetCalibration {
  /** What the raw estimate is multiplied by where the window is enforced (1: not applied). */
  factor: number;
  /** The session's reported ÷ estimated input ratio for the model (unclamped); null before reports. */
  ratio: number | null;
  /** Reported calls of the model behind the ratio. */
  calls: number;
}

export const NO_CALIBRATION: BudgetCalibration = { factor: 1, ratio: null, calls: 0 };

/**
 * The calibration the budget applies for `model`: the session's ratio once at least
 * CALIBRATION_MIN_CALLS calls were reported, clamped to [CALIBRATION_FACTOR_MIN,
 * CALIBRATION_FACTOR_MAX]; factor 1 before that. Rounded like the public view, so it is stable.
 */
export function budgetCalibration(calibration: UsageCalibration, model: string): BudgetCalibration {
  const m = calibration.models[model];
  if (!m) return NO_CALIBRATION;
  const ratio = m.estimated_input > 0 ? round(m.reported_input / m.estimated_input) : null;
  const factor =
    ratio === null || m.calls < CALIBRATION_MIN_CALLS
      ? 1
      : Math.min(CALIBRATION_FACTOR_MAX, Math.max(CALIBRATION_FACTOR_MIN, ratio));
  return { factor, ratio, calls: m.calls };
}
