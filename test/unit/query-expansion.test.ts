// Pseudo-relevance feedback (RM3) and the speaker label a chat line starts with: pure functions.
import { describe, expect, it } from 'vitest';
import { expandQuery, relevanceModel } from '../../src/modules/memory/core/query-expansion.js';
import { relevance, speakerLabel } from '../../src/modules/memory/core/retrieval-ranking.js';

const doc = (score: number, counts: Record<string, number>) => ({
  score,
  lexemes: new Map(Object.entries(counts)),
});

describe('relevanceModel', () => {
  it('weights a word by its share of each document times the document score, normalized', () => {
    const model = relevanceModel([doc(3, { ferri: 1, zanzibar: 1 }), doc(1, { ferri: 2, boat: 2 })], 10);
    // ferri: 0.5·0.75 + 0.5·0.25 = 0.5; zanzibar: 0.5·0.75 = 0.375; boat: 0.5·0.25 = 0.125.
    expect([...model.entries()]).toEqual([
      ['ferri', 0.5],
      ['zanzibar', 0.375],
      ['boat', 0.125],
    ]);
  });

  it('keeps the best terms only, renormalized, ties in code-point order', () => {
    const model = relevanceModel([doc(1, { b: 1, a: 1, c: 2 })], 2);
    expect([...model.keys()]).toEqual(['c', 'a']);
    expect(model.get('c')! + model.get('a')!).toBeCloseTo(1, 12);
  });

  it('is empty without positive scores or words', () => {
    expect(relevanceModel([], 10).size).toBe(0);
    expect(relevanceModel([doc(0, { a: 1 })], 10).size).toBe(0);
    expect(relevanceModel([doc(1, {})], 10).size).toBe(0);
  });
});

describe('expandQuery', () => {
  it('keeps original lexemes at weight 1 and adds feedback words by their share', () => {
    const model = new Map([
      ['ferri', 0.5],
      ['zanzibar', 0.5],
    ]);
    // originalWeight 0.5, two original lexemes: unit 0.25; zanzibar 0.5·0.5 / 0.25 = 1.
    const weights = expandQuery(['ferri', 'schedul'], model, 0.5);
    expect(Object.fromEntries(weights)).toEqual({ ferri: 2, schedul: 1, zanzibar: 1 });
    expect(expandQuery([], model, 0.5).size).toBe(0);
  });

  it('weighs a feedback word less as the original query weighs more', () => {
    const model = new Map([['zanzibar', 1]]);
    expect(expandQuery(['ferri'], model, 0.9).get('zanzibar')).toBeCloseTo(0.1 / 0.9, 12);
  });
});

describe('relevance with term weights', () => {
  const stats = {
    documents: 100,
    averageLength: 4,
    documentFrequency: new Map([
      ['a', 10],
      ['b', 10],
    ]),
  };
  it('scores a matched weighted term by its weight and normalizes by the weighted total', () => {
    const tf = new Map([['a', 1]]);
    const plain = relevance(tf, 4, ['a', 'b'], stats);
    const weighted = relevance(tf, 4, ['a', 'b'], stats, new Map([['a', 3]]));
    expect(plain).toBeCloseTo(0.5, 12);
    expect(weighted).toBeCloseTo(0.75, 12);
  });
});

describe('speakerLabel', () => {
  it('reads a leading name and colon', () => {
    expect(speakerLabel('Caroline: I went to a support group')).toBe('Caroline');
    expect(speakerLabel('Dr. Ada Lovelace: the engine works')).toBe('Dr. Ada Lovelace');
  });
  it('finds none in ordinary text, times or long prefixes', () => {
    expect(speakerLabel('the deploy finished')).toBeNull();
    expect(speakerLabel('10:30 standup')).toBeNull();
    expect(speakerLabel('note:no space')).toBeNull();
    expect(speakerLabel('one two three four five: too many words')).toBeNull();
  });
});
