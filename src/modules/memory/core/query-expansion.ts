// Pseudo-relevance feedback (RM3, Lavrenko & Croft's relevance model interpolated with the query,
// as in Anserini): the first pass's best documents are taken as relevant, the words they share
// become extra query terms, weighted by how likely the feedback documents make them. Pure.

/** Feedback documents and expansion terms: Anserini's defaults. */
export const FEEDBACK_DOCS = 10;
export const FEEDBACK_TERMS = 10;
/**
 * The original query's share: 0.7, from the grid {0.5 (Anserini's default), 0.7, 0.9} on the
 * LoCoMo dev slice (docs/benchmarks.md): at 0.5, ten short chat turns' words outweigh the question.
 */
export const ORIGINAL_QUERY_WEIGHT = 0.7;

interface FeedbackDocument {
  /** First-pass score (relevance), taken as P(q|d) up to a constant. */
  score: number;
  /** Occurrences of each lexeme of the document. */
  lexemes: ReadonlyMap<string, number>;
}

/**
 * The relevance model P(w|R) ∝ Σ_d P(w|d)·P(q|d) over the feedback documents, its best `terms`
 * lexemes renormalized to sum 1. Ties: the lexeme first in code-point order.
 */
export function relevanceModel(
  docs: readonly FeedbackDocument[],
  terms = FEEDBACK_TERMS,
): Map<string, number> {
  const mass = new Map<string, number>();
  const total = docs.reduce((s, d) => s + Math.max(d.score, 0), 0);
  if (total <= 0) return new Map();
  for (const doc of docs) {
    const length = [...doc.lexemes.values()].reduce((s, n) => s + n, 0);
    if (length === 0 || doc.score <= 0) continue;
    for (const [lexeme, count] of doc.lexemes)
      mass.set(lexeme, (mass.get(lexeme) ?? 0) + (count / length) * (doc.score / total));
  }
  const best = [...mass.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, terms);
  const sum = best.reduce((s, [, w]) => s + w, 0);
  return new Map(best.map(([lexeme, w]) => [lexeme, w / sum]));
}

/**
 * The expanded query: each original lexeme weighs `originalWeight / n`, each feedback lexeme
 * `(1 − originalWeight) · P(w|R)`, summed when a lexeme is both. Scaled so the original lexemes
 * weigh 1 each (their weight in an unexpanded search).
 */
export function expandQuery(
  original: readonly string[],
  model: ReadonlyMap<string, number>,
  originalWeight = ORIGINAL_QUERY_WEIGHT,
): Map<string, number> {
  const weights = new Map<string, number>();
  if (original.length === 0) return weights;
  for (const lexeme of original) weights.set(lexeme, originalWeight / original.length);
  for (const [lexeme, p] of model) weights.set(lexeme, (weights.get(lexeme) ?? 0) + (1 - originalWeight) * p);
  const unit = originalWeight / original.length;
  return new Map([...weights].map(([lexeme, w]) => [lexeme, w / unit]));
}
