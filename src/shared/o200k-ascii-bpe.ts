// o200k's byte-pair merge of one ASCII piece, on the string itself. gpt-tokenizer merges bytes:
// each candidate pair is checked for valid UTF-8, decoded by a TextDecoder and looked up by that
// string, ~3 lookups per character of a word it has not seen. On ASCII a byte is its character,
// so the same merge over substrings looks up the same keys in the same map without the decoding
// (the count of a word the vocabulary lacks: ~4× less CPU). test/unit/token-estimators.test.ts
// holds its counts equal to the tokenizer's.
import encoding from 'gpt-tokenizer/encoding/o200k_base';

/**
 * The tokenizer's rank of each token that is a string (every ASCII one is), read from its
 * instance: the package exposes no rank lookup. Undefined if a version stops holding it there
 * (countAsciiPiece then answers null and the caller counts with the tokenizer).
 */
const RANKS = (
  encoding as unknown as { bytePairEncodingCoreProcessor?: { bytePairStringRankEncoder?: unknown } }
).bytePairEncodingCoreProcessor?.bytePairStringRankEncoder;
const ranks = RANKS instanceof Map ? (RANKS as Map<string, number>) : undefined;

/** Whether a rank table was found (tests check it is, so the fast path is the one measured). */
export const asciiBpeAvailable = ranks !== undefined;

const rankOf = (piece: string, start: number, end: number) =>
  ranks!.get(piece.slice(start, end)) ?? Number.POSITIVE_INFINITY;

/**
 * Ranks of the 128 × 128 two-character ASCII strings (Infinity: not a token), read once: the
 * first round of a merge looks up every adjacent pair, a third or more of a word's lookups.
 */
const PAIR_RANKS = new Float64Array(128 * 128).map((_, i) =>
  ranks ? (ranks.get(String.fromCharCode(i >> 7, i & 127)) ?? Number.POSITIVE_INFINITY) : 0,
);
/** A pair outside ASCII (not this module's input) is looked up as a string: never a wrong table cell. */
function pairRankAt(piece: string, i: number): number {
  const a = piece.charCodeAt(i);
  const b = piece.charCodeAt(i + 1);
  return (a | b) < 128 ? PAIR_RANKS[(a << 7) | b]! : rankOf(piece, i, i + 2);
}

/**
 * Tokens of one ASCII pre-token (a piece o200k's pre-tokenizer keeps whole), as the tokenizer's
 * merge finds them: repeatedly join the adjacent pair of lowest rank (the leftmost among equals)
 * until no pair is a token. Null when no rank table was found.
 */
export function countAsciiPiece(piece: string): number | null {
  if (!ranks) return null;
  if (piece.length <= 1 || ranks.has(piece)) return 1;
  // starts[i]: where part i begins (a last entry marks the end); pairRanks[i]: rank of parts i and i+1.
  const starts: number[] = [];
  const pairRanks: number[] = [];
  for (let i = 0; i <= piece.length; i += 1) {
    starts.push(i);
    pairRanks.push(i + 2 <= piece.length ? pairRankAt(piece, i) : Number.POSITIVE_INFINITY);
  }
  while (starts.length > 2) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let i = 0; i < pairRanks.length - 1; i += 1) {
      if (pairRanks[i]! < lowest) {
        lowest = pairRanks[i]!;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    pairRanks[at] =
      at + 2 < starts.length ? rankOf(piece, starts[at]!, starts[at + 2]!) : Number.POSITIVE_INFINITY;
    if (at > 0) pairRanks[at - 1] = rankOf(piece, starts[at - 1]!, starts[at + 1]!);
  }
  return starts.length - 1;
}
