// ThreadContext (docs/design.md §6.5): the root in full, then replies from the most recent backwards
// until the token budget is spent. A reply that does not fit whole is cut with "…" and nothing
// older is taken. One pure function, so the policy is easy to tune or replace.
import type { MediaRefInput } from '../../../shared/channel-events.js';
import type { MessageState } from './ingest-apply.js';
import { authorOf, isoTime, type Author } from './snapshot.js';
import { cutToBudget } from '../../../shared/text-cut.js';
import { addTextCost, shownTokens, type TextCost } from '../../../shared/text-cost.js';

const THREAD_SCHEMA_VERSION = '1.0';
export const DEFAULT_THREAD_BUDGET = 8000;
/** Tokens a reply costs besides its text: ids, time, author and JSON punctuation. */
export const REPLY_OVERHEAD_TOKENS = 24;
/** A cut reply shorter than this is not worth showing: stop instead. */
export const MIN_TRUNCATED_TOKENS = 8;

export type ThreadMessage = Pick<
  MessageState,
  'messageId' | 'ts' | 'authorId' | 'authorName' | 'authorIsBot' | 'text' | 'media' | 'tokenEstimate'
>;

interface ThreadReply {
  message_id: string;
  ts: string;
  author: Author;
  text: string;
  is_truncated: boolean;
  media: MediaRefInput[];
}

export interface ThreadContext {
  schema_version: typeof THREAD_SCHEMA_VERSION;
  thread_id: string;
  root: { message_id: string; ts: string; author: Author; text: string; media: MediaRefInput[] };
  replies: ThreadReply[];
  truncation: {
    total_replies: number;
    included_replies: number;
    strategy: 'most_recent';
    omitted_range_ts: [string, string] | null;
  };
  /** Tokens this context is estimated to cost (the sum the budget was checked against). */
  token_estimate: number;
}

interface ThreadBudgetInput {
  threadId: string;
  root: ThreadMessage;
  /** Replies in chronological order (the newest ones at least; older may be left out). */
  replies: ThreadMessage[];
  /** Replies in the thread, counting ones not passed in (older than `replies[0]`). */
  totalReplies?: number;
  /** Time of the oldest reply in the thread when older replies were not passed in. */
  oldestReplyTs?: number;
  budget?: number;
  /** Cap on replies regardless of tokens (channel_messages' max_replies). */
  maxReplies?: number;
  /** Token estimate of a cut text (the stored estimates are used for whole texts). */
  estimate(text: string): number;
}

const replyOf = (m: ThreadMessage, text: string, truncated: boolean): ThreadReply => ({
  message_id: m.messageId,
  ts: isoTime(m.ts),
  author: authorOf(m),
  text,
  is_truncated: truncated,
  media: m.media,
});

export function budgetThreadReplies(input: ThreadBudgetInput): ThreadContext {
  const budget = Math.max(0, input.budget ?? DEFAULT_THREAD_BUDGET);
  const maxReplies = input.maxReplies ?? Number.POSITIVE_INFINITY;
  const { root, replies } = input;
  const total = Math.max(input.totalReplies ?? replies.length, replies.length);
  const rootCost = root.tokenEstimate + REPLY_OVERHEAD_TOKENS;
  let remaining = budget - rootCost;
  let used = rootCost;
  const picked: ThreadReply[] = [];
  for (let i = replies.length - 1; i >= 0 && picked.length < maxReplies; i -= 1) {
    const reply = replies[i]!;
    const cost = reply.tokenEstimate + REPLY_OVERHEAD_TOKENS;
    if (cost <= remaining) {
      picked.push(replyOf(reply, reply.text, false));
      remaining -= cost;
      used += cost;
      continue;
    }
    const room = remaining - REPLY_OVERHEAD_TOKENS;
    if (room >= MIN_TRUNCATED_TOKENS) {
      const cut = cutToBudget(reply.text, room, input.estimate);
      if (cut !== null) {
        picked.push(replyOf(reply, cut, true));
        used += input.estimate(cut) + REPLY_OVERHEAD_TOKENS;
      }
    }
    break;
  }
  picked.reverse();
  const omittedCount = total - picked.length;
  let omitted: [string, string] | null = null;
  if (omittedCount > 0) {
    // Omitted replies are exactly the ones older than the oldest included reply.
    const newestOmitted = replies[replies.length - picked.length - 1];
    const oldestOmittedTs = input.oldestReplyTs ?? replies[0]?.ts;
    if (newestOmitted && oldestOmittedTs !== undefined) {
      omitted = [isoTime(Math.min(oldestOmittedTs, newestOmitted.ts)), isoTime(newestOmitted.ts)];
    }
  }
  return {
    schema_version: THREAD_SCHEMA_VERSION,
    thread_id: input.threadId,
    root: {
      message_id: root.messageId,
      ts: isoTime(root.ts),
      author: authorOf(root),
      text: root.text,
      media: root.media,
    },
    replies: picked,
    truncation: {
      total_replies: total,
      included_replies: picked.length,
      strategy: 'most_recent',
      omitted_range_ts: omitted,
    },
    token_estimate: used,
  };
}

/** What the thread's texts cost, from the stored estimates of its messages (src/shared/text-cost.ts). */
export function threadTextCost(thread: ThreadContext, messages: readonly ThreadMessage[]): TextCost {
  const byId = new Map(messages.map((m) => [m.messageId, m]));
  const cost: TextCost = { chars: 0, tokens: 0 };
  for (const shown of [thread.root, ...thread.replies]) {
    const stored = byId.get(shown.message_id);
    // Unknown text stays in the structure's share: overestimated, never under.
    if (stored) addTextCost(cost, shown.text, shownTokens(stored, shown.text));
  }
  return cost;
}

/** A thread read's token budget: max_replies alone (channel_messages) caps by count, else the budget applies. */
export const threadBudgetOf = (options: { budget?: number; maxReplies?: number }) =>
  options.budget ?? (options.maxReplies !== undefined ? Number.POSITIVE_INFINITY : DEFAULT_THREAD_BUDGET);

/**
 * The newest replies a thread read asks for: no more can fit than budget / overhead, and one extra
 * tells where the omitted range ends (Infinity: every reply).
 */
export function threadReadLimit(options: { budget?: number; maxReplies?: number }): number {
  const budget = threadBudgetOf(options);
  const fit = Number.isFinite(budget)
    ? Math.floor(Math.max(0, budget) / REPLY_OVERHEAD_TOKENS) + 1
    : Infinity;
  return Math.min(options.maxReplies ?? Infinity, fit) + 1;
}
