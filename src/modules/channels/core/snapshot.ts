// ChannelSnapshot (docs/design.md §6.4): the anchor message in full plus a compact window of the
// top-level messages before it. Pure: everything time-relative is relative to the anchor.
import type { MediaRefInput } from '../../../shared/channel-events.js';
import type { MessageState } from './ingest-apply.js';
import { cutToBudget, snippet } from '../../../shared/text-cut.js';
import { addTextCost, renderedTokens, shownTokens, type TextCost } from '../../../shared/text-cost.js';
import { isoTime } from '../../../shared/iso-time.js';
import { rememberJson } from '../../../shared/json-text.js';

const SNAPSHOT_SCHEMA_VERSION = '1.0';
export const DEFAULT_ADJACENT_COUNT = 20;
const SNIPPET_CHARS = 150;
/**
 * Tokens the snapshot's JSON may take when assembly attaches it (docs/design.md §6.4: ≈500–1,500
 * with its header line): adjacency is trimmed from the oldest message, then the anchor's text is
 * cut. The thread context has its own budget (THREAD_BUDGET).
 */
export const DEFAULT_SNAPSHOT_BUDGET = 1_400;
/** Share of the snapshot budget the anchor's own text may keep when it alone is too long. */
const ANCHOR_TEXT_SHARE = 0.6;
const HOUR_MS = 3_600_000;

export type SnapshotMessage = Pick<
  MessageState,
  | 'messageId'
  | 'ts'
  | 'authorId'
  | 'authorName'
  | 'authorIsBot'
  | 'text'
  | 'media'
  | 'threadId'
  | 'topicId'
  | 'replyCount'
  | 'lastReplyTs'
  | 'reactions'
> & {
  /** The text's estimate stored at write time: with it, the snapshot is sized without a count. */
  tokenEstimate?: number;
};

export interface Author {
  user_id: string;
  display_name: string;
  is_bot: boolean;
}

interface AdjacentMessage {
  message_id: string;
  ts: string;
  author: Author;
  snippet: string;
  thread_activity: { reply_count: number; replies_last_1h: number; last_reply_ts: string | null } | null;
  has_media: boolean;
  reactions: string[];
}

export interface ChannelSnapshot {
  schema_version: typeof SNAPSHOT_SCHEMA_VERSION;
  channel: { id: string; name: string; platform: string };
  anchor: {
    message_id: string;
    ts: string;
    author: Author;
    text: string;
    media: MediaRefInput[];
    thread_id: string | null;
  };
  adjacent: AdjacentMessage[];
}

/** `new Date(ms).toISOString()`, without the Date (src/shared/iso-time.ts). */
export { isoTime };

export function authorOf(m: Pick<MessageState, 'authorId' | 'authorName' | 'authorIsBot'>): Author {
  const id = m.authorId ?? '';
  return { user_id: id, display_name: m.authorName ?? id, is_bot: m.authorIsBot };
}

/** `":name: count"`, most used first, then by name; `:` is not doubled for names that carry it. */
export function formatReactions(reactions: Record<string, number>): string[] {
  return Object.entries(reactions)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, n]) => `:${name.replace(/^:|:$/g, '')}: ${n}`);
}

/** The thread a message belongs to, for display: its thread or topic id. */
export const threadIdOf = (m: Pick<MessageState, 'threadId' | 'topicId'>) => m.threadId ?? m.topicId ?? null;

interface SnapshotInput {
  channel: { id: string; name: string | null; platform: string };
  anchor: SnapshotMessage;
  /** Top-level messages before the anchor, any order; the nearest `adjacentCount` are kept. */
  adjacent: SnapshotMessage[];
  /** Per adjacent message id: replies in (anchor − 1 h, anchor]. */
  repliesLastHour: ReadonlyMap<string, number>;
  adjacentCount?: number;
  snippetChars?: number;
  /** Cap on the snapshot's JSON (tokens by `estimate`); none when absent. */
  budget?: { tokens: number; estimate: (text: string) => number };
}

export function buildChannelSnapshot(input: SnapshotInput): ChannelSnapshot {
  return channelSnapshotOf(input).snapshot;
}

/**
 * The snapshot and what its texts cost (null when a message has no stored estimate): assembly sums
 * the stored estimates instead of counting the rendered block (src/shared/text-cost.ts).
 */
export function channelSnapshotOf(input: SnapshotInput): {
  snapshot: ChannelSnapshot;
  textCost: TextCost | null;
} {
  const { anchor } = input;
  const count = input.adjacentCount ?? DEFAULT_ADJACENT_COUNT;
  const chars = input.snippetChars ?? SNIPPET_CHARS;
  const before = input.adjacent
    .filter(
      (m) =>
        m.messageId !== anchor.messageId &&
        (m.ts < anchor.ts || (m.ts === anchor.ts && m.messageId < anchor.messageId)),
    )
    .sort((a, b) => b.ts - a.ts || (a.messageId < b.messageId ? 1 : -1))
    .slice(0, count)
    .reverse();
  const full: ChannelSnapshot = {
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    channel: {
      id: input.channel.id,
      name: input.channel.name ?? input.channel.id,
      platform: input.channel.platform,
    },
    anchor: {
      message_id: anchor.messageId,
      ts: isoTime(anchor.ts),
      author: authorOf(anchor),
      text: anchor.text,
      media: anchor.media,
      thread_id: threadIdOf(anchor),
    },
    adjacent: before.map((m) => ({
      message_id: m.messageId,
      ts: isoTime(m.ts),
      author: authorOf(m),
      snippet: snippet(m.text, chars),
      thread_activity:
        m.replyCount > 0
          ? {
              reply_count: m.replyCount,
              replies_last_1h: input.repliesLastHour.get(m.messageId) ?? 0,
              last_reply_ts: m.lastReplyTs === null ? null : isoTime(m.lastReplyTs),
            }
          : null,
      has_media: m.media.length > 0,
      reactions: formatReactions(m.reactions),
    })),
  };
  const stored = [anchor, ...before].every((m) => m.tokenEstimate !== undefined);
  const snapshot = input.budget
    ? fitSnapshot(
        full,
        input.budget.tokens,
        (json, m, shown) =>
          // Measured as rendered: "<", ">" and "&" become \u escapes in the block (docs/assembly.md).
          stored
            ? renderedTokens(renderedLength(json), { chars: shown.length, tokens: textTokens(m, shown) })
            : input.budget!.estimate(json.replace(/[<>&]/g, '\\u003c')) + 1,
        anchor,
        before,
      )
    : full;
  if (!stored) return { snapshot, textCost: null };
  const cost = addTextCost(
    { chars: 0, tokens: 0 },
    snapshot.anchor.text,
    textTokens(anchor, snapshot.anchor.text),
  );
  const kept = before.slice(before.length - snapshot.adjacent.length);
  snapshot.adjacent.forEach((a, i) => addTextCost(cost, a.snippet, textTokens(kept[i]!, a.snippet)));
  return { snapshot, textCost: cost };
}

/** A stored message's estimate for the part of its text shown. */
function textTokens(m: SnapshotMessage, shown: string): number {
  return shownTokens({ text: m.text, tokenEstimate: m.tokenEstimate ?? 0 }, shown);
}

const UNSAFE_CHAR = /[<>&]/;

/** Length of JSON as rendered (the \u escapes of "<", ">" and "&" are 6 characters). */
function renderedLength(json: string): number {
  if (!UNSAFE_CHAR.test(json)) return json.length;
  let escapes = 0;
  for (let i = 0; i < json.length; i += 1) {
    const c = json.charCodeAt(i);
    if (c === 60 || c === 62 || c === 38) escapes += 1;
  }
  return json.length + 5 * escapes;
}

/** How the JSON of a snapshot without adjacent messages ends (`adjacent` is its last key). */
const EMPTY_ADJACENT_END = '"adjacent":[]}';

/**
 * The snapshot within `tokens` (`size` of a part: its JSON, the message it shows and that message's
 * text as shown): the anchor's text is cut to at most ANCHOR_TEXT_SHARE of the budget when longer
 * (with "…"; the full text is one channel_messages call away), then adjacent messages are dropped
 * oldest first until the rest fits. Each part is stringified and measured once and summed: the JSON
 * separators make the sum an upper bound within a few tokens. The parts' JSON joined is the
 * snapshot's, remembered for its block (safeJson) so it is not stringified again.
 */
function fitSnapshot(
  snapshot: ChannelSnapshot,
  tokens: number,
  size: (json: string, message: SnapshotMessage, shown: string) => number,
  anchorMessage: SnapshotMessage,
  adjacentMessages: readonly SnapshotMessage[],
): ChannelSnapshot {
  let anchor = snapshot.anchor;
  const anchorRoom = Math.floor(tokens * ANCHOR_TEXT_SHARE);
  if (size(JSON.stringify(anchor.text), anchorMessage, anchor.text) > anchorRoom) {
    const cut = cutToBudget(anchor.text, anchorRoom, (t) => size(JSON.stringify(t), anchorMessage, t));
    anchor = { ...anchor, text: cut ?? '' };
  }
  const head = JSON.stringify({ ...snapshot, anchor, adjacent: [] });
  let total = size(head, anchorMessage, anchor.text);
  const parts = snapshot.adjacent.map((a) => JSON.stringify(a));
  const sizes = snapshot.adjacent.map((a, i) => size(parts[i]!, adjacentMessages[i]!, a.snippet));
  total += sizes.reduce((a, b) => a + b, 0);
  let from = 0;
  while (from < sizes.length && total > tokens) total -= sizes[from++]!;
  const fitted = { ...snapshot, anchor, adjacent: snapshot.adjacent.slice(from) };
  if (head.endsWith(EMPTY_ADJACENT_END)) {
    rememberJson(fitted, `${head.slice(0, -3)}[${parts.slice(from).join(',')}]}`);
  }
  return fitted;
}

/** The window for replies_last_1h: (anchor − 1 h, anchor]. */
export const lastHourWindow = (anchorTs: number) => ({ from: anchorTs - HOUR_MS, to: anchorTs });
