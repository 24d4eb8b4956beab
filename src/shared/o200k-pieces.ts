// o200k's pre-tokenizer (gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX) on ASCII text, by hand: where the
// piece that starts at an index ends. A text's BPE count is the sum of its pieces' counts, and on
// ASCII text this walk finds them at a fraction of the Unicode regex's cost (no match objects).
//
// The regex's alternatives, first match wins, with each Unicode class cut to its ASCII members
// (\p{L}: A-Za-z, \p{Lu}: A-Z, \p{Ll}: a-z, \p{N}: 0-9; \p{Lt}, \p{Lm}, \p{Lo}, \p{M} have none):
//   1. [^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+ contraction?   2. [^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]* contraction?
//   3. \p{N}{1,3}   4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`   5. \s*[\r\n]+   6. \s+(?!\S)   7. \s+
// test/unit/token-estimators.test.ts checks the walk against the regex.

const UPPER = 0;
const LOWER = 1;
const DIGIT = 2;
const NEWLINE = 3;
/** White space other than \r and \n: space, \t, \v, \f. */
const SPACE = 4;
/** Anything else: not white space, a letter or a digit. */
const OTHER = 5;

const CLASS = new Uint8Array(128).map((_, c) =>
  c >= 0x41 && c <= 0x5a
    ? UPPER
    : c >= 0x61 && c <= 0x7a
      ? LOWER
      : c >= 0x30 && c <= 0x39
        ? DIGIT
        : c === 0x0a || c === 0x0d
          ? NEWLINE
          : c === 0x20 || (c >= 0x09 && c <= 0x0c)
            ? SPACE
            : OTHER,
);

const isLetter = (k: number) => k === UPPER || k === LOWER;

/**
 * Set by pieceEndWithin when its answer could depend on the text at or after its `limit` (a read
 * would have gone there): the caller finds that piece another way.
 */
let reachedLimit = false;

/** Class of the character at `i`, or -1 (and reachedLimit) at or past the limit `n`. */
function classBefore(text: string, i: number, n: number): number {
  if (i < n) return CLASS[text.charCodeAt(i)]!;
  reachedLimit = true;
  return -1;
}

/** End of a contraction ('s 'd 'm 't 'll 've 're, any case) at `i`, or `i` when none starts there. */
function contractionEnd(text: string, i: number, n: number): number {
  if (i >= n) {
    reachedLimit = true;
    return i;
  }
  if (text.charCodeAt(i) !== 0x27) return i;
  if (i + 1 >= n) {
    reachedLimit = true;
    return i;
  }
  const a = text.charCodeAt(i + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return i + 2;
  if (i + 2 >= n) reachedLimit = true;
  const b = i + 2 < n ? text.charCodeAt(i + 2) | 0x20 : 0;
  return (a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65) ? i + 3 : i;
}

/** End of the piece of ASCII `text` that starts at `start` (< text.length). */
export const asciiPieceEnd = (text: string, start: number): number =>
  pieceEndWithin(text, start, text.length);

/**
 * End of the piece that starts at `start` when the characters of [start, n) are ASCII, reading no
 * character at or after `n`; when it would have to, -1 (the piece may run on, or end otherwise,
 * past `n`). At n = text.length that never happens: the text's end is the piece's.
 */
export function pieceEndWithin(text: string, start: number, n: number): number {
  reachedLimit = false;
  const end = walkPiece(text, start, n);
  return reachedLimit && n < text.length ? -1 : end;
}

/** The walk itself (pieceEndWithin); reaching `n` sets reachedLimit. */
function walkPiece(text: string, start: number, n: number): number {
  const first = CLASS[text.charCodeAt(start)]!;
  const next = classBefore(text, start + 1, n);
  let i = start;
  // 1–2: upper-case letters then lower-case ones (one of the two runs may be empty), after at most
  // one character that is not a letter, a digit or a newline.
  if (isLetter(first) || ((first === SPACE || first === OTHER) && isLetter(next))) {
    if (!isLetter(first)) i += 1;
    while (classBefore(text, i, n) === UPPER) i += 1;
    while (classBefore(text, i, n) === LOWER) i += 1;
    return contractionEnd(text, i, n);
  }
  // 3: up to three digits.
  if (first === DIGIT) {
    i += 1;
    while (i < start + 3 && classBefore(text, i, n) === DIGIT) i += 1;
    return i;
  }
  // 4: punctuation, after at most one space, with the newlines and slashes that follow it.
  if (first === OTHER || (text.charCodeAt(start) === 0x20 && next === OTHER)) {
    i += 1;
    while (classBefore(text, i, n) === OTHER) i += 1;
    for (; i < n; i += 1) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d && c !== 0x2f) return i;
    }
    reachedLimit = true;
    return i;
  }
  // 5–7, a run of white space: through its last newline; else all of it at the end of the text, or
  // all but its last character before something else (that one starts the next piece), or the one
  // character it is.
  let lastNewline = -1;
  for (; ; i += 1) {
    const k = classBefore(text, i, n);
    if (k === NEWLINE) lastNewline = i;
    else if (k !== SPACE) break;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  return i === n || i - start === 1 ? i : i - 1;
}
