// Caller-supplied text never becomes a metric label as is: model names are cut to a known family
// and version (else `other`), so a caller cannot create unbounded Prometheus series.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCalibrationService } from '../../src/modules/sessions/calibration.service.js';
import { modelLabel } from '../../src/modules/sessions/core/model-label.js';

const usage = { input_tokens: 10, cache_read_input_tokens: 5 };

describe('model label', () => {
  it.each([
    ['claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5'],
    ['Claude-Opus-4', 'claude-opus-4'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['openai/gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4.1-nano', 'gpt-4.1-nano'],
    ['o3-mini', 'o3-mini'],
    ['gemini-2.5-flash-lite', 'gemini-2.5-flash-lite'],
    ['claude-sonnet-45', 'other'],
    ['my-fine-tune', 'other'],
    ['unknown', 'other'],
    ['', 'other'],
  ])('%s → %s', (model, label) => {
    expect(modelLabel(model)).toBe(label);
  });

  it('1,000 distinct model strings make a bounded number of series', async () => {
    const registry = new Registry();
    const calibration = createCalibrationService({ registry });
    for (let i = 0; i < 1000; i++) {
      const model = [
        `claude-sonnet-4-5-${i}`,
        `tenant-finetune-${i}`,
        `gpt-4o-${i}`,
        `${i}-claude-opus-4`,
        `x`.repeat(1 + (i % 200)),
      ][i % 5]!;
      calibration.observe({ tenantId: 'acme', model, usage, estimatedInput: 12 });
    }
    const text = await registry.metrics();
    const series = (name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));
    expect(series('contextd_usage_reported_input_tokens_total')).toHaveLength(3);
    expect(series('contextd_usage_estimated_input_tokens_total')).toHaveLength(3);
    expect(series('contextd_usage_cache_read_tokens_total')).toHaveLength(3);
    expect(series('contextd_usage_estimate_ratio_count')).toHaveLength(3);
    expect(text).toContain('contextd_usage_reported_input_tokens_total{tenant="acme",model="other"} 9000');
  });
});
