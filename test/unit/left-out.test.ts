import { describe, expect, it } from 'vitest';
import {
  leftOutReasons,
  leftOutReport,
  MAX_LEFT_OUT_ITEMS,
  type LeftOutCandidate,
} from '../../src/modules/context/core/left-out.js';

/** The report as a full sort would list it: score descending, then id, then the order given. */
function sortedReport(candidates: readonly LeftOutCandidate[]) {
  const counts: Record<string, number> = {};
  for (const c of candidates) counts[c.reason] = (counts[c.reason] ?? 0) + 1;
  const best = [...candidates]
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, MAX_LEFT_OUT_ITEMS);
  return { counts, ids: best.map((c) => `${c.id}/${c.text}`) };
}

describe('leftOutReport', () => {
  it('lists the best as a stable sort of every candidate would, with counts over all', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round += 1) {
      const n = Math.floor(random() * 120);
      const candidate = (i: number): LeftOutCandidate => ({
        kind: 'memory',
        // Few ids and scores: ties on both, kept in the order given.
        id: `m${Math.floor(random() * 12)}`,
        score: Math.floor(random() * 6) / 5,
        text: `t${i} ${'x'.repeat(Math.floor(random() * 300))}`,
        reason: leftOutReasons[Math.floor(random() * leftOutReasons.length)]!,
      });
      const search = Array.from({ length: Math.floor(n / 3) }, (_, i) => candidate(i));
      const assembly = Array.from({ length: n - search.length }, (_, i) => candidate(1_000 + i));
      const report = leftOutReport(search, assembly);
      const expected = sortedReport([...search, ...assembly]);
      expect(report.counts).toEqual(expected.counts);
      expect(Object.keys(report.counts)).toEqual(Object.keys(expected.counts));
      const byText = new Map([...search, ...assembly].map((c) => [c.text.slice(0, 240), c]));
      expect(report.items.map((i) => `${i.id}/${byText.get(i.excerpt.replace(/…$/, ''))!.text}`)).toEqual(
        expected.ids,
      );
    }
    expect(leftOutReport([], [])).toEqual({ counts: {}, items: [] });
  });
});
