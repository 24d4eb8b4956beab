// Backfill's pure parts: platform history pages as normalized events (through the live adapters),
// when a channel or thread is cold, the notes a failure leaves, and the rate limiter's window.
import { describe, expect, it } from 'vitest';
import {
  discordHistoryPage,
  minimumCalls,
  PLATFORM_REPLY_COUNT,
  slackHistoryPage,
} from '../../src/platforms/history.js';
import {
  backfillFailure,
  channelIsCold,
  staleNote,
  threadIsCold,
} from '../../src/modules/channels/core/backfill-plan.js';
import { limiterWindow } from '../../src/coord/platform-rate-limiter.js';
import type { MessageState } from '../../src/modules/channels/core/ingest-apply.js';

const at = new Date('2026-01-01T00:00:00Z');

describe('Slack history pages', () => {
  it('maps messages as the event adapter does, keeps the platform reply count and the edit', () => {
    const page = slackHistoryPage(
      'C1',
      {
        messages: [
          {
            type: 'message',
            user: 'U1',
            text: 'root',
            ts: '1700000000.000100',
            thread_ts: '1700000000.000100',
            reply_count: 7,
          },
          {
            type: 'message',
            user: 'U2',
            text: 'now',
            ts: '1700000001.000100',
            edited: { user: 'U2', ts: '1700000050.000000' },
          },
          { type: 'message', subtype: 'channel_join', user: 'U3', text: 'joined', ts: '1700000002.000100' },
          'garbage',
        ],
        nextCursor: 'bmV4dA==',
      },
      at,
    );
    expect(page.count).toBe(4);
    expect(page.next).toBe('bmV4dA==');
    const [root, edited, edit] = page.events;
    expect(root).toMatchObject({
      type: 'message.created',
      platform: 'slack',
      channel_id: 'C1',
      message_id: '1700000000.000100',
      thread_id: '1700000000.000100',
      metadata: { [PLATFORM_REPLY_COUNT]: 7 },
    });
    expect(edited).toMatchObject({ type: 'message.created', message_id: '1700000001.000100', text: 'now' });
    expect(edit).toMatchObject({
      type: 'message.edited',
      message_id: '1700000001.000100',
      ts: '2026-01-01T00:00:00.000Z'.replace(
        '2026-01-01T00:00:00.000Z',
        new Date(1700000050000).toISOString(),
      ),
      text: 'now',
    });
    // The join is no conversation; the garbage entry is skipped.
    expect(page.events).toHaveLength(3);
    expect(slackHistoryPage('C1', { messages: [], nextCursor: '' }, at).next).toBeNull();
  });
});

describe('Discord history pages', () => {
  const message = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    channel_id: 'T9',
    type: 0,
    content: `m${id}`,
    timestamp: '2026-01-01T00:00:00.000000+00:00',
    author: { id: 'A1', username: 'ann' },
    ...extra,
  });

  it('places a thread channel’s messages in the parent with the thread as topic; the next before is the oldest id', () => {
    const page = discordHistoryPage(
      'P1',
      [message('300'), message('200', { edited_timestamp: '2026-01-01T00:05:00+00:00' })],
      at,
      {
        threadId: 'T9',
        limit: 2,
      },
    );
    expect(page.next).toBe('200');
    expect(page.events.map((e) => [e.type, e.channel_id, e.message_id])).toEqual([
      ['message.created', 'P1', '300'],
      ['message.created', 'P1', '200'],
      ['message.edited', 'P1', '200'],
    ]);
    expect(page.events[0]).toMatchObject({ thread_id: 'T9', topic_id: 'T9' });
    // A thread's starter message carries its thread's size: the thread is cold until that many are stored.
    const starter = discordHistoryPage(
      'P1',
      [message('400', { channel_id: 'P1', thread: { id: '400', message_count: 9 } })],
      at,
      {
        limit: 100,
      },
    );
    expect(starter.events[0]).toMatchObject({ message_id: '400', metadata: { [PLATFORM_REPLY_COUNT]: 9 } });
    // A short page is the end.
    expect(discordHistoryPage('P1', [message('1')], at, { limit: 100 }).next).toBeNull();
  });

  it('minimum calls: Slack knows the end, Discord needs a short page', () => {
    expect(minimumCalls(10_000, 999, 'slack')).toBe(11);
    expect(minimumCalls(10_000, 1000, 'slack')).toBe(10);
    expect(minimumCalls(10_000, 100, 'discord')).toBe(101);
    expect(minimumCalls(0, 999, 'slack')).toBe(1);
  });
});

describe('coldness', () => {
  const root = (over: Partial<MessageState>): MessageState =>
    ({ isPlaceholder: false, metadata: {}, replyCount: 0, ...over }) as MessageState;

  it('a channel is cold while the snapshot window is not full', () => {
    expect(channelIsCold({ storedBefore: 3, wanted: 20 })).toBe(true);
    expect(channelIsCold({ storedBefore: 20, wanted: 20 })).toBe(false);
  });

  it('a thread is cold without a real root or with fewer replies than the platform said', () => {
    expect(threadIsCold({ root: null, storedReplies: 0 })).toBe(true);
    expect(threadIsCold({ root: root({ isPlaceholder: true }), storedReplies: 3 })).toBe(true);
    expect(threadIsCold({ root: root({ metadata: { [PLATFORM_REPLY_COUNT]: 5 } }), storedReplies: 4 })).toBe(
      true,
    );
    expect(threadIsCold({ root: root({ metadata: { [PLATFORM_REPLY_COUNT]: 5 } }), storedReplies: 5 })).toBe(
      false,
    );
    // Built from events: no platform count, nothing to fetch.
    expect(threadIsCold({ root: root({ replyCount: 2 }), storedReplies: 2 })).toBe(false);
  });

  it('notes say why and that the data may be stale', () => {
    const limited = backfillFailure({ kind: 'rate_limited', details: { retryAfterMs: 11_200 } });
    expect(limited).toEqual({ kind: 'rate_limited', retryAfterMs: 11_200 });
    expect(staleNote('slack', 'thread', limited)).toBe(
      'Thread history could not be fetched from slack (rate limited; retry in 12 s); the thread context shown may be stale.',
    );
    expect(
      staleNote(
        'discord',
        'channel',
        backfillFailure(new Error('discord GET /channels/1/messages: HTTP 500')),
      ),
    ).toContain('(discord GET /channels/1/messages: HTTP 500); the channel context shown may be stale.');
  });
});

describe('limiterWindow', () => {
  it('holds any 60 s at or under the limit with the best sustained rate', () => {
    expect(limiterWindow(40)).toEqual({ points: 3, seconds: 5 });
    for (const perMinute of [2, 3, 10, 39, 40, 41, 100, 600, 6000]) {
      const { points, seconds } = limiterWindow(perMinute);
      // Disjoint windows of `seconds`: any 60 s touches at most 60/seconds + 1 of them.
      expect(points * (60 / seconds + 1)).toBeLessThanOrEqual(perMinute);
      expect(points).toBeGreaterThanOrEqual(1);
    }
    expect(() => limiterWindow(1)).toThrow(RangeError);
  });
});
