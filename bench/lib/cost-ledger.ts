// A bot's input bill over a run of calls: each payload read as prompt blocks and billed by the
// product's cost model (src/modules/context/core/cost-model.ts), the cache state carried from call
// to call as the provider would carry it. Used by bench:cost for contextd's payloads and the naive
// bots' alike.
import { billRequest, type CacheState, type CostReport } from '../../src/modules/context/core/cost-model.js';
import { promptBlocks, type PromptPayload } from '../../src/modules/context/core/prompt-blocks.js';
import { createTokenEstimator, type TokenEstimator } from '../../src/shared/tokens.js';

export interface LedgerTotals {
  calls: number;
  input_tokens: number;
  cache_read: number;
  cache_write: number;
  uncached: number;
  billed_input: number;
  /** Calls by basis: how often the bill started cold, expired, missed or read. */
  basis: Record<CostReport['basis'], number>;
}

export interface Ledger {
  /** Bills one sent payload at `at` and keeps the cache state it leaves. */
  bill(payload: PromptPayload, at: Date): CostReport;
  totals(): LedgerTotals;
}

export function createLedger(defaultModel: string, estimator: TokenEstimator): Ledger {
  let state: CacheState | null = null;
  const totals: LedgerTotals = {
    calls: 0,
    input_tokens: 0,
    cache_read: 0,
    cache_write: 0,
    uncached: 0,
    billed_input: 0,
    basis: { cold: 0, expired: 0, miss: 0, warm: 0 },
  };
  return {
    bill(payload, at) {
      const billed = billRequest({
        blocks: promptBlocks(payload, estimator),
        model: payload.model ?? defaultModel,
        at: at.getTime(),
        state,
      });
      state = billed.state;
      const { cost } = billed;
      totals.calls += 1;
      totals.input_tokens += cost.input_tokens;
      totals.cache_read += cost.cache_read;
      totals.cache_write += cost.cache_write;
      totals.uncached += cost.uncached;
      totals.billed_input += cost.billed_input;
      totals.basis[cost.basis] += 1;
      return cost;
    },
    totals: () => structuredClone(totals),
  };
}

export function addTotals(a: LedgerTotals, b: LedgerTotals): LedgerTotals {
  const basis = { ...a.basis };
  for (const k of Object.keys(basis) as (keyof typeof basis)[]) basis[k] += b.basis[k];
  return {
    calls: a.calls + b.calls,
    input_tokens: a.input_tokens + b.input_tokens,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    uncached: a.uncached + b.uncached,
    billed_input: a.billed_input + b.billed_input,
    basis,
  };
}

/**
 * The project's estimator with text counts memoized: a naive bot re-counts its whole history on
 * every call. Counts are the estimator's own (a text block counts as its text, as in
 * createTokenEstimator), so bills do not change.
 */
export function benchEstimator(base: TokenEstimator = createTokenEstimator()): TokenEstimator {
  const known = new Map<string, number>();
  const text = (value: string) => {
    let tokens = known.get(value);
    if (tokens === undefined) known.set(value, (tokens = base.text(value)));
    return tokens;
  };
  const isText = (b: unknown): b is { type: 'text'; text: string } =>
    !!b &&
    typeof b === 'object' &&
    (b as { type?: unknown }).type === 'text' &&
    typeof (b as { text?: unknown }).text === 'string';
  return {
    text,
    content: (content) =>
      Array.isArray(content) && content.every(isText)
        ? content.reduce((sum, b) => sum + text(b.text), 0)
        : typeof content === 'string'
          ? text(content)
          : base.content(content),
  };
}
