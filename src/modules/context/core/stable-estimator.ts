// Token counts of text that repeats across calls (system sections, rendered context), cached per
// estimator, so assembling the same stable material again costs no BPE.

import { LRUCache } from 'lru-cache';

import { type TokenEstimator } from '../../../shared/tokens.js';

export const sumTokens = (items: readonly { tokens: number }[]) => items.reduce((s, i) => s + i.tokens, 0);

/**
 * Estimates of texts that repeat across calls (the guide, tool definitions, system sections,
 * retrieved rows, snapshot and thread blocks while their anchor is unchanged), memoized per
 * estimator in a bounded LRU: BPE counting is the largest pure cost of an assembly. The same
 * text always gets the same count, so memoizing changes no byte of any payload.
 */
const TEXT_CACHE = new WeakMap<TokenEstimator, LRUCache<string, number>>();
const TEXT_CACHE_MAX_CHARS = 16_000_000;

export function stableEstimator(estimator: TokenEstimator): TokenEstimator {
  let memo = TEXT_CACHE.get(estimator);
  if (!memo) {
    memo = new LRUCache<string, number>({
      maxSize: TEXT_CACHE_MAX_CHARS,
      sizeCalculation: (_value, key) => Math.max(1, key.length),
    });
    TEXT_CACHE.set(estimator, memo);
  }
  const cache = memo;
  return {
    content: estimator.content,
    text: (value) => {
      const hit = cache.get(value);
      if (hit !== undefined) return hit;
      const tokens = estimator.text(value);
      if (value.length <= TEXT_CACHE_MAX_CHARS / 16) cache.set(value, tokens);
      return tokens;
    },
  };
}
