import { describe, expect, it } from 'vitest';
import {
  isValidSlotPattern,
  matchPendingSlot,
  type PendingSlot,
} from '../../src/modules/lanes/core/pending-slot.js';
import { cpuTimed } from '../helpers/cpu-time.js';

const slot = (type: PendingSlot['type'], extra: Partial<PendingSlot> = {}): PendingSlot => ({
  name: 'answer',
  type,
  ...extra,
});

describe('matchPendingSlot', () => {
  it.each([
    ['2026-03-04', '2026-03-04'],
    ['let us do 4 March 2026', '4 March 2026'],
    ['March 4th works', 'March 4th'],
    ['tomorrow please', 'tomorrow'],
    ['next friday', 'next friday'],
    ['04/03/2026', '04/03/2026'],
  ])('date: %s', (text, value) => {
    expect(matchPendingSlot(slot('date'), text)).toEqual({ value });
  });

  it.each(['can you check the build logs?', 'maybe', 'the 5 tests failed'])('date rejects %s', (text) => {
    expect(matchPendingSlot(slot('date'), text)).toBeNull();
  });

  it.each([
    ['at 14:30', '14:30'],
    ['3pm', '3pm'],
    ['around 9:05 am', '9:05 am'],
    ['noon', 'noon'],
  ])('time: %s', (text, value) => {
    expect(matchPendingSlot(slot('time'), text)).toEqual({ value });
  });

  it('time rejects plain numbers and unrelated requests', () => {
    expect(matchPendingSlot(slot('time'), 'send 25 copies')).toBeNull();
    expect(matchPendingSlot(slot('time'), 'what is the weather')).toBeNull();
  });

  it('number: digits, decimals with comma, words', () => {
    expect(matchPendingSlot(slot('number'), '42')).toEqual({ value: '42' });
    expect(matchPendingSlot(slot('number'), 'about 3,5 kg')).toEqual({ value: '3.5' });
    expect(matchPendingSlot(slot('number'), 'seven')).toEqual({ value: '7' });
    expect(matchPendingSlot(slot('number'), 'no idea')).toBeNull();
  });

  it('yes/no: short answers only, so a new request is not hijacked', () => {
    expect(matchPendingSlot(slot('yes_no'), 'Yes please')).toEqual({ value: 'yes' });
    expect(matchPendingSlot(slot('yes_no'), 'nope')).toEqual({ value: 'no' });
    expect(matchPendingSlot(slot('yes_no'), 'ok')).toEqual({ value: 'yes' });
    expect(
      matchPendingSlot(slot('yes_no'), 'no, but can you check why the deploy of the api failed?'),
    ).toBeNull();
    expect(matchPendingSlot(slot('yes_no'), 'what time is it')).toBeNull();
    expect(matchPendingSlot(slot('yes_no'), 'nothing')).toBeNull();
  });

  it('email', () => {
    expect(matchPendingSlot(slot('email'), 'use sam.lee+ops@example.co.uk')).toEqual({
      value: 'sam.lee+ops@example.co.uk',
    });
    expect(matchPendingSlot(slot('email'), 'sam at example')).toBeNull();
  });

  it('choice: exact, by position, or one named choice in a short message', () => {
    const s = slot('choice', { choices: ['Blue', 'Green', 'Light blue'] });
    expect(matchPendingSlot(s, 'green')).toEqual({ value: 'Green' });
    expect(matchPendingSlot(s, '2')).toEqual({ value: 'Green' });
    expect(matchPendingSlot(s, 'option 3')).toEqual({ value: 'Light blue' });
    expect(matchPendingSlot(s, 'I think green')).toEqual({ value: 'Green' });
    expect(matchPendingSlot(s, 'light blue')).toEqual({ value: 'Light blue' });
    // Two choices named: ambiguous.
    expect(matchPendingSlot(s, 'blue or green?')).toBeNull();
    expect(matchPendingSlot(s, '9')).toBeNull();
    expect(matchPendingSlot(s, 'please summarize the thread about the release plan for me')).toBeNull();
  });

  it('regex: whole message, invalid pattern never matches', () => {
    expect(matchPendingSlot(slot('regex', { pattern: 'PRJ-\\d+' }), ' PRJ-123 ')).toEqual({
      value: 'PRJ-123',
    });
    expect(matchPendingSlot(slot('regex', { pattern: 'PRJ-\\d+' }), 'see PRJ-123')).toBeNull();
    expect(matchPendingSlot(slot('regex', { pattern: '(' }), '(')).toBeNull();
    expect(isValidSlotPattern('(')).toBe(false);
    expect(isValidSlotPattern('a+')).toBe(true);
  });

  it('regex: patterns that backtrack catastrophically answer at once (linear-time engine)', () => {
    // With a backtracking engine `(a+)+` blocked the process 4 s on 29 characters; each of these
    // on 10 kB would not finish. The bound is loose on purpose: it only separates linear from
    // exponential (about 10 ms each measured here; docs/benchmarks.md), in CPU time, which a loaded
    // machine does not stretch.
    const long = 'a'.repeat(10_000);
    for (const [pattern, text, matches] of [
      ['(a+)+b', long, false],
      ['(a|a)*$', `${long}!`, false],
      ['(.*a){20}', long, true],
      ['(a+)+', `${long}b`, false],
    ] as const) {
      const { value: result, cpuMs } = cpuTimed(() => matchPendingSlot(slot('regex', { pattern }), text));
      expect(result !== null, pattern).toBe(matches);
      expect(cpuMs, pattern).toBeLessThan(1_000);
    }
  });

  it('built-in types answer a hostile message in linear time', () => {
    // The email pattern rescanned the rest of the text from every start position: 100 kB of
    // "a.a.a." took ~5 s and 400 kB (the largest message a context call takes) ~90 s.
    for (const type of ['email', 'date', 'time', 'number', 'yes_no', 'choice'] as const) {
      for (const text of ['a.'.repeat(50_000), 'a@'.repeat(50_000), '1'.repeat(100_000)]) {
        const { cpuMs } = cpuTimed(() =>
          matchPendingSlot(slot(type, { choices: ['staging', 'production'] }), text),
        );
        expect(cpuMs, `${type} on ${text.slice(0, 4)}…`).toBeLessThan(1_000);
      }
    }
    expect(matchPendingSlot(slot('email'), 'send it to ana.b+x@mail.example.co.uk please')).toEqual({
      value: 'ana.b+x@mail.example.co.uk',
    });
    expect(matchPendingSlot(slot('email'), 'no address here@all')).toBeNull();
  });

  it('regex: backreferences and lookaround are refused (RE2 syntax), and a stored one never matches', () => {
    for (const pattern of ['(a)\\1', '(?=a)a', '(?<!x)a', 'a(?!b)']) {
      expect(isValidSlotPattern(pattern), pattern).toBe(false);
      expect(matchPendingSlot(slot('regex', { pattern }), 'aa')).toBeNull();
    }
    expect(isValidSlotPattern('^ORD-\\d{5}(?:-[A-Z]{2})?$')).toBe(true);
    expect(matchPendingSlot(slot('regex', { pattern: 'ORD-\\d{5}(?:-[A-Z]{2})?' }), 'ORD-12345-EU')).toEqual({
      value: 'ORD-12345-EU',
    });
  });

  it('an expired slot never matches; empty text never matches', () => {
    const s = slot('yes_no', { expires_at: '2026-01-01T00:00:00Z' });
    expect(matchPendingSlot(s, 'yes', new Date('2026-01-02T00:00:00Z'))).toBeNull();
    expect(matchPendingSlot(s, 'yes', new Date('2025-12-31T00:00:00Z'))).toEqual({ value: 'yes' });
    expect(matchPendingSlot(slot('number'), '   ')).toBeNull();
  });
});
