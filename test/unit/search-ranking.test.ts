// Query parsing and ranking: safe tsquery literals, tsvector parsing, BM25 relevance, recency, snippets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  idf,
  rareLexemes,
  makeSnippet,
  recencyFactor,
  relevance,
  searchScore,
} from '../../src/modules/memory/core/retrieval-ranking.js';
import {
  orTsquery,
  pairsTsquery,
  queryWords,
  quoteLexeme,
  tsvectorFrequencies,
} from '../../src/modules/memory/core/search-query.js';

describe('queryWords', () => {
  it('keeps letters and digits only, lower-cased and deduplicated', () => {
    expect(queryWords("What's the DB's IP? 10.0.0.1 & | !(x) 'db'")).toEqual([
      'what',
      's',
      'the',
      'db',
      'ip',
      '10',
      '0',
      '1',
      'x',
    ]);
    expect(queryWords('  ?!  ')).toEqual([]);
    expect(queryWords('Ünïcödé データ')).toEqual(['ünïcödé', 'データ']);
  });

  it('caps the number of terms', () => {
    expect(queryWords(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
  });
});

describe('tsquery literals', () => {
  it('quotes every lexeme so no operator survives', () => {
    expect(quoteLexeme("it's")).toBe("'it''s'");
    expect(quoteLexeme('a\\b')).toBe("'a\\\\b'");
    expect(orTsquery(['databas', 'product'])).toBe("'databas' | 'product'");
  });
});

describe('tsvectorFrequencies', () => {
  it("counts each printed lexeme's positions, quotes and backslashes undoubled", () => {
    const printed = String.raw`'a\\b':3 'it''s':1,2 'plain' 'q''':5,6,7B 'x y':4A`;
    expect({ ...tsvectorFrequencies(printed) }).toEqual({
      'a\\b': 1,
      "it's": 2,
      plain: 1,
      "q'": 3,
      'x y': 1,
    });
    expect({ ...tsvectorFrequencies('') }).toEqual({});
    expect(Object.hasOwn(tsvectorFrequencies("'__proto__':1,2"), '__proto__')).toBe(true);
  });
});

describe('relevance and score', () => {
  const stats = {
    documents: 100,
    averageLength: 5,
    documentFrequency: new Map([
      ['rare', 1],
      ['common', 90],
    ]),
  };

  it('weights rare terms above common ones and stays near [0,1]', () => {
    // Documents of average length (5 lexemes), so length normalization is neutral.
    const doc = (...terms: string[]) =>
      new Map([...terms, 'f1', 'f2', 'f3', 'f4', 'f5'].slice(0, 5).map((t) => [t, 1] as [string, number]));
    const rare = relevance(doc('rare'), 5, ['rare', 'common'], stats);
    const common = relevance(doc('common'), 5, ['rare', 'common'], stats);
    const both = relevance(doc('rare', 'common'), 5, ['rare', 'common'], stats);
    expect(rare).toBeGreaterThan(common * 5);
    expect(both).toBeGreaterThan(rare);
    expect(both).toBeCloseTo(1, 1);
    expect(relevance(new Map([['other', 3]]), 1, ['rare'], stats)).toBe(0);
    expect(idf(100, 100)).toBeGreaterThan(0);
  });

  it('scores a record of term frequencies as the same map, inherited keys not counted', () => {
    const lexemes = ['rare', 'common', 'constructor', 'tostring'];
    const record = JSON.parse('{"rare": 2, "common": 1, "tostring": 3}') as Record<string, number>;
    const map = new Map(Object.entries(record));
    for (const length of [1, 3, 5, 40]) {
      expect(relevance(record, length, lexemes, stats)).toBe(relevance(map, length, lexemes, stats));
      expect(Number.isFinite(relevance(record, length, lexemes, stats))).toBe(true);
    }
    // 'constructor' is a property every object inherits: not a term of this document.
    expect(relevance({}, 5, ['constructor'], stats)).toBe(0);
  });

  it('damps old items by at most the recency weight', () => {
    expect(recencyFactor(0)).toBe(1);
    expect(recencyFactor(-5)).toBe(1);
    expect(recencyFactor(1e15)).toBeCloseTo(0.9, 5);
    expect(searchScore(0.8, 0)).toBeCloseTo(0.8);
    expect(searchScore(0.8, 30 * 86_400_000)).toBeCloseTo(0.8 * 0.95);
    expect(searchScore(0.8, 1e15, 0)).toBe(0.8);
  });
});

describe('makeSnippet', () => {
  it('returns short texts whole and cuts long ones around the first match', () => {
    expect(makeSnippet('short  text\nhere', ['text'])).toBe('short text here');
    const text = `${'alpha '.repeat(80)}the migration failed ${'omega '.repeat(80)}`;
    const snippet = makeSnippet(text, ['migrat'], 100);
    expect(snippet).toContain('migration failed');
    expect(snippet.startsWith('…') && snippet.endsWith('…')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(102);
    expect(makeSnippet('x'.repeat(300), ['nomatch'], 50).startsWith('xxx')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const snippet = makeSnippet('😀'.repeat(200), ['x'], 51);
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  /** makeSnippet as it was before ASCII text got its word-free scan: every word, lowercased, tested. */
  function walkingSnippet(text: string, lexemes: readonly string[], maxChars = 240): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    if (flat.length <= maxChars) return flat;
    let hit = -1;
    for (const match of flat.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = match[0].toLowerCase();
      const matches = (lexeme: string) =>
        word.startsWith(lexeme.length > 4 ? lexeme.slice(0, lexeme.length - 1) : lexeme);
      if (lexemes.some(matches)) {
        hit = match.index;
        break;
      }
    }
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
    if (flat.charCodeAt(start) >= 0xdc00 && flat.charCodeAt(start) <= 0xdfff) start += 1;
    if (end < flat.length && flat.charCodeAt(end) >= 0xdc00 && flat.charCodeAt(end) <= 0xdfff) end -= 1;
    return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
  }

  it('collapses exactly the whitespace that \\s matches, every code unit', () => {
    for (let c = 0; c < 0x10000; c += 1) {
      const unit = String.fromCharCode(c);
      for (const text of [`a${unit}b`, `a ${unit}b`, `${unit}a`, `a${unit}`])
        if (makeSnippet(text, []) !== walkingSnippet(text, [])) expect([c, text]).toBe('the same snippet');
    }
  });

  it('gives the same snippet as walking every word, ASCII or not', () => {
    const word = fc.oneof(
      fc.constantFrom(
        'Deploy',
        'deployment',
        'MIGRATION',
        'migrat',
        'e-mail',
        'x9',
        'İstanbul',
        'straße',
        'ΣΟΦΟΣ',
        '😀',
      ),
      fc.string({
        unit: fc.constantFrom('a', 'B', 'z', '0', '9', '-', '_', "'", '.', 'é', 'İ', 'K'),
        maxLength: 9,
      }),
    );
    const text = fc
      .array(
        fc.tuple(
          word,
          fc.constantFrom(' ', '  ', '\n', '\t ', ', ', '\u00a0', '\u2028', '\ufeff', '\u3000', ''),
        ),
        { maxLength: 120 },
      )
      .map((parts) => parts.map(([w, sep]) => w + sep).join(''));
    const lexeme = fc.oneof(
      fc.constantFrom('deploy', 'migrat', 'e-mail', 'x9', 'istanbul', 'straß', 'σοφο', '', 'a', 'zzzzz'),
      fc.string({ unit: fc.constantFrom('a', 'b', 'z', '0', '-', 'é', 'k'), maxLength: 7 }),
    );
    fc.assert(
      fc.property(
        text,
        fc.array(lexeme, { maxLength: 5 }),
        fc.integer({ min: 10, max: 120 }),
        (t, lexemes, max) => {
          expect(makeSnippet(t, lexemes, max)).toBe(walkingSnippet(t, lexemes, max));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('rareLexemes', () => {
  const share = new Map([
    ['the', 0.9],
    ['deploy', 0.2],
    ['rollback', 0.01],
    ['canary', 0.015],
  ]);

  it('keeps lexemes in at most 2% of the rows, rarest first, absent ones rarest of all', () => {
    expect(rareLexemes(['the', 'deploy', 'canary', 'rollback', 'zebra'], share)).toEqual([
      'zebra',
      'rollback',
      'canary',
    ]);
  });

  it('takes at most `max` of them, ties in lexeme order', () => {
    expect(rareLexemes(['zz', 'aa', 'mm', 'rollback'], share)).toEqual(['aa', 'mm', 'zz']);
    expect(rareLexemes(['zz', 'aa', 'mm', 'rollback'], share, 0.02, 2)).toEqual(['aa', 'mm']);
  });

  it('falls back to the two least common when none is rare', () => {
    expect(rareLexemes(['the', 'deploy'], share)).toEqual(['deploy', 'the']);
    expect(rareLexemes(['the'], share)).toEqual(['the']);
  });
});

describe('pairsTsquery', () => {
  it('asks for two of the lexemes, quoted', () => {
    expect(pairsTsquery(['a', "it's", 'c'])).toBe("('a' & 'it''s') | ('a' & 'c') | ('it''s' & 'c')");
    expect(pairsTsquery(['a'])).toBe("'a'");
  });
});
