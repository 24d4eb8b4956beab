// Token counts of text that repeats across calls (system sections, rendered context), cached per
// estimator, so assembling the same stable material again costs no BPE.

import { LRUCache } from 'lru-cache';

import { contentComposesText, contentTokens, type TokenEstimator } from '../../../shared/tokens.js';

export const sumTokens = (items: readonly { tokens: number }[]) => items.reduce((s, i) => s + i.tokens, 0);

/**
 * Estimates of texts that repeat across calls (the guide, tool definitions, system sections,
 * retrieved rows, snapshot and thread blocks while their anchor is unchanged), memoized per
 * estimator in a bounded LRU: BPE counting is the largest pure cost of an assembly. The same
 * text always gets the same count, so memoizing changes no byte of any payload.
 */
const STABLE = new WeakMap<TokenEstimator, TokenEstimator>();
/**
 * The cache's heap, in bytes: each text counted as two bytes a character (V8 keeps a string in one
 * or two) plus the entry's own cost (map slot, LRU links, the number: ~180 bytes, measured). 8 MB
 * is several sessions' stable material; counted in characters alone, 400,000 short texts held 28 MB.
 */
const TEXT_CACHE_MAX_BYTES = 8 * 2 ** 20;
const ENTRY_OVERHEAD_BYTES = 180;
const entryBytes = (text: string) => 2 * text.length + ENTRY_OVERHEAD_BYTES;

/** The memoizing estimator of `estimator`: one per estimator, so what is keyed by it is kept too. */
export function stableEstimator(estimator: TokenEstimator): TokenEstimator {
  const known = STABLE.get(estimator);
  if (known) return known;
  const cache = new LRUCache<string, number>({
    maxSize: TEXT_CACHE_MAX_BYTES,
    sizeCalculation: (_value, key) => entryBytes(key),
  });
  const text = (value: string) => {
    const hit = cache.get(value);
    if (hit !== undefined) return hit;
    const tokens = estimator.text(value);
    if (entryBytes(value) <= TEXT_CACHE_MAX_BYTES / 16) cache.set(value, tokens);
    return tokens;
  };
  const stable: TokenEstimator = {
    // Content counted through the memo when the estimator's own content is its text summed (the
    // same numbers); otherwise as the estimator counts it.
    content: contentComposesText(estimator) ? (content) => contentTokens(content, text) : estimator.content,
    text,
  };
  STABLE.set(estimator, stable);
  return stable;
}
