// A per-class token estimator (docs/design.md §6.3 alternative): one pass over the text counts character
// classes (ASCII words and letters, digits, spaces, punctuation, newlines, CJK, emoji, other
// scripts) and a linear model calibrated against o200k turns the counts into tokens. It is much
// faster than BPE but less exact per message; bench/tokens.ts measures both and refits the
// coefficients. The service default stays the BPE count (core/tokens.ts) — see docs/channels.md.
import { DEFAULT_MODEL_FACTOR, imageTokens, type TokenEstimator } from './tokens.js';

export const CHAR_FEATURES = [
  'ascii_words',
  'ascii_letters',
  'digits',
  'spaces',
  'punctuation',
  'newlines',
  'cjk',
  'emoji',
  'other_words',
  'other_letters',
] as const;
export type CharFeature = (typeof CHAR_FEATURES)[number];

/** o200k tokens per unit of each feature, fitted by bench/tokens.ts (least squares, mixed corpus). */
export const CLASS_COEFFICIENTS: Record<CharFeature, number> = {
  ascii_words: 0.4806,
  ascii_letters: 0.094,
  digits: 0.6159,
  spaces: 0.1175,
  punctuation: 0.6694,
  newlines: 0.8549,
  cjk: 0.7723,
  emoji: 1.5009,
  other_words: 0.8901,
  other_letters: 0.1075,
};

const isCjk = (c: number) =>
  (c >= 0x3000 && c <= 0x30ff) ||
  (c >= 0x3400 && c <= 0x4dbf) ||
  (c >= 0x4e00 && c <= 0x9fff) ||
  (c >= 0xac00 && c <= 0xd7af) ||
  (c >= 0xf900 && c <= 0xfaff) ||
  (c >= 0xff00 && c <= 0xffef);
const isEmoji = (c: number) =>
  (c >= 0x1f000 && c <= 0x1faff) ||
  (c >= 0x2600 && c <= 0x27bf) ||
  c === 0x200d ||
  c === 0xfe0f ||
  (c >= 0x1f3fb && c <= 0x1f3ff);

/** Feature counts of `text`, in CHAR_FEATURES order. */
export function charProfile(text: string): number[] {
  let asciiWords = 0;
  let asciiLetters = 0;
  let digits = 0;
  let spaces = 0;
  let punctuation = 0;
  let newlines = 0;
  let cjk = 0;
  let emoji = 0;
  let otherWords = 0;
  let otherLetters = 0;
  let previous = 0; // 1 ascii letter, 2 other letter, 0 anything else
  for (let i = 0; i < text.length; i += 1) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      c = ((c - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00) + 0x10000;
      i += 1;
    }
    let kind = 0;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
      asciiLetters += 1;
      if (previous !== 1) asciiWords += 1;
      kind = 1;
    } else if (c >= 0x30 && c <= 0x39) digits += 1;
    else if (c === 0x0a) newlines += 1;
    else if (c === 0x20 || c === 0x09 || c === 0x0d) spaces += 1;
    else if (c < 0x80) punctuation += 1;
    else if (isCjk(c)) cjk += 1;
    else if (isEmoji(c)) emoji += 1;
    else {
      otherLetters += 1;
      if (previous !== 2) otherWords += 1;
      kind = 2;
    }
    previous = kind;
  }
  return [
    asciiWords,
    asciiLetters,
    digits,
    spaces,
    punctuation,
    newlines,
    cjk,
    emoji,
    otherWords,
    otherLetters,
  ];
}

export function classTokenCount(
  text: string,
  coefficients: Record<CharFeature, number> = CLASS_COEFFICIENTS,
): number {
  const profile = charProfile(text);
  let total = 0;
  CHAR_FEATURES.forEach((feature, i) => {
    total += coefficients[feature] * profile[i]!;
  });
  return text.length === 0 ? 0 : Math.max(1, total);
}

/** Same interface as the BPE estimator: text, and Anthropic content through the same rules. */
export function createClassTokenEstimator(
  factor = DEFAULT_MODEL_FACTOR,
  coefficients: Record<CharFeature, number> = CLASS_COEFFICIENTS,
): TokenEstimator {
  const text = (value: string) =>
    value.length === 0 ? 0 : Math.ceil(classTokenCount(value, coefficients) * factor);
  const block = (b: unknown): number => {
    if (typeof b === 'string') return text(b);
    if (!b || typeof b !== 'object') return 0;
    const value = b as Record<string, unknown>;
    if (value.type === 'text') return text(String(value.text ?? ''));
    if (value.type === 'thinking' || value.type === 'redacted_thinking') return 0;
    if (value.type === 'image')
      return imageTokens(value.width as number | undefined, value.height as number | undefined);
    return text(JSON.stringify(value));
  };
  return {
    text,
    content: (content) =>
      Array.isArray(content) ? content.map(block).reduce((a, b) => a + b, 0) : block(content),
  };
}
