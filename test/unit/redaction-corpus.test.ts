// Redaction measured on a generated corpus: synthetic secrets of every kind in chat-like sentences
// (recall: the secret is replaced by its marker and the text around it is kept) and clean look-alikes
// (false positives: any change at all).
import { describe, expect, it } from 'vitest';
import { redactedMarker, redactionKinds, redactSecrets } from '../../src/modules/memory/core/redaction.js';
import { lookAlikes, positiveCases } from '../helpers/secret-corpus.js';

const positives = positiveCases(20_251_124, 7);
const negatives = lookAlikes(7_777, 10);

/** The figures are printed with the test output (vitest shows a test's stdout). */
const report = (line: string) => process.stdout.write(`${line}\n`);

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

describe('redaction corpus', () => {
  it('is large enough: ≥ 200 secrets across ≥ 30 kinds, ≥ 200 look-alikes', () => {
    expect(positives.length).toBeGreaterThanOrEqual(200);
    expect(new Set(positives.map((c) => c.kind)).size).toBeGreaterThanOrEqual(30);
    expect(negatives.length).toBeGreaterThanOrEqual(200);
    // Every kind we can name is in the corpus.
    expect(new Set(positives.map((c) => c.kind))).toEqual(new Set(redactionKinds));
  });

  it('finds ≥ 99% of the secrets, keeping the text around them', () => {
    const missed = positives.filter(({ before, secret, after }) => {
      const { text } = redactSecrets(before + secret + after);
      return !(
        text.startsWith(before) &&
        text.endsWith(after) &&
        /^\[REDACTED:[a-z_]+\]$/.test(text.slice(before.length, text.length - after.length))
      );
    });
    const wrongKind = positives.filter(
      ({ kind, before, secret, after }) =>
        redactSecrets(before + secret + after).text !== before + redactedMarker(kind) + after,
    );
    const recall = 1 - missed.length / positives.length;
    report(
      `redaction recall ${percent(positives.length - missed.length, positives.length)} (${positives.length} secrets, ${new Set(positives.map((c) => c.kind)).size} kinds); marker names the expected kind in ${percent(positives.length - wrongKind.length, positives.length)}`,
    );
    expect(missed.map((c) => redactSecrets(c.before + c.secret + c.after).text)).toEqual([]);
    expect(recall).toBeGreaterThanOrEqual(0.99);
    expect(wrongKind.map((c) => [c.kind, redactSecrets(c.before + c.secret + c.after).text])).toEqual([]);
  });

  it('changes ≤ 1% of the look-alikes', () => {
    const changed = negatives.filter(({ text }) => redactSecrets(text).text !== text);
    report(
      `redaction false positives ${percent(changed.length, negatives.length)} (${negatives.length} look-alikes)`,
    );
    expect(changed.map(({ family, text }) => [family, redactSecrets(text).text])).toEqual([]);
    expect(changed.length / negatives.length).toBeLessThanOrEqual(0.01);
  });

  it('is idempotent over the whole corpus', () => {
    for (const { before, secret, after } of positives) {
      const once = redactSecrets(before + secret + after).text;
      expect(redactSecrets(once)).toEqual({ text: once, counts: {} });
    }
  });
});
