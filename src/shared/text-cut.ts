// Deterministic text cutting at grapheme boundaries: a cut never splits a surrogate pair, a
// combining sequence, an emoji ZWJ sequence or a flag, whatever the script.
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export const ELLIPSIS = '…';

/** The first `max` graphemes of `text` and whether anything was left out. */
export function takeGraphemes(text: string, max: number): { head: string; cut: boolean } {
  if (max <= 0) return { head: '', cut: text.length > 0 };
  // Fewer code units than max graphemes: nothing can be cut.
  if (text.length <= max) return { head: text, cut: false };
  // Below U+0300 (where combining marks start) every code unit but a CR before LF is a grapheme
  // of its own: the common case needs no segmenter.
  if (simplePrefix(text, max + 1)) return { head: text.slice(0, max), cut: true };
  let end = 0;
  let count = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (count === max) return { head: text.slice(0, end), cut: true };
    end += segment.length;
    count += 1;
  }
  return { head: text, cut: false };
}

function simplePrefix(text: string, length: number): boolean {
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0x300 || c === 13) return false;
  }
  return true;
}

/** Grapheme end offsets (code units) of `text`, for searching a cut point. */
function graphemeEnds(text: string): number[] {
  const ends: number[] = [];
  let end = 0;
  for (const { segment } of segmenter.segment(text)) {
    end += segment.length;
    ends.push(end);
  }
  return ends;
}

/** Whitespace runs (newlines included) become one space; ends are trimmed. */
export const collapseWhitespace = (text: string) =>
  collapsed(text) ? text : text.replace(/\s+/gu, ' ').trim();

/**
 * Whether `text` is already collapsed (a char-code scan, where the Unicode regex costs several
 * times more): no whitespace but single inner spaces. Any character from U+0080 up that \s could
 * match sends it to the regex.
 */
function collapsed(text: string): boolean {
  let previousSpace = true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (previousSpace) return false;
      previousSpace = true;
    } else if (c <= 13 ? c >= 9 : c >= 0x80 && WIDE_SPACE.test(text[i]!)) {
      return false;
    } else previousSpace = false;
  }
  return !previousSpace || text.length === 0;
}

const WIDE_SPACE = /\s/u;

/** A snippet of at most `max` graphemes of the collapsed text, "…" appended when cut. */
export function snippet(text: string, max: number): string {
  const { head, cut } = takeGraphemes(collapseWhitespace(text), max);
  return cut ? `${head.trimEnd()}${ELLIPSIS}` : head;
}

/**
 * The longest grapheme-aligned prefix p of `text` with cost(p + "…") ≤ budget (binary search, so
 * O(log n) cost calls), or null when not even one grapheme fits.
 */
export function cutToBudget(text: string, budget: number, cost: (s: string) => number): string | null {
  const ends = graphemeEnds(text);
  let lo = 0;
  let hi = ends.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cost(text.slice(0, ends[mid]) + ELLIPSIS) <= budget) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best < 0 ? null : text.slice(0, ends[best]).trimEnd() + ELLIPSIS;
}
