// Neighbour expansion: each retrieved hit's neighbours numbered by their distance from it.
import { describe, expect, it } from 'vitest';
import { neighbourDistances } from '../../src/modules/channels/channels.repository.js';

describe('neighbourDistances', () => {
  it('numbers each hit and side from 1, nearest first, in the order the rows come', () => {
    const rows = [
      { hit_id: 'h1', before: true },
      { hit_id: 'h1', before: true },
      { hit_id: 'h1', before: false },
      { hit_id: 'h2', before: true },
      { hit_id: 'h2', before: false },
      { hit_id: 'h2', before: false },
    ];
    expect(neighbourDistances(rows)).toEqual([1, 2, 1, 1, 1, 2]);
  });

  it('keeps counting a side when rows of other hits come between (a Gather interleaving workers)', () => {
    const rows = [
      { hit_id: 'h1', before: true },
      { hit_id: 'h2', before: true },
      { hit_id: 'h1', before: true },
      { hit_id: 'h2', before: false },
      { hit_id: 'h1', before: false },
      { hit_id: 'h2', before: true },
      { hit_id: 'h1', before: true },
    ];
    expect(neighbourDistances(rows)).toEqual([1, 1, 2, 1, 1, 2, 3]);
  });

  it('reads the side as the driver returns it (boolean or text)', () => {
    expect(
      neighbourDistances([
        { hit_id: 'h', before: 't' },
        { hit_id: 'h', before: 't' },
      ]),
    ).toEqual([1, 2]);
  });
});
