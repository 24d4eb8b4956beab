import { describe, expect, it } from 'vitest';
import { promptBlocks } from '../../src/modules/context/core/prompt-blocks.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';
import { createNaiveBot, NAIVE_KEEP_SHARE } from '../../bench/lib/naive-bot.js';

const estimator = createTokenEstimator();
const size = (payload: Parameters<typeof promptBlocks>[0]) =>
  promptBlocks(payload, estimator).reduce((s, b) => s + b.tokens, 0);

describe('naive bot (bench:cost)', () => {
  it('resends its whole history with breakpoints on its system block and the last user message', () => {
    const bot = createNaiveBot({ system: 'You are a bot.', window: 100_000, estimator });
    bot.record('hello', 'hi there');
    const payload = bot.payload('how are you?');
    expect(payload.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const marks = promptBlocks(payload, estimator).map((b) => b.breakpoint ?? null);
    expect(marks).toEqual(['5m', null, null, '5m']);
  });

  it('drops its oldest exchanges down to 60% of the window once the payload does not fit', () => {
    const window = 2_000;
    const bot = createNaiveBot({ system: 'You are a bot.', window, estimator });
    const line = (i: number) => `message ${i}: ${'words about the plan '.repeat(10)}`;
    let truncatedAt = -1;
    for (let i = 0; i < 60; i += 1) {
      const payload = bot.payload(line(i));
      expect(size(payload)).toBeLessThanOrEqual(window);
      if (truncatedAt < 0 && bot.dropped() > 0) {
        truncatedAt = i;
        expect(size(payload)).toBeLessThanOrEqual(NAIVE_KEEP_SHARE * window);
        expect(size(payload)).toBeGreaterThan(NAIVE_KEEP_SHARE * window - 200);
      }
      bot.record(line(i), `answer ${i}`);
    }
    expect(truncatedAt).toBeGreaterThan(0);
  });
});
