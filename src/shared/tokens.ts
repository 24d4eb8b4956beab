// Token estimates, made once at write time and summed at assembly (docs/design.md §6.3). The default is
// a real BPE count (o200k) times a per-model factor: no offline tokenizer matches current Claude
// models, and chars/4 is badly off on JSON, CJK and code. Callers apply the safety margin where a
// limit is enforced.
import { countTokens, setMergeCacheSize } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countAsciiPiece } from './o200k-ascii-bpe.js';
import { asciiPieceEnd, pieceEndWithin } from './o200k-pieces.js';

/**
 * gpt-tokenizer memoizes the merges of words outside its vocabulary (ids, hashes, rare words), by
 * default 100,000 of them: ~27 MB of heap that fills slowly as varied text passes. 10,000 (~3 MB)
 * keeps the words that recur; the count is the same either way.
 */
const BPE_MERGE_CACHE_ENTRIES = 10_000;
setMergeCacheSize(BPE_MERGE_CACHE_ENTRIES);

export interface TokenEstimator {
  /** Estimated tokens of plain text. */
  text(text: string): number;
  /** Estimated tokens of Anthropic content (a string or content blocks). */
  content(content: unknown): number;
}

/** Claude tokenizers produce somewhat more tokens than o200k for the same text. */
export const DEFAULT_MODEL_FACTOR = 1.1;
/** Fixed overhead of one message (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Provider rule for images: width × height / 750 after downscaling, capped. */
const IMAGE_TOKEN_CAP = 1600;
const IMAGE_DEFAULT_TOKENS = 1600;
const DOCUMENT_PAGE_TOKENS = 1500;

/**
 * The provider downscales (aspect kept) an image whose long edge is over 1568 px or that would cost
 * over ~1,600 tokens (about 1.15–1.2 MP; its table prices 1092×1092 at ~1,590 tokens unscaled).
 */
const IMAGE_MAX_EDGE = 1568;
const IMAGE_MAX_PIXELS = IMAGE_TOKEN_CAP * 750;

export function imageTokens(width?: number, height?: number): number {
  if (!width || !height) return IMAGE_DEFAULT_TOKENS;
  const scale = Math.min(
    1,
    IMAGE_MAX_EDGE / Math.max(width, height),
    Math.sqrt(IMAGE_MAX_PIXELS / (width * height)),
  );
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  return Math.min(IMAGE_TOKEN_CAP, Math.ceil((w * h) / 750));
}

/** Single pre-tokens longer than this are counted in pieces (see bpeCount). */
const RUN_PIECE = 64;
/** What o200k's pre-tokenizer keeps as one piece: a run of letters, or of punctuation. */
const LONG_RUN = /[\p{L}\p{M}]{65,}|[^\s\p{L}\p{M}\p{N}]{65,}/gu;
const HAS_LONG_RUN = /[\p{L}\p{M}]{65}|[^\s\p{L}\p{M}\p{N}]{65}/u;

/** What one scan of a text tells bpeCount (textShape). */
const NON_ASCII = 1;
const MAY_HOLD_LONG_RUN = 2;

/**
 * One char-code scan: whether `value` holds a character outside ASCII, and whether it may hold a
 * LONG_RUN (the Unicode regex over a whole block costs more than half its BPE count). ASCII is
 * classed as the regex classes it (letters, digits, white space, the rest punctuation); any other
 * character extends both kinds of run, so a "no" is exact and a "yes" is settled by HAS_LONG_RUN.
 * (Compact JSON has no spaces: a scan for space-free runs alone would say "yes" to every block.)
 */
function textShape(value: string): number {
  let shape = 0;
  let letters = 0;
  let punctuation = 0;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) {
      shape |= NON_ASCII;
      letters += 1;
      punctuation += 1;
    } else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
      letters += 1;
      punctuation = 0;
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
      letters = 0;
      punctuation = 0;
    } else {
      punctuation += 1;
      letters = 0;
    }
    if (letters > RUN_PIECE || punctuation > RUN_PIECE) shape |= MAY_HOLD_LONG_RUN;
  }
  return shape;
}

/**
 * o200k's pre-tokenizer, gpt-tokenizer's own, sticky (a copy: its lastIndex is ours): the piece at
 * an index, next to characters outside ASCII. Every character starts some alternative, so the
 * pieces the global regex finds are contiguous and each starts where the one before ended.
 */
const PIECE_AT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'uy');

/**
 * BPE counts of pieces (pre-tokens), each the tokenizer's count of the piece alone: a text's count
 * is the sum of its pieces' (BPE never merges across them, and a piece alone is split into itself).
 * The pieces of chat text and rendered JSON recur (keys, punctuation, common words: 98–99% of a
 * context call's were seen in the calls before), so most cost one lookup in this small map instead
 * of the tokenizer's path for each. Pieces of up to 64 characters (longer ones are runs of white
 * space), emptied when full: ~4 MB at most.
 */
const PIECE_COUNTS = new Map<string, number>();
const PIECE_COUNTS_MAX = 20_000;

/**
 * Special tokens ("<|endoftext|>", "<|fim_prefix|>") are text here: a chat message may quote one,
 * and the tokenizer's default (refuse them: it throws) failed ingest and the context call with a 500.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const tokenizerCount = (text: string) => countTokens(text, AS_TEXT);

/**
 * Longer pieces are counted in RUN_PIECE slices. LONG_RUN splits the runs of letters and of
 * punctuation first; what is left that long is white space (`\s+`, `\s*[\r\n]+`), punctuation
 * with a tail of newlines and slashes, whose BPE is as quadratic
 * (200,000 spaces took ~30 s).
 */
const PIECE_CAP = 2 * RUN_PIECE;

function pieceCount(piece: string, ascii: boolean): number {
  const known = PIECE_COUNTS.get(piece);
  if (known !== undefined) return known;
  if (piece.length > PIECE_CAP) return slicedCount(piece);
  const count = (ascii ? countAsciiPiece(piece) : null) ?? tokenizerCount(piece);
  if (piece.length <= RUN_PIECE) {
    if (PIECE_COUNTS.size >= PIECE_COUNTS_MAX) PIECE_COUNTS.clear();
    PIECE_COUNTS.set(piece, count);
  }
  return count;
}

/** The tokenizer's counts of `run` in slices of RUN_PIECE characters (never inside a surrogate pair). */
function slicedCount(run: string): number {
  let total = 0;
  for (let i = 0; i < run.length;) {
    let end = Math.min(run.length, i + RUN_PIECE);
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    total += tokenizerCount(run.slice(i, end));
    i = end;
  }
  return total;
}

/** o200k count of a text with no LONG_RUN, by its pieces. */
function countPieces(value: string, ascii: boolean): number {
  let total = 0;
  if (ascii) {
    for (let start = 0; start < value.length;) {
      const end = asciiPieceEnd(value, start);
      // One ASCII character is one token (o200k has one for every byte): no slice, no lookup.
      total += end === start + 1 ? 1 : pieceCount(value.slice(start, end), true);
      start = end;
    }
    return total;
  }
  // Text outside ASCII: the walk still finds every piece whose reads stay short of the next
  // character outside ASCII (most of a mostly-ASCII text, such as chat with an ellipsis); the
  // regex, from the same boundary, finds the others.
  let nextOther = nonAsciiFrom(value, 0);
  for (let start = 0; start < value.length;) {
    if (start > nextOther) nextOther = nonAsciiFrom(value, start);
    const walked = start < nextOther ? pieceEndWithin(value, start, nextOther) : -1;
    let end = walked;
    if (end < 0) {
      PIECE_AT.lastIndex = start;
      end = start + PIECE_AT.exec(value)![0].length;
    }
    // A walked piece is ASCII (a regex piece may be too, but is not known to be).
    total += end === start + 1 && nextOther > start ? 1 : pieceCount(value.slice(start, end), walked >= 0);
    start = end;
  }
  return total;
}

/** Index of the first character outside ASCII at or after `from`, or the text's length. */
function nonAsciiFrom(value: string, from: number): number {
  for (let i = from; i < value.length; i += 1) if (value.charCodeAt(i) >= 0x80) return i;
  return value.length;
}

/** o200k count of a text with no LONG_RUN, by its pieces. */
const countWhole = (value: string, shape: number) => countPieces(value, (shape & NON_ASCII) === 0);

/**
 * o200k count that stays linear: BPE over one pre-token is quadratic in its length (200,000 'x'
 * take ~40 s; a long CJK paragraph is one pre-token too), so letter or punctuation runs of more
 * than RUN_PIECE characters are counted in RUN_PIECE pieces. Merges across a piece boundary are
 * lost: a few percent on such runs (3% on 2,000 '='), nothing elsewhere (bench/tokens.ts).
 */
export function bpeCount(value: string): number {
  const shape = textShape(value);
  if ((shape & MAY_HOLD_LONG_RUN) === 0 || !HAS_LONG_RUN.test(value)) return countWhole(value, shape);
  let total = 0;
  let last = 0;
  for (const match of value.matchAll(LONG_RUN)) {
    if (match.index > last) total += countPieces(value.slice(last, match.index), false);
    total += slicedCount(match[0]);
    last = match.index + match[0].length;
  }
  if (last < value.length) total += countPieces(value.slice(last), false);
  return total;
}

/**
 * Estimated tokens of Anthropic content (a string or content blocks) with `text` counting each text
 * in it: what createTokenEstimator's `content` is over its own `text`.
 */
export function contentTokens(content: unknown, text: (value: string) => number): number {
  const block = (b: unknown): number => {
    if (typeof b === 'string') return text(b);
    if (!b || typeof b !== 'object') return 0;
    const value = b as Record<string, unknown>;
    switch (value.type) {
      case 'text':
        return text(String(value.text ?? ''));
      case 'thinking':
      case 'redacted_thinking':
        // Stored, never sent.
        return 0;
      case 'image': {
        const meta = value as { width?: number; height?: number };
        return imageTokens(meta.width, meta.height);
      }
      case 'document':
        return DOCUMENT_PAGE_TOKENS;
      case 'tool_use':
        return text(String(value.name ?? '')) + text(JSON.stringify(value.input ?? {})) + 8;
      case 'tool_result': {
        const inner = value.content;
        return (
          8 + (typeof inner === 'string' ? text(inner) : Array.isArray(inner) ? sum(inner.map(block)) : 0)
        );
      }
      default:
        return text(JSON.stringify(value));
    }
  };
  return Array.isArray(content) ? sum(content.map(block)) : block(content);
}

/** Estimators whose `content` is contentTokens over their own `text` (createTokenEstimator's). */
const TEXT_COMPOSED = new WeakSet<TokenEstimator>();

/**
 * Whether `estimator.content(c)` is `contentTokens(c, estimator.text)`: a wrapper that memoizes
 * `text` may then count content through its memo and get the same numbers.
 */
export const contentComposesText = (estimator: TokenEstimator) => TEXT_COMPOSED.has(estimator);

export function createTokenEstimator(factor = DEFAULT_MODEL_FACTOR): TokenEstimator {
  const text = (value: string) => (value.length === 0 ? 0 : Math.ceil(bpeCount(value) * factor));
  const estimator: TokenEstimator = { text, content: (content) => contentTokens(content, text) };
  TEXT_COMPOSED.add(estimator);
  return estimator;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
