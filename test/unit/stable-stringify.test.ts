// The request hash's JSON (keys sorted) is byte for byte what the entry-pair version wrote.
import { describe, expect, it } from 'vitest';
import { stableStringify } from '../../src/http/idempotency/idempotency.service.js';

/** The earlier version: entries filtered, sorted and mapped per object. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
}

const strings = [
  '',
  'plain',
  'q"uote',
  'back\\slash',
  'nl\n\t\r',
  '\u0000\u001f\u007f',
  '😀',
  'lone \ud800 x',
  '\udc00',
  'ü日本',
  '</script>',
];

describe('stableStringify', () => {
  it('writes what the entry-pair version wrote', () => {
    // eslint-disable-next-line no-sparse-arrays -- a hole is one of the cases
    const holes = [1, , 3];
    const values: unknown[] = [
      ...strings,
      ...strings.map((s) => ({ [s]: s })),
      0,
      -0,
      1.5,
      NaN,
      Infinity,
      true,
      null,
      undefined,
      () => 1,
      Symbol('s'),
      [],
      {},
      holes,
      [undefined, () => 1, null],
      { b: 1, a: undefined, c: () => 2, '10': 1, '9': 2, B: 3, _: 4 },
      { z: [{ y: 'x', x: { b: [], a: {} } }], a: new Date(0) },
      {
        events: [
          {
            type: 'message.created',
            text: 'hi "there"',
            author: { name: 'n', id: 'U' },
            metadata: { z: 1, a: [1, 'x'] },
          },
        ],
      },
    ];
    for (const value of values) expect(stableStringify(value)).toBe(reference(value));
  });
});
