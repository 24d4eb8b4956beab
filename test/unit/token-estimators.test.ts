// The BPE default stays exact against o200k while staying linear on pathological runs; the
// per-class estimator counts character classes and lands near the reference.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { charProfile, classTokenCount, createClassTokenEstimator } from '../../src/shared/token-classes.js';
import { asciiBpeAvailable, countAsciiPiece } from '../../src/shared/o200k-ascii-bpe.js';
import { asciiPieceEnd, pieceEndWithin } from '../../src/shared/o200k-pieces.js';
import { bpeCount, createTokenEstimator } from '../../src/shared/tokens.js';

const prose =
  'Channel events arrive out of order: an edit before its create, a reply before its root. The store converges anyway, and every stored text gets a token estimate once, at write time.';
const json = JSON.stringify({
  id: 1,
  name: 'contextd',
  tags: ['a', 'b'],
  nested: { deep: [1, 2, 3], url: 'https://example.com/x?y=z' },
});

describe('bpeCount', () => {
  it('equals the reference tokenizer on ordinary text, JSON and code', () => {
    for (const text of [
      prose,
      json,
      JSON.stringify(JSON.parse(json), null, 2),
      'const x = (a: number) => a * 2;\n',
      '日本語のテキスト',
    ]) {
      expect(bpeCount(text)).toBe(countTokens(text));
    }
  });

  it('stays within 5% of the reference on long single pre-tokens it counts in pieces', () => {
    for (const text of [
      'x'.repeat(3000),
      '日本語のテキストと中文'.repeat(150),
      '='.repeat(2000),
      'ab'.repeat(1500) + ' tail',
    ]) {
      const reference = countTokens(text);
      expect(Math.abs(bpeCount(text) - reference) / reference).toBeLessThan(0.05);
    }
  });

  it('counts whole a text with no letter or punctuation run over 64 characters, spaces or not', () => {
    const lines = Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, author: 'nick', text: `line ${i}` }));
    for (const text of [
      JSON.stringify(lines),
      'a'.repeat(64) + '1' + 'é'.repeat(64),
      '"'.repeat(63) + 'é' + '9' + '日'.repeat(64),
    ]) {
      expect(bpeCount(text)).toBe(countTokens(text));
    }
  });

  it('counts special tokens as the text they are (the tokenizer refuses them by default)', () => {
    const asText = { disallowedSpecial: new Set<string>() };
    for (const text of [
      'say <|endoftext|> now',
      '<|endoftext|>',
      'x <|fim_prefix|> y',
      '<|foo|>',
      'a<|endoftext|>' + 'b'.repeat(100),
    ]) {
      expect(bpeCount(text)).toBe(countTokens(text, asText));
    }
  });

  it('counts any pre-token over 128 characters in 64-character slices, not by a BPE quadratic in it', () => {
    const sliced = (run: string) => {
      let total = 0;
      for (let i = 0; i < run.length; i += 64) total += countTokens(run.slice(i, i + 64));
      return total;
    };
    // White space, punctuation with a tail of newlines and slashes: one
    // pre-token each (200,000 spaces took ~30 s whole).
    for (const run of [
      ' '.repeat(20_000),
      '\n'.repeat(20_000),
      ' \n'.repeat(5_000),
      '=' + '\n/'.repeat(5_000),
    ]) {
      expect(run.match(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu'))).toHaveLength(1);
      expect(bpeCount(run)).toBe(sliced(run));
    }
    // Up to the cap a white-space run is counted whole.
    expect(bpeCount(' '.repeat(128))).toBe(countTokens(' '.repeat(128)));
  });

  it("splits ASCII text into o200k's pieces and counts them as the tokenizer counts the text", () => {
    const tricky = [
      "I'LL say it's DON'T won'T we'Re they'VE HELLOworld camelCase ABC's x'd",
      'a  b   c\t\td \n\n e\r\n  f   \n',
      '    leading and trailing    ',
      'path/to/file.ts:12 -> https://example.com/a?b=c&d=e#f .\n/usr "quoted" (paren) [1,23,456,7890]',
      '\u0000\u0007\u001f\u007f ~`!@#$%^&*()_+-={}|[]\\:";\'<>?,./',
      '12345678901234 v1.2.3 0x1F 3.14159 1e10 2025-01-01T00:00:00.000Z',
      `${json}\n${prose}`,
    ];
    // And 20,000 random strings of up to 12 characters, from one character of each kind the walk tells apart.
    const kinds = ['A', 'b', '7', '\n', '\r', ' ', '\t', '/', '.', "'", 's', 'L', 'e', 'v'];
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < 20_000; i += 1) {
      tricky.push(
        Array.from(
          { length: 1 + Math.floor(random() * 12) },
          () => kinds[Math.floor(random() * kinds.length)],
        ).join(''),
      );
    }
    for (const text of tricky) {
      const walked: string[] = [];
      for (let start = 0; start < text.length; start = asciiPieceEnd(text, start)) {
        walked.push(text.slice(start, asciiPieceEnd(text, start)));
      }
      expect(walked).toEqual([...text.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0]));
      expect(bpeCount(text)).toBe(countTokens(text));
    }
  });

  it('merges an ASCII piece the vocabulary lacks as the tokenizer merges its bytes', () => {
    expect(asciiBpeAvailable).toBe(true);
    // 5,000 random texts of printable ASCII, words of up to 40 characters that are mostly not tokens.
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
    const pool = `${printable}${'etaoinshrdlu'.repeat(6)}${'ETAOIN'.repeat(2)}`;
    let seed = 11;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    let pieces = 0;
    for (let i = 0; i < 5_000; i += 1) {
      const text = Array.from(
        { length: 2 + Math.floor(random() * 40) },
        () => pool[Math.floor(random() * pool.length)],
      ).join('');
      for (let start = 0; start < text.length; start = asciiPieceEnd(text, start)) {
        const piece = text.slice(start, asciiPieceEnd(text, start));
        expect(countAsciiPiece(piece)).toBe(countTokens(piece));
        pieces += 1;
      }
    }
    expect(pieces).toBeGreaterThan(20_000);
  });

  it('walks the ASCII stretches of a mixed text only as far as the regex would agree', () => {
    // 20,000 random strings mixing ASCII with characters outside it that each regex class holds
    // (letters, a mark, digits, white space, punctuation, a surrogate pair), with pieces to match.
    const kinds = [
      'A',
      'b',
      '7',
      '\n',
      ' ',
      '/',
      '.',
      "'",
      's',
      'l',
      'é',
      'Ж',
      '\u0301',
      '٣',
      '\u00a0',
      '\u2028',
      '…',
      '’',
      '日',
      '𝒜',
    ];
    let seed = 11;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const texts = ['How do I get vpnc… to let me access the internet?\n[12:01] <nick> it’s fine'];
    for (let i = 0; i < 20_000; i += 1) {
      texts.push(
        Array.from(
          { length: 1 + Math.floor(random() * 16) },
          () => kinds[Math.floor(random() * kinds.length)],
        ).join(''),
      );
    }
    for (const text of texts) {
      const regex = [...text.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0]);
      const walked: string[] = [];
      for (let start = 0; start < text.length;) {
        let other = start;
        while (other < text.length && text.charCodeAt(other) < 0x80) other += 1;
        const end = other > start ? pieceEndWithin(text, start, other) : -1;
        // Where the walk declines, take the regex's piece (as countPieces does).
        const piece = end < 0 ? regex[walked.length]! : text.slice(start, end);
        walked.push(piece);
        start += piece.length;
      }
      expect(walked).toEqual(regex);
      expect(bpeCount(text)).toBe(countTokens(text));
    }
  });

  it('never splits a surrogate pair between pieces', () => {
    const text = 'a'.repeat(63) + '𝒜'.repeat(100);
    expect(bpeCount(text)).toBeGreaterThan(0);
  });

  it('applies the model factor in the default estimator', () => {
    expect(createTokenEstimator(1).text(prose)).toBe(countTokens(prose));
    expect(createTokenEstimator(1.5).text(prose)).toBe(Math.ceil(countTokens(prose) * 1.5));
    expect(createTokenEstimator().text('')).toBe(0);
  });
});

describe('per-class estimator', () => {
  it('profiles character classes', () => {
    // ascii words, ascii letters, digits, spaces, punctuation, newlines, cjk, emoji, other words, other letters
    expect(charProfile('Hi 42, 日本 🚀\nпривет')).toEqual([1, 2, 2, 3, 1, 1, 2, 1, 1, 6]);
  });

  it('lands within 40% of the reference on prose, CJK and emoji chat', () => {
    for (const text of [
      prose,
      '请在部署之前检查数据库迁移是否已经完成，并通知团队。',
      'great job 🎉🎉 ship it 🚀 thanks 🙏',
    ]) {
      const reference = countTokens(text);
      expect(Math.abs(classTokenCount(text) - reference) / reference).toBeLessThan(0.4);
    }
    expect(createClassTokenEstimator(1).text('')).toBe(0);
    expect(createClassTokenEstimator(1).content([{ type: 'text', text: prose }])).toBe(
      Math.ceil(classTokenCount(prose)),
    );
  });
});
