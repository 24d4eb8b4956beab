// What rendered JSON of stored messages costs, without counting it again (no BPE on the
// request path): the texts' estimates were made once at write time and are summed; the rest of the
// JSON (keys, ids, times, punctuation, escapes) is estimated from its length.

/** Stored texts shown inside a rendered block: their characters and their summed estimate. */
export interface TextCost {
  chars: number;
  tokens: number;
}

/**
 * Characters of JSON structure per estimated token (the model factor included), fitted on rendered
 * snapshots and threads of real channel traffic (bench/snapshot-size.ts prints the error): ids,
 * ISO times and punctuation tokenize densely, so well under prose's ~4.
 */
export const STRUCTURE_CHARS_PER_TOKEN = 2.7;

/**
 * A stored text's estimate for the part of it shown (whole, a snippet or a cut): its share of the
 * characters, rounded up.
 */
export function shownTokens(stored: { text: string; tokenEstimate: number }, shown: string): number {
  if (shown === stored.text || stored.text.length === 0) return shown.length === 0 ? 0 : stored.tokenEstimate;
  return Math.ceil((stored.tokenEstimate * shown.length) / stored.text.length);
}

export function addTextCost(cost: TextCost, shown: string, tokens: number): TextCost {
  cost.chars += shown.length;
  cost.tokens += tokens;
  return cost;
}

/** Estimate of `renderedChars` of JSON whose stored texts are `texts`. */
export const renderedTokens = (renderedChars: number, texts: TextCost) =>
  texts.tokens + Math.ceil(Math.max(0, renderedChars - texts.chars) / STRUCTURE_CHARS_PER_TOKEN);
