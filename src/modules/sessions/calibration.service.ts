// Usage calibration metrics (docs/design.md §6.3): reported vs estimated input tokens and cache reads,
// per tenant and model family, as Prometheus counters (ratios are computed in the query:
// reported/estimated, cache_read/reported). The per-session sums live in sessions.calibration.
import { Counter, Histogram, type Registry } from 'prom-client';
import { reportedInputTokens, type ReportedUsage } from './core/calibration.js';
import { modelLabel } from './core/model-label.js';

export function createCalibrationService(deps: { registry: Registry }) {
  const registers = [deps.registry];
  const labelNames = ['tenant', 'model'] as const;
  const reported = new Counter({
    name: 'contextd_usage_reported_input_tokens_total',
    help: 'Input tokens the provider reported for assistant turns (uncached + cache write + cache read)',
    labelNames,
    registers,
  });
  const estimated = new Counter({
    name: 'contextd_usage_estimated_input_tokens_total',
    help: 'Our estimate of the input of the same calls (the session transcript tokens before the turn)',
    labelNames,
    registers,
  });
  const cacheRead = new Counter({
    name: 'contextd_usage_cache_read_tokens_total',
    help: 'Input tokens the provider read from its prompt cache',
    labelNames,
    registers,
  });
  const ratio = new Histogram({
    name: 'contextd_usage_estimate_ratio',
    help: 'Per call: reported ÷ estimated input tokens',
    labelNames: ['model'] as const,
    buckets: [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10],
    registers,
  });
  return {
    /** Counts one reported call; called after the turn that carried it is committed. */
    observe({
      tenantId,
      model,
      usage,
      estimatedInput,
    }: {
      tenantId: string;
      model: string;
      usage: ReportedUsage;
      estimatedInput: number;
    }) {
      // The session keeps the exact model name; the series keep its family (bounded, see model-label).
      const labels = { tenant: tenantId, model: modelLabel(model) };
      const input = reportedInputTokens(usage);
      reported.inc(labels, input);
      estimated.inc(labels, estimatedInput);
      cacheRead.inc(labels, usage.cache_read_input_tokens ?? 0);
      if (estimatedInput > 0) ratio.observe({ model: labels.model }, input / estimatedInput);
    },
  };
}

export type CalibrationService = ReturnType<typeof createCalibrationService>;
