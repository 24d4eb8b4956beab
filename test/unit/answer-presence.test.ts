import { describe, expect, it } from 'vitest';
import { answerItems, answerPresence, statedDates } from '../../bench/lib/answer-presence.js';

describe('answer presence (bench:locomo AP)', () => {
  it('splits an answer into items and keeps their content words', () => {
    expect(answerItems('Pottery, camping and painting').map((i) => i.words)).toEqual([
      ['pottery'],
      ['camping'],
      ['painting'],
    ]);
    expect(answerItems('The week before 9 June 2023')[0]!.date).toEqual({ day: Date.UTC(2023, 5, 9) });
    expect(answerItems('May 2023')[0]!.date).toEqual({ month: '2023-05' });
  });

  it('counts an item present when one unit holds all its content words', () => {
    const units = ['Caroline: I researched adoption agencies today', 'We went camping\nthen pottery class'];
    expect(answerPresence('adoption agencies', units)).toBe(1);
    expect(answerPresence('Pottery, camping, painting', units)).toBeCloseTo(2 / 3, 6);
    // Words spread over two units are not one item present.
    expect(answerPresence('camping agencies', units)).toBe(0);
    expect(answerPresence('', units)).toBeNull();
  });

  it('matches a date within a day of a date the payload states, in any written form', () => {
    expect(answerPresence('The week before 9 June 2023', ['slack #general, 2023-06-08'])).toBe(1);
    expect(answerPresence('9 June 2023', ['we met on June 10, 2023'])).toBe(1);
    expect(answerPresence('9 June 2023', ['[#3 user 2023-06-11] hello'])).toBe(0);
    expect(answerPresence('May 2023', ['on 7 May, 2023 we met'])).toBe(1);
    expect(statedDates('2023-05-07 and 8th May 2023').days).toEqual([
      Date.UTC(2023, 4, 7),
      Date.UTC(2023, 4, 8),
    ]);
  });
});
