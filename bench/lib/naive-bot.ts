// The bot a contextd user would otherwise write: it resends its whole history on every call, with
// a cache breakpoint on its system prompt and on the last user message; when the payload no longer
// fits the window it drops its oldest exchanges until the payload is at most 60% of the window.
import type Anthropic from '@anthropic-ai/sdk';
import { promptBlocks, type PromptPayload } from '../../src/modules/context/core/prompt-blocks.js';
import type { TokenEstimator } from '../../src/shared/tokens.js';

/** What is left of the window after the naive bot truncates. */
export const NAIVE_KEEP_SHARE = 0.6;
const MARK = { type: 'ephemeral' } as const;

export interface NaiveBot {
  /** The payload the bot sends for this user message (nothing is stored). */
  payload(user: string): PromptPayload;
  /** Stores an exchange: the user message sent and the reply. */
  record(user: string | null, assistant: string | null): void;
  /** Exchanges dropped so far by truncation. */
  dropped(): number;
}

export function createNaiveBot(opts: {
  system: string;
  /** The effective window (the payload's limit), in the estimator's tokens. */
  window: number;
  estimator: TokenEstimator;
}): NaiveBot {
  const history: Anthropic.MessageParam[] = [];
  let dropped = 0;
  const build = (user: string): PromptPayload => ({
    system: [{ type: 'text', text: opts.system, cache_control: MARK }],
    messages: [...history, { role: 'user', content: [{ type: 'text', text: user, cache_control: MARK }] }],
  });
  const tokens = (payload: PromptPayload) =>
    promptBlocks(payload, opts.estimator).reduce((sum, b) => sum + b.tokens, 0);
  /** Drops the oldest exchange: messages up to (not including) the second user message. */
  const dropOldest = () => {
    const next = history.findIndex((m, i) => i > 0 && m.role === 'user');
    history.splice(0, next < 0 ? history.length : next);
    dropped += 1;
  };
  return {
    payload(user) {
      if (tokens(build(user)) > opts.window) {
        while (history.length > 0 && tokens(build(user)) > NAIVE_KEEP_SHARE * opts.window) dropOldest();
      }
      return build(user);
    },
    record(user, assistant) {
      if (user !== null) history.push({ role: 'user', content: [{ type: 'text', text: user }] });
      if (assistant !== null)
        history.push({ role: 'assistant', content: [{ type: 'text', text: assistant }] });
    },
    dropped: () => dropped,
  };
}
