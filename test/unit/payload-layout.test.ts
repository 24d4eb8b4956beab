// The replay layout (src/modules/context/core/payload-layout.ts): splitting a payload's JSON text
// into layout and parts and joining them back gives the same bytes, for any JSON object.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPayload, sha256Hex, splitPayload } from '../../src/modules/context/core/payload-layout.js';

const roundTrip = (text: string) => {
  const { layout, parts } = splitPayload(text);
  return joinPayload(
    layout,
    parts.map((p) => p.body),
  );
};

describe('payload layout', () => {
  it('rebuilds any JSON object byte for byte', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.array(fc.jsonValue()))),
        (payload) => {
          const text = JSON.stringify(payload);
          expect(roundTrip(text)).toBe(text);
        },
      ),
      { numRuns: 500, seed: 14 },
    );
  });

  it('keeps the awkward cases: integer-like keys, escapes, lone surrogates, numbers, empty arrays', () => {
    const payload = {
      model: 'm',
      '10': 1,
      '2': [{ b: 1, a: 2, '1': 0 }],
      system: [{ type: 'text', text: 'line\nbreak \u2028 "quoted" \\ \u0000 \ud800 é 😀' }],
      messages: [],
      n: [1e21, 5e-324, -0, 0.1 + 0.2, 123456789012345680000],
      tools: [{ name: 't', input_schema: { type: 'object', properties: { '0': { type: 'string' } } } }],
    };
    const text = JSON.stringify(payload);
    expect(roundTrip(text)).toBe(text);
  });

  it('stores each array element once by the SHA-256 of its JSON text, in payload order', () => {
    const block = { type: 'text', text: 'You are helpful.' };
    const text = JSON.stringify({ system: [block, block], messages: [{ role: 'user', content: 'hi' }] });
    const { layout, parts } = splitPayload(text);
    expect(JSON.parse(layout)).toEqual([
      ['system', 2],
      ['messages', 1],
    ]);
    expect(parts.map((p) => p.body)).toEqual([
      JSON.stringify(block),
      JSON.stringify(block),
      '{"role":"user","content":"hi"}',
    ]);
    expect(parts[0]!.sha256).toBe(sha256Hex(JSON.stringify(block)));
  });

  it('refuses parts that do not match the layout', () => {
    const { layout } = splitPayload('{"messages":[1,2]}');
    expect(() => joinPayload(layout, ['1'])).toThrow(/more parts/);
    expect(() => joinPayload(layout, ['1', '2', '3'])).toThrow(/fewer parts/);
  });
});
