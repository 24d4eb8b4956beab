// What one Messages request costs in input under the provider's prompt-caching rules
// (docs/cost-model.md): which prefix it reads from the cache, which prefixes it writes, what is
// billed as plain input, and the cache state the next request of the same conversation meets.
// Pure: the prompt arrives as blocks already hashed and counted (prompt-blocks.ts), time as a number.
import { MAX_BREAKPOINTS } from './cache-breakpoints.js';

export type CacheTtl = '5m' | '1h';

/** One block of the prompt in provider order: tools, then system, then messages' content blocks. */
export interface PromptBlock {
  /** Hash of the prompt from its start up to and including this block (a prefix hash). */
  prefix: string;
  /** Estimated tokens of this block alone. */
  tokens: number;
  /** Set when the block carries `cache_control`: the breakpoint's lifetime. */
  breakpoint?: CacheTtl;
}

/** A prefix the provider holds in its cache: what a later request can read. */
interface CacheEntry {
  prefix: string;
  /** Tokens of the whole prefix (from the start of the prompt). */
  tokens: number;
  /** Epoch milliseconds after which the entry is gone unless used again. */
  expires_at: number;
  ttl: CacheTtl;
}

/** What the cache holds for one conversation: compact enough to keep on a session row. */
export interface CacheState {
  entries: CacheEntry[];
}

/**
 * cold: no request came before (everything is written or uncached); expired: the earlier entries
 * are all past their lifetime; miss: live entries, none of them a prefix of this prompt; warm: a
 * prefix was read.
 */
type CostBasis = 'cold' | 'expired' | 'miss' | 'warm';

export interface CostReport {
  cache_read: number;
  /** Tokens written to the cache, both lifetimes. */
  cache_write: number;
  cache_write_5m: number;
  cache_write_1h: number;
  /** Tokens billed at the base input price (after the last written breakpoint, or never cacheable). */
  uncached: number;
  /** All input tokens of the request: cache_read + cache_write + uncached. */
  input_tokens: number;
  /** The bill in base-input tokens: reads at 0.1, 5-minute writes at 1.25, 1-hour writes at 2. */
  billed_input: number;
  basis: CostBasis;
}

/** Block boundaries before a breakpoint where the provider still looks for a cached prefix. */
const CACHE_LOOKBACK_BLOCKS = 20;
const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };
/** Entries kept in the state: this request's breakpoints (≤ 4) and the few live ones before. */
const MAX_CACHE_ENTRIES = 8;

/**
 * Shortest prefix the provider caches for a model, per its documentation; a shorter breakpoint
 * prefix is processed without caching. Families not listed: 1,024 for Sonnet and Opus, 4,096 for
 * Haiku (the latest documented Haiku).
 */
const MIN_CACHEABLE: readonly [RegExp, number][] = [
  [/^claude-opus-4-[56]/, 4096],
  [/^claude-haiku-4-5/, 4096],
  [/^claude-sonnet-4-6/, 2048],
  [/^claude-3-5-haiku|^claude-3-haiku/, 2048],
  [/haiku/, 4096],
];
const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

export function minCacheableTokens(model: string): number {
  const name = model
    .trim()
    .toLowerCase()
    .replace(/^.*[/.](?=claude-)/, '');
  for (const [pattern, tokens] of MIN_CACHEABLE) if (pattern.test(name)) return tokens;
  return DEFAULT_MIN_CACHEABLE_TOKENS;
}

interface BillRequestInput {
  blocks: readonly PromptBlock[];
  model: string;
  /** Epoch milliseconds of the request. */
  at: number;
  /** The state the previous request left; null for a conversation's first request. */
  state: CacheState | null;
  /** Overrides the model's documented minimum (tests, other providers' models). */
  minCacheable?: number;
}

export interface BilledRequest {
  cost: CostReport;
  state: CacheState;
}

/**
 * Bills one request. Reads: the longest live cached prefix that ends at a block boundary at most
 * CACHE_LOOKBACK_BLOCKS before one of the breakpoints. Writes: every breakpoint past the read whose
 * prefix reaches the model's minimum; tokens up to the last 1-hour one are 1-hour writes, tokens
 * from there to the last written breakpoint 5-minute writes (the provider's rule for mixed
 * lifetimes), the rest is uncached. Breakpoints beyond the fourth are ignored, as the provider
 * would refuse them.
 */
export function billRequest(input: BillRequestInput): BilledRequest {
  const { blocks, at } = input;
  const minimum = input.minCacheable ?? minCacheableTokens(input.model);
  const cumulative: number[] = [];
  let running = 0;
  for (const block of blocks) cumulative.push((running += Math.max(0, block.tokens)));
  const total = running;

  const previous = input.state?.entries ?? [];
  const live = new Map(previous.filter((e) => e.expires_at > at).map((e) => [e.prefix, e]));
  const breakpoints = blocks
    .map((block, index) => ({ index, ttl: block.breakpoint }))
    .filter((b): b is { index: number; ttl: CacheTtl } => b.ttl !== undefined)
    .slice(0, MAX_BREAKPOINTS);

  // The read: the longest live prefix within the lookback of any breakpoint.
  let readEnd = -1;
  for (const { index } of breakpoints) {
    for (let j = index; j >= Math.max(0, index - CACHE_LOOKBACK_BLOCKS); j -= 1) {
      if (j <= readEnd) break;
      if (live.has(blocks[j]!.prefix)) {
        readEnd = j;
        break;
      }
    }
  }
  const read = readEnd >= 0 ? cumulative[readEnd]! : 0;

  const written = breakpoints.filter((b) => b.index > readEnd && cumulative[b.index]! >= minimum);
  const lastWrite = written.at(-1);
  const lastLongWrite = written.filter((b) => b.ttl === '1h').at(-1);
  const writeEnd = lastWrite ? cumulative[lastWrite.index]! : read;
  const longEnd = lastLongWrite ? cumulative[lastLongWrite.index]! : read;
  const write1h = longEnd - read;
  const write5m = writeEnd - longEnd;
  const uncached = total - writeEnd;

  const cost: CostReport = {
    cache_read: read,
    cache_write: write1h + write5m,
    cache_write_5m: write5m,
    cache_write_1h: write1h,
    uncached,
    input_tokens: total,
    billed_input: billedInput({ read, write5m, write1h, uncached }),
    basis: basisOf(input.state, live.size, read),
  };
  return { cost, state: nextState({ blocks, at, live, readEnd, written }) };
}

/** In base-input tokens, computed in tenths so that the result is exact to one decimal. */
/** Reads at 0.1×, 5-minute writes at 1.25×, 1-hour writes at 2×, the rest at 1× (in tenths: exact). */
function billedInput(t: { read: number; write5m: number; write1h: number; uncached: number }): number {
  return (t.read + 12.5 * t.write5m + 20 * t.write1h + 10 * t.uncached) / 10;
}

function basisOf(state: CacheState | null, liveEntries: number, read: number): CostBasis {
  if (!state || state.entries.length === 0) return 'cold';
  if (read > 0) return 'warm';
  return liveEntries === 0 ? 'expired' : 'miss';
}

/**
 * Entries after the request: what it wrote, what it read (its lifetime restarts; so does every live
 * entry that is a prefix of the read one, the provider having used it), then the other live
 * entries, newest first, up to MAX_CACHE_ENTRIES.
 */
function nextState(args: {
  blocks: readonly PromptBlock[];
  at: number;
  live: Map<string, CacheEntry>;
  readEnd: number;
  written: { index: number; ttl: CacheTtl }[];
}): CacheState {
  const { blocks, at, live, readEnd, written } = args;
  const touched = new Map<string, CacheEntry>();
  let tokens = 0;
  blocks.forEach((block, index) => {
    tokens += Math.max(0, block.tokens);
    const entry = index <= readEnd ? live.get(block.prefix) : undefined;
    if (entry) touched.set(block.prefix, { ...entry, expires_at: at + TTL_MS[entry.ttl] });
    const write = written.find((w) => w.index === index);
    if (write)
      touched.set(block.prefix, {
        prefix: block.prefix,
        tokens,
        expires_at: at + TTL_MS[write.ttl],
        ttl: write.ttl,
      });
  });
  const untouched = [...live.values()]
    .filter((e) => !touched.has(e.prefix))
    .sort((a, b) => b.expires_at - a.expires_at);
  // Longest first: a conversation grows, so its next request reads the longest prefix. (Kept in
  // block order, a long conversation's oldest prefixes, all renewed by every read, would push out
  // what this request wrote, and its next request would find only an old prefix.)
  const used = [...touched.values()].sort((a, b) => b.tokens - a.tokens);
  return { entries: [...used, ...untouched].slice(0, MAX_CACHE_ENTRIES) };
}

/**
 * Whether the provider holds nothing of the conversation at `at`: no call yet, or every entry
 * past its lifetime. A change of the prompt's prefix then costs no cache read.
 */
export function cacheCold(state: CacheState | null, at: number): boolean {
  return !state || !state.entries.some((entry) => entry.expires_at > at);
}
