// Lanes (§6.2) as a pure function: precedence, reply chains, hop limit, cycles.
import { describe, expect, it } from 'vitest';
import {
  laneKeyFor,
  MAX_REPLY_HOPS,
  replyChainRoot,
  replyLaneRoot,
  type ReplyLookup,
} from '../../src/modules/channels/core/lanes.js';

const lookupOf =
  (links: Record<string, string | null>): ReplyLookup =>
  (id) =>
    id in links ? { replyToId: links[id] ?? null } : undefined;

describe('laneKeyFor', () => {
  const none = lookupOf({});
  it('puts forum topics first, then Slack threads, then replies, else the channel root', () => {
    const m = { channelId: 'C', messageId: 'm', topicId: 'T', threadId: 'X', replyToId: 'r' };
    expect(laneKeyFor(m, none)).toBe('topic:C:T');
    expect(laneKeyFor({ ...m, topicId: null }, none)).toBe('thread:C:X');
    expect(laneKeyFor({ ...m, topicId: null, threadId: null }, none)).toBe('reply:C:r');
    expect(laneKeyFor({ channelId: 'C', messageId: 'm' }, none)).toBe('root:C');
  });

  it('keeps a thread root (thread_ts equal to its own ts) in the lane it had before replies', () => {
    expect(laneKeyFor({ channelId: 'C', messageId: '1.0', threadId: '1.0' }, none)).toBe('root:C');
  });

  it('roots a reply chain at its first stored message', () => {
    const links = lookupOf({ b: 'a', a: null, c: 'b' });
    expect(laneKeyFor({ channelId: 'C', messageId: 'd', replyToId: 'c' }, links)).toBe('reply:C:a');
    // The chain continues to an unstored message: the last stored one is the root.
    const partial = lookupOf({ c: 'b' });
    expect(laneKeyFor({ channelId: 'C', messageId: 'd', replyToId: 'c' }, partial)).toBe('reply:C:c');
    // Nothing stored: the direct parent, as it will resolve once it arrives.
    expect(laneKeyFor({ channelId: 'C', messageId: 'd', replyToId: 'x' }, none)).toBe('reply:C:x');
  });

  it('follows at most MAX_REPLY_HOPS links', () => {
    const links: Record<string, string | null> = { m0: null };
    for (let i = 1; i <= 200; i += 1) links[`m${i}`] = `m${i - 1}`;
    const root = replyChainRoot('m200', lookupOf(links));
    expect(root).toBe(`m${200 - (MAX_REPLY_HOPS - 1)}`);
  });

  it('keeps chains longer than the hop limit in one lane: a laned parent names its root', () => {
    const laned: ReplyLookup = (id) =>
      id === 'p' ? { replyToId: 'q', laneKey: 'reply:C:first' } : undefined;
    expect(laneKeyFor({ channelId: 'C', messageId: 'm', replyToId: 'p' }, laned)).toBe('reply:C:first');
    // A parent in a thread or the root lane is not a chain root by itself: keep walking.
    const threaded: ReplyLookup = (id) =>
      id === 'p'
        ? { replyToId: 'q', laneKey: 'thread:C:t' }
        : id === 'q'
          ? { replyToId: null, laneKey: 'root:C' }
          : undefined;
    expect(laneKeyFor({ channelId: 'C', messageId: 'm', replyToId: 'p' }, threaded)).toBe('reply:C:q');
  });

  it('stops on a cycle', () => {
    const cyclic = lookupOf({ a: 'b', b: 'a' });
    expect(['a', 'b']).toContain(replyChainRoot('a', cyclic));
    expect(laneKeyFor({ channelId: 'C', messageId: 'self', replyToId: 'self' }, none)).toBe('root:C');
  });

  it('reads the root back from a reply lane key', () => {
    expect(replyLaneRoot('reply:C:a', 'C')).toBe('a');
    expect(replyLaneRoot('thread:C:a', 'C')).toBeNull();
    expect(replyLaneRoot('reply:C2:a', 'C')).toBeNull();
  });
});
