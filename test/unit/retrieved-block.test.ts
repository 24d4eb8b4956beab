import { describe, expect, it } from 'vitest';
import { shortTime } from '../../src/modules/context/core/retrieved-block.js';

/** What shortTime wrote before it cut toISOString's form: the time parsed and written again. */
const parsed = (value: string) => {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
};

describe('shortTime', () => {
  it('cuts what toISOString writes and parses anything else, to the same text', () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    let seed = 11;
    const random = (below: number) =>
      Math.floor(((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * below);
    for (let i = 0; i < 20_000; i += 1) {
      // Out-of-range fields too: Date.parse rolls day 31 of a 30-day month and hour 24 over.
      const value = `${pad(random(10_000), 4)}-${pad(random(14), 2)}-${pad(random(33), 2)}T${pad(random(26), 2)}:${pad(random(62), 2)}:${pad(random(62), 2)}.${pad(random(1_000), 3)}Z`;
      expect(shortTime(value)).toBe(parsed(value));
    }
    for (const value of [
      '2024-02-29T10:00:00.000Z',
      '2023-02-29T10:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2024-04-31T23:59:59.999Z',
      '2024-02-29T24:00:00.000Z',
      '2023-05-08T13:56:03Z',
      '2023-05-08T13:56:03.000+01:00',
      '+002023-05-08T13:56:03.000Z',
      '2023-05-08 13:56:03.000Z',
      '2023-05-08',
      'yesterday',
    ]) {
      expect(shortTime(value)).toBe(parsed(value));
    }
  });
});
