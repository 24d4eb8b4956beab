// ChannelSnapshot (docs/design.md §6.4): the anchor message in full plus a compact window of the
// top-level messages before it. Pure: everything time-relative is relative to the anchor.
import type { MediaRefInput } from './channel-events.js';
import type { MessageState } from './ingest-apply.js';
import { snippet } from '../../../shared/text-cut.js';

export const SNAPSHOT_SCHEMA_VERSION = '1.0';
export const DEFAULT_ADJACENT_COUNT = 20;
export const SNIPPET_CHARS = 150;
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
>;

export interface Author {
  user_id: string;
  display_name: string;
  is_bot: boolean;
}

export interface AdjacentMessage {
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

export const isoTime = (ms: number) => new Date(ms).toISOString();

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

export interface SnapshotInput {
  channel: { id: string; name: string | null; platform: string };
  anchor: SnapshotMessage;
  /** Top-level messages before the anchor, any order; the nearest `adjacentCount` are kept. */
  adjacent: SnapshotMessage[];
  /** Per adjacent message id: replies in (anchor − 1 h, anchor]. */
  repliesLastHour: ReadonlyMap<string, number>;
  adjacentCount?: number;
  snippetChars?: number;
}

export function buildChannelSnapshot(input: SnapshotInput): ChannelSnapshot {
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
  return {
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
}

/** The window for replies_last_1h: (anchor − 1 h, anchor]. */
export const lastHourWindow = (anchorTs: number) => ({ from: anchorTs - HOUR_MS, to: anchorTs });
