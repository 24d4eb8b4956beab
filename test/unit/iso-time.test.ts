import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/shared/iso-time.js';

const dateIso = (ms: number) => {
  try {
    return new Date(ms).toISOString();
  } catch (error) {
    return `throws ${(error as Error).constructor.name}`;
  }
};
const ours = (ms: number) => {
  try {
    return isoTime(ms);
  } catch (error) {
    return `throws ${(error as Error).constructor.name}`;
  }
};

describe('isoTime', () => {
  it('writes what toISOString writes at the edges', () => {
    for (const ms of [
      0,
      -0,
      -1,
      -0.5,
      0.5,
      0.999,
      1.5,
      999.999,
      951_782_400_000,
      951_868_800_000,
      4_107_542_400_000,
      946_684_799_999.9,
      1_735_734_630_123.456,
      253_402_300_799_999,
      253_402_300_799_999.9,
      253_402_300_800_000,
      8.64e15,
      8.64e15 + 1,
      -8.64e15,
      -62_135_596_800_000,
      NaN,
      Infinity,
      -Infinity,
    ])
      expect(ours(ms), String(ms)).toBe(dateIso(ms));
  });

  it('writes each day of 1970–2200 and the year and leap-day edges to 9999 as toISOString does', () => {
    const days: number[] = [];
    for (let d = 0; d < 84_000; d += 1) days.push(d);
    for (let year = 2200; year <= 9999; year += 1)
      for (const [month, day] of [
        [0, 1],
        [1, 28],
        [1, 29],
        [2, 1],
        [11, 31],
      ] as const)
        days.push(Date.UTC(year, month, day) / 86_400_000);
    let bad = 0;
    for (const d of days) {
      const first = d * 86_400_000;
      const last = first + 86_399_999.5;
      if (isoTime(first) !== new Date(first).toISOString()) bad += 1;
      if (isoTime(last) !== new Date(last).toISOString()) bad += 1;
    }
    expect(bad).toBe(0);
  });

  it('writes random instants as toISOString does', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const bad: number[] = [];
    for (let i = 0; i < 50_000; i += 1) {
      const ms = random() * 3e14 - 2e13;
      if (ours(ms) !== dateIso(ms)) bad.push(ms);
    }
    expect(bad).toEqual([]);
  });
});
