// Ranking of full-text candidates: BM25 over the stored tsvector's lexemes (IDF from the
// candidate pass), normalized to [0,1], damped by age; plus snippets. Pure: the search service
// fetches candidates and statistics from Postgres and calls these.

/**
 * BM25 parameters: Anserini's defaults (k1 0.9, b 0.4). A long chat turn is rarely less on topic
 * than a short one, and the textbook b 0.75 penalized its length: LoCoMo recall@10 +1.5 points
 * (docs/benchmarks.md). The context call keeps k1 1.2, b 0.75 (context.retrieve.ts).
 */
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;
/** Age at which the recency factor is halfway between 1 and its floor. */
const RECENCY_HALF_LIFE_MS = 30 * 24 * 3_600_000;
/** Share of the score that recency can take away from an old item (0: recency ignored). */
export const RECENCY_WEIGHT = 0.1;

export interface CorpusStats {
  /** Number of documents searched (an estimate is fine). */
  documents: number;
  /** Average document length, in distinct lexemes. */
  averageLength: number;
  /** Documents containing each query lexeme. */
  documentFrequency: ReadonlyMap<string, number>;
}

/** In a large scope, only lexemes in at most this share of the table's rows bring candidates in… */
export const RARE_TERM_SHARE = 0.02;
/** …and at most this many of them (the rarest), so the GIN walks a bounded set of posting lists. */
const RARE_TERMS_MAX = 3;

/**
 * The lexemes whose documents are candidates in a large scope, rarest first: those that Postgres'
 * statistics (`most_common_elems` of the tsv column, table-wide; absent means rarer than every
 * listed lexeme) put in at most `maxShare` of the rows, at most `max` of them; when none is that
 * rare, the two least common. Common lexemes still count in the ranking of the documents the rare
 * ones bring in; their own posting lists are too long to walk and their IDF is small.
 */
export function rareLexemes(
  lexemes: readonly string[],
  share: ReadonlyMap<string, number>,
  maxShare = RARE_TERM_SHARE,
  max = RARE_TERMS_MAX,
): string[] {
  const of = (lexeme: string) => share.get(lexeme) ?? 0;
  const byRarity = [...lexemes].sort((a, b) => of(a) - of(b) || (a < b ? -1 : a > b ? 1 : 0));
  const rare = byRarity.filter((lexeme) => of(lexeme) <= maxShare).slice(0, max);
  return rare.length > 0 ? rare : byRarity.slice(0, 2);
}

/** BM25 inverse document frequency, never negative. */
export function idf(documents: number, frequency: number): number {
  return Math.log(1 + (Math.max(documents, frequency) - frequency + 0.5) / (frequency + 0.5));
}

/** A document's occurrences of each lexeme: a map, or a record such as a candidate row's `tf`. */
type TermFrequencies = ReadonlyMap<string, number> | Readonly<Record<string, number>>;

const frequencyOf = (tf: TermFrequencies, lexeme: string): number =>
  tf instanceof Map
    ? ((tf as ReadonlyMap<string, number>).get(lexeme) ?? 0)
    : Object.hasOwn(tf, lexeme)
      ? (tf as Readonly<Record<string, number>>)[lexeme]!
      : 0;

/**
 * Relevance: the document's BM25 divided by the query's total IDF, i.e. 1.0 when every query term
 * occurs once in a document of average length (more occurrences or a shorter document can pass 1;
 * callers clamp what they show). One rare term matched scores above several common ones.
 */
export function relevance(
  termFrequency: TermFrequencies,
  length: number,
  lexemes: readonly string[],
  stats: CorpusStats,
  /** Query term weights (an expanded query's; 1 for a lexeme not listed): 1.0 is then every term's weight matched. */
  termWeights?: ReadonlyMap<string, number>,
  bm25: { k1: number; b: number } = { k1: BM25_K1, b: BM25_B },
): number {
  return relevanceScorer(lexemes, stats, termWeights, bm25)(termFrequency, length);
}

/**
 * `relevance` for many documents of one query and corpus: the terms' weights are computed once,
 * and each document's score takes the same steps in the same order (the same bits).
 */
export function relevanceScorer(
  lexemes: readonly string[],
  stats: CorpusStats,
  termWeights?: ReadonlyMap<string, number>,
  { k1, b }: { k1: number; b: number } = { k1: BM25_K1, b: BM25_B },
): (termFrequency: TermFrequencies, length: number) => number {
  const weights = lexemes.map(
    (lexeme) =>
      idf(stats.documents, stats.documentFrequency.get(lexeme) ?? 0) * (termWeights?.get(lexeme) ?? 1),
  );
  let ceiling = 0;
  for (const weight of weights) ceiling += weight;
  const averageLength = Math.max(stats.averageLength, 1);
  return (termFrequency, length) => {
    const norm = 1 - b + b * (length / averageLength);
    let score = 0;
    for (let i = 0; i < lexemes.length; i += 1) {
      const tf = frequencyOf(termFrequency, lexemes[i]!);
      if (tf > 0) score += (weights[i]! * tf * (k1 + 1)) / (tf + k1 * norm);
    }
    return ceiling > 0 ? score / ceiling : 0;
  };
}

/** 1 for something from now, falling toward 1 − weight as it ages. Future times count as now. */
export function recencyFactor(
  ageMs: number,
  weight = RECENCY_WEIGHT,
  halfLifeMs = RECENCY_HALF_LIFE_MS,
): number {
  const age = Math.max(0, ageMs);
  return 1 - weight + weight * Math.pow(0.5, age / halfLifeMs);
}

/** Final score: relevance damped by age (unclamped, for ordering; clamp to [0,1] for display). */
export function searchScore(relevanceScore: number, ageMs: number, recencyWeight = RECENCY_WEIGHT): number {
  return relevanceScore * recencyFactor(ageMs, recencyWeight);
}

/** Whether a word of the text matches a stemmed lexeme (stems are prefixes up to a letter or two). */
function wordMatches(word: string, lexeme: string): boolean {
  const stem = lexeme.length > 4 ? lexeme.slice(0, lexeme.length - 1) : lexeme;
  return word.startsWith(stem);
}

/**
 * A window of about `maxChars` around the first word that matches a query lexeme, cut at word
 * boundaries, with "…" where text was left out. Deterministic.
 */
export function makeSnippet(text: string, lexemes: readonly string[], maxChars = 240): string {
  const flat = isFlat(text) ? text : text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  const hit = NOT_ASCII.test(flat) ? firstWordMatch(flat, lexemes) : firstAsciiWordMatch(flat, lexemes);
  let start = hit < 0 ? 0 : Math.max(0, hit - Math.floor(maxChars / 3));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    start = space >= 0 && space < hit ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + maxChars);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + maxChars / 2) end = space;
  }
  // Never split a surrogate pair.
  if (isLowSurrogate(flat.charCodeAt(start))) start += 1;
  if (end < flat.length && isLowSurrogate(flat.charCodeAt(end))) end -= 1;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Whitespace other than a plain space: what `\s` matches besides it. */
const OTHER_SPACE = /[^\S ]/;

/**
 * Whether `text.replace(/\s+/g, ' ').trim()` would give the text back (every whitespace run one
 * plain space, none at either end): a few scans in native code, where the replace copies the text
 * (and a loop over its characters costs ~6 µs for a transcript chunk).
 */
function isFlat(text: string): boolean {
  if (text.length === 0) return true;
  return (
    text.charCodeAt(0) !== 32 &&
    text.charCodeAt(text.length - 1) !== 32 &&
    !text.includes('  ') &&
    !OTHER_SPACE.test(text)
  );
}

/** Where the first word (a run of letters and digits) matching a lexeme starts; -1: none. */
function firstWordMatch(flat: string, lexemes: readonly string[]): number {
  for (const match of flat.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0].toLowerCase();
    if (lexemes.some((lexeme) => wordMatches(word, lexeme))) return match.index;
  }
  return -1;
}

const NOT_ASCII = /\P{ASCII}/u;
const ASCII_STEM = /^[a-z0-9]*$/;
const isAsciiWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The last stems searched for and their expression (a search's snippets share its lexemes). */
let lastStems: { key: string; expression: RegExp } | null = null;

/**
 * firstWordMatch of ASCII text without walking its words: a word there is a run of [A-Za-z0-9],
 * and a lowercased word can start only with a stem of [a-z0-9], so the first match is the earliest
 * word start where some stem occurs, ignoring case: one scan of the text by a regular expression
 * (the search results' snippets are the most frequent caller, bench:search).
 */
function firstAsciiWordMatch(flat: string, lexemes: readonly string[]): number {
  const stems: string[] = [];
  for (const lexeme of lexemes) {
    const stem = lexeme.length > 4 ? lexeme.slice(0, lexeme.length - 1) : lexeme;
    if (!ASCII_STEM.test(stem)) continue;
    if (stem === '') {
      // Every word matches the empty stem: the first word, where no other stem can match earlier.
      let i = 0;
      while (i < flat.length && !isAsciiWordChar(flat.charCodeAt(i))) i += 1;
      return i < flat.length ? i : -1;
    }
    stems.push(stem);
  }
  if (stems.length === 0) return -1;
  const key = stems.join('|');
  if (lastStems?.key !== key) lastStems = { key, expression: new RegExp(`(?<![A-Za-z0-9])(?:${key})`, 'i') };
  return lastStems.expression.exec(flat)?.index ?? -1;
}

/**
 * The speaker label a chat line stored as text starts with (`Caroline: …`, `Dr. Ada Lovelace: …`):
 * up to four words before a colon and a space; null when the text does not start like that.
 */
export function speakerLabel(text: string): string | null {
  const match = /^(\p{L}[\p{L}\p{N}.'’-]*(?: [\p{L}\p{N}.'’-]+){0,3}): /u.exec(text);
  return match ? match[1]! : null;
}
