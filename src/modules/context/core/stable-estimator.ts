// Token counts of text that repeats across calls (system sections, rendered context), cached per
// estimator, so assembling the same stable material again costs no BPE.

import { contentComposesText, contentTokens, type TokenEstimator } from '../../../shared/tokens.js';

export const sumTokens = (items: readonly { tokens: number }[]) => items.reduce((s, i) => s + i.tokens, 0);

/**
 * Estimates of texts that repeat across calls (the guide, tool definitions, system sections,
 * retrieved rows, snapshot and thread blocks while their anchor is unchanged), memoized per
 * estimator in a bounded cache: BPE counting is the largest pure cost of an assembly. The same
 * text always gets the same count, so memoizing changes no byte of any payload.
 */
const STABLE = new WeakMap<TokenEstimator, TokenEstimator>();
/**
 * The cache's heap, in bytes: each text counted as two bytes a character (V8 keeps a string in one
 * or two) plus the entry's own cost (~180 bytes, measured for an LRU entry; a map entry costs less).
 * 8 MB is several sessions' stable material; counted in characters alone, 400,000 short texts held
 * 28 MB.
 */
const TEXT_CACHE_MAX_BYTES = 8 * 2 ** 20;
const ENTRY_OVERHEAD_BYTES = 180;
const entryBytes = (text: string) => 2 * text.length + ENTRY_OVERHEAD_BYTES;
/** Each of the cache's two generations holds half of it. */
const GENERATION_BYTES = TEXT_CACHE_MAX_BYTES / 2;

/**
 * The memoizing estimator of `estimator`: one per estimator, so what is keyed by it is kept too.
 * Two generations of plain maps (a map lookup is a fraction of an LRU's, and a call looks up every
 * block of its history): when the newer is full it becomes the older (the one before is dropped),
 * and a hit in the older moves to the newer, so what every call counts stays while each call's
 * new texts pass through.
 */
export function stableEstimator(estimator: TokenEstimator): TokenEstimator {
  const known = STABLE.get(estimator);
  if (known) return known;
  let newer = new Map<string, number>();
  let older = new Map<string, number>();
  let newerBytes = 0;
  const text = (value: string) => {
    const hit = newer.get(value);
    if (hit !== undefined) return hit;
    const tokens = older.get(value) ?? estimator.text(value);
    const bytes = entryBytes(value);
    if (bytes <= GENERATION_BYTES / 8) {
      if (newerBytes + bytes > GENERATION_BYTES) {
        older = newer;
        newer = new Map();
        newerBytes = 0;
      }
      newer.set(value, tokens);
      newerBytes += bytes;
    }
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
