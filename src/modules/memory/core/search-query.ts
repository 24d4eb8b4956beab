// Query parsing for full-text search: user text → safe terms → tsquery literals. Nothing the user
// types reaches the tsquery parser unquoted, so operators, quotes and backslashes cannot break SQL.

/** At most this many distinct lexemes of a query are searched (the rest are ignored)… */
export const MAX_QUERY_TERMS = 24;
/**
 * …taken from at most this many distinct words at its start: stop words are dropped after this
 * cut (by Postgres), so a long message that opens with them still has terms to search with,
 * and a 100 kB message costs no more than its first words.
 */
const MAX_QUERY_WORDS = 64;
const MAX_TERM_LENGTH = 64;

/**
 * Words of a query: runs of letters and digits, lower-cased, deduplicated in order. Everything else
 * (operators, punctuation, quotes, backslashes) is a separator. Stop words and stemming are left to
 * Postgres (`to_tsvector('english', …)` of these words gives the lexemes).
 */
export function queryWords(query: string): string[] {
  const seen = new Set<string>();
  for (const match of query.normalize('NFKC').matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0].toLowerCase().slice(0, MAX_TERM_LENGTH);
    if (!seen.has(word)) seen.add(word);
    if (seen.size >= MAX_QUERY_WORDS) break;
  }
  return [...seen];
}

/** One lexeme as a quoted tsquery operand: `'it''s'`, backslashes escaped. */
export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * Each lexeme of a tsvector's text form (`'it''s':3,7A 'cat':2`) with its number of positions (1
 * for a lexeme stored without any): what `unnest(tsv)` gives as `array_length(positions, 1)`,
 * read from the text Postgres prints (a few µs a vector; unnesting it into json costs tens).
 */
export function tsvectorFrequencies(text: string): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  let i = 0;
  while (i < text.length) {
    // 'lexeme': a quote or backslash inside is printed doubled.
    let lexeme = '';
    let from = i + 1;
    for (i += 1; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === 39 /* ' */ && text.charCodeAt(i + 1) !== 39) break;
      if (c === 39 || c === 92 /* \ */) {
        lexeme += text.slice(from, i + 1);
        i += 1;
        from = i + 1;
      }
    }
    lexeme += text.slice(from, i);
    i += 1;
    // :1,5A,9 — positions, each with an optional weight letter.
    let positions = 1;
    if (text.charCodeAt(i) === 58 /* : */) {
      for (; i < text.length && text.charCodeAt(i) !== 32; i += 1)
        if (text.charCodeAt(i) === 44) positions += 1;
    }
    out[lexeme] = positions;
    i += 1; // the space before the next lexeme
  }
  return out;
}

/** An OR of already-normalized lexemes, for a `::tsquery` cast (which does not re-normalize). */
export function orTsquery(lexemes: readonly string[]): string {
  return lexemes.map(quoteLexeme).join(' | ');
}

/**
 * Documents holding at least two of the lexemes: `('a' & 'b') | ('a' & 'c') | ('b' & 'c')`. With
 * one lexeme, that lexeme alone.
 */
export function pairsTsquery(lexemes: readonly string[]): string {
  if (lexemes.length < 2) return orTsquery(lexemes);
  const pairs: string[] = [];
  for (let i = 0; i < lexemes.length; i += 1)
    for (let j = i + 1; j < lexemes.length; j += 1)
      pairs.push(`(${quoteLexeme(lexemes[i]!)} & ${quoteLexeme(lexemes[j]!)})`);
  return pairs.join(' | ');
}
