// ThreadContext budgeting (§6.5): root always whole, most recent replies first, a cut reply ends
// the selection, truncation metadata exact at every edge.
import { describe, expect, it } from 'vitest';
import {
  budgetThreadReplies,
  MIN_TRUNCATED_TOKENS,
  REPLY_OVERHEAD_TOKENS,
  type ThreadMessage,
} from '../../src/modules/channels/core/thread-budget.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0);
/** Estimate: one token per character, so costs are easy to compute by hand. */
const estimate = (s: string) => [...s].length;
const m = (id: string, minute: number, text: string): ThreadMessage => ({
  messageId: id,
  ts: T0 + minute * 60_000,
  authorId: 'U',
  authorName: 'U',
  authorIsBot: false,
  text,
  media: [],
  tokenEstimate: estimate(text),
});
const iso = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
const root = m('root', 0, 'r'.repeat(100));
const replies = Array.from({ length: 10 }, (_, i) => m(`r${i + 1}`, i + 1, String(i).repeat(50)));
const cost = (text: string) => estimate(text) + REPLY_OVERHEAD_TOKENS;
const rootCost = cost(root.text);

describe('budgetThreadReplies', () => {
  it('takes every reply when they fit, with no omitted range', () => {
    const t = budgetThreadReplies({ threadId: 'root', root, replies, budget: 100_000, estimate });
    expect(t.replies).toHaveLength(10);
    expect(t.truncation).toEqual({
      total_replies: 10,
      included_replies: 10,
      strategy: 'most_recent',
      omitted_range_ts: null,
    });
    expect(t.token_estimate).toBe(rootCost + 10 * cost(replies[0]!.text));
  });

  it('takes the most recent replies that fit whole, in chronological order', () => {
    const budget = rootCost + 3 * cost(replies[0]!.text);
    const t = budgetThreadReplies({ threadId: 'root', root, replies, budget, estimate });
    expect(t.replies.map((r) => r.message_id)).toEqual(['r8', 'r9', 'r10']);
    expect(t.replies.every((r) => !r.is_truncated)).toBe(true);
    expect(t.truncation).toMatchObject({
      total_replies: 10,
      included_replies: 3,
      omitted_range_ts: [iso(1), iso(7)],
    });
    expect(t.token_estimate).toBe(budget);
  });

  it('cuts the next reply with "…" when room is left, and takes nothing older', () => {
    const room = REPLY_OVERHEAD_TOKENS + 21;
    const budget = rootCost + 2 * cost(replies[0]!.text) + room;
    const t = budgetThreadReplies({ threadId: 'root', root, replies, budget, estimate });
    expect(t.replies.map((r) => r.message_id)).toEqual(['r8', 'r9', 'r10']);
    expect(t.replies[0]).toMatchObject({ is_truncated: true, text: '7'.repeat(20) + '…' });
    expect(t.truncation).toMatchObject({ included_replies: 3, omitted_range_ts: [iso(1), iso(7)] });
    expect(t.token_estimate).toBeLessThanOrEqual(budget);
  });

  it('does not show a cut reply when less than the minimum would remain', () => {
    const budget = rootCost + cost(replies[0]!.text) + REPLY_OVERHEAD_TOKENS + MIN_TRUNCATED_TOKENS - 1;
    const t = budgetThreadReplies({ threadId: 'root', root, replies, budget, estimate });
    expect(t.replies.map((r) => r.message_id)).toEqual(['r10']);
    expect(t.truncation.omitted_range_ts).toEqual([iso(1), iso(9)]);
  });

  it('always keeps the root whole, even over budget, with zero replies', () => {
    for (const budget of [0, 1, rootCost - 1, rootCost]) {
      const t = budgetThreadReplies({ threadId: 'root', root, replies, budget, estimate });
      expect(t.root.text).toBe(root.text);
      expect(t.replies).toEqual([]);
      expect(t.truncation).toMatchObject({
        included_replies: 0,
        total_replies: 10,
        omitted_range_ts: [iso(1), iso(10)],
      });
    }
  });

  it('includes a reply whose cost is exactly the remaining budget', () => {
    const budget = rootCost + cost(replies[9]!.text);
    const t = budgetThreadReplies({ threadId: 'root', root, replies, budget, estimate });
    expect(t.replies.map((r) => [r.message_id, r.is_truncated])).toEqual([['r10', false]]);
  });

  it('handles a thread without replies', () => {
    const t = budgetThreadReplies({ threadId: 'root', root, replies: [], estimate });
    expect(t.truncation).toEqual({
      total_replies: 0,
      included_replies: 0,
      strategy: 'most_recent',
      omitted_range_ts: null,
    });
  });

  it('caps by max_replies and counts replies that were not passed in', () => {
    const t = budgetThreadReplies({
      threadId: 'root',
      root,
      replies: replies.slice(5),
      totalReplies: 10,
      oldestReplyTs: replies[0]!.ts,
      budget: Number.POSITIVE_INFINITY,
      maxReplies: 2,
      estimate,
    });
    expect(t.replies.map((r) => r.message_id)).toEqual(['r9', 'r10']);
    expect(t.truncation).toMatchObject({
      total_replies: 10,
      included_replies: 2,
      omitted_range_ts: [iso(1), iso(8)],
    });
  });

  it('cuts multi-byte replies at grapheme boundaries', () => {
    const emoji = m('e', 20, '👩‍👩‍👧‍👦'.repeat(40));
    const t = budgetThreadReplies({
      threadId: 'root',
      root,
      replies: [emoji],
      budget: rootCost + REPLY_OVERHEAD_TOKENS + 30,
      estimate,
    });
    const text = t.replies[0]!.text;
    expect(t.replies[0]!.is_truncated).toBe(true);
    expect(text.endsWith('…')).toBe(true);
    expect(emoji.text.startsWith(text.slice(0, -1))).toBe(true);
    expect(text.slice(0, -1).length % '👩‍👩‍👧‍👦'.length).toBe(0);
  });
});
