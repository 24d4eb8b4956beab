// Plain Okapi BM25 (k1 1.2, b 0.75) over dialog turns: the reference both LoCoMo benches compare
// with. Lower-cased letter/digit tokens, no stemming, no stop list.

export const tokenize = (s: string) => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) as string[];

/** A ranker over `docs`: the ids of the best `k` documents for a query, best first (score > 0). */
export function createBm25(docs: { id: string; text: string }[]) {
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    const tokens = tokenize(d.text);
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { id: d.id, tf, length: tokens.length };
  });
  const df = new Map<string, number>();
  for (const d of tfs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avgdl = tfs.reduce((s, d) => s + d.length, 0) / Math.max(tfs.length, 1);
  const n = tfs.length;
  return (query: string, k: number): string[] => {
    const terms = [...new Set(tokenize(query))];
    const scored = tfs.map((d) => {
      let score = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avgdl));
      }
      return { id: d.id, score };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((s) => s.id);
  };
}

/**
 * Greedy packing: BM25 hits best first, each whole if it fits in what is left of `budget`
 * (reference tokens of "speaker: text"), skipping those that do not — the published reference.
 */
export function bm25Pack(
  ranked: readonly string[],
  tokensOf: (id: string) => number,
  budget: number,
): Set<string> {
  const out = new Set<string>();
  let used = 0;
  for (const id of ranked) {
    const tokens = tokensOf(id);
    if (used + tokens > budget) continue;
    used += tokens;
    out.add(id);
  }
  return out;
}
