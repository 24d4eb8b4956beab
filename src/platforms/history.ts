// Platform history replies → normalized events, through the same adapters as live events, so a
// backfilled message has the id, lane, text and media a real event would give it (a later event
// of the same message is a duplicate or an edit, never a second message). Pure functions.
// Slack: conversations.history / conversations.replies; Discord: GET /channels/{id}/messages.
// Telegram bots have no history API.
import type { ChannelEvent } from '../shared/channel-events.js';
import { adaptPlatformPayload } from './index.js';
import { isRecord, num, str } from './types.js';

/** Largest page each API allows: conversations.history 999, conversations.replies 1000, Discord 100. */
export const SLACK_HISTORY_MAX_LIMIT = 999;
export const SLACK_REPLIES_MAX_LIMIT = 1000;
export const DISCORD_MESSAGES_MAX_LIMIT = 100;

/** Metadata key of a backfilled root: how many replies the platform said its thread has. */
export const PLATFORM_REPLY_COUNT = 'platform_reply_count';

export interface HistoryPage {
  events: ChannelEvent[];
  /** Messages the platform returned (some may carry nothing to ingest: joins, topic changes). */
  count: number;
  /** Slack: the next cursor; Discord: the oldest id of the page (the next `before`). Null: the end. */
  next: string | null;
}

const adaptedEvents = (platform: 'slack' | 'discord', payload: unknown, receivedAt: Date) => {
  const { result } = adaptPlatformPayload(platform, payload, { receivedAt });
  return result.kind === 'events' ? result.events : [];
};

/** One page of Slack messages (conversations.history or .replies, newest or oldest first) as events. */
export function slackHistoryPage(
  channelId: string,
  page: { messages: readonly unknown[]; nextCursor: string },
  receivedAt: Date,
): HistoryPage {
  const events: ChannelEvent[] = [];
  for (const message of page.messages) {
    if (!isRecord(message)) continue;
    const replyCount = num(message.reply_count);
    const created = adaptedEvents(
      'slack',
      { type: 'event_callback', event: { ...message, type: 'message', channel: channelId } },
      receivedAt,
    ).map((event) =>
      event.type === 'message.created' && replyCount !== undefined
        ? { ...event, metadata: { ...event.metadata, [PLATFORM_REPLY_COUNT]: replyCount } }
        : event,
    );
    events.push(...created);
    // An edited message: its create carries today's text; the edit brings the edit's time, so a
    // late message_changed event of an older edit cannot win over it.
    if (isRecord(message.edited) && created.length > 0) {
      events.push(
        ...adaptedEvents(
          'slack',
          {
            type: 'event_callback',
            event: { type: 'message', subtype: 'message_changed', channel: channelId, message },
          },
          receivedAt,
        ),
      );
    }
  }
  return { events, count: page.messages.length, next: page.nextCursor || null };
}

/**
 * A Discord message list (newest first) as a page of events. `threadId`: the messages of a thread
 * channel, stored in its parent channel with the thread as topic (as the gateway adapter does).
 */
export function discordHistoryPage(
  channelId: string,
  reply: readonly unknown[],
  receivedAt: Date,
  options: { threadId?: string; limit: number },
): HistoryPage {
  const events: ChannelEvent[] = [];
  let oldest: string | null = null;
  for (const message of reply) {
    if (!isRecord(message) || !str(message.id)) continue;
    const id = str(message.id)!;
    if (oldest === null || BigInt(id) < BigInt(oldest)) oldest = id;
    const d = { ...message, channel_id: options.threadId ?? channelId };
    const envelope = (t: string) => ({
      op: 0,
      t,
      d,
      ...(options.threadId ? { parent_channel_id: channelId } : {}),
    });
    // A thread's starter message says how many messages its thread holds.
    const threadCount = isRecord(message.thread) ? num(message.thread.message_count) : undefined;
    events.push(
      ...adaptedEvents('discord', envelope('MESSAGE_CREATE'), receivedAt).map((event) =>
        event.type === 'message.created' && event.message_id === id && threadCount !== undefined
          ? { ...event, metadata: { ...event.metadata, [PLATFORM_REPLY_COUNT]: threadCount } }
          : event,
      ),
    );
    if (str(message.edited_timestamp))
      events.push(...adaptedEvents('discord', envelope('MESSAGE_UPDATE'), receivedAt));
  }
  return { events, count: reply.length, next: reply.length >= options.limit ? oldest : null };
}

/**
 * Calls a backfill of `messages` needs at best: Slack says on the last page that nothing follows
 * (ceil(n / page)); Discord's only sign of the end is a short page, so a last full page costs one
 * more call.
 */
export function minimumCalls(messages: number, pageSize: number, platform: 'slack' | 'discord'): number {
  if (platform === 'slack') return Math.max(1, Math.ceil(messages / pageSize));
  return Math.floor(messages / pageSize) + 1;
}
