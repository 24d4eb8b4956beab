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
