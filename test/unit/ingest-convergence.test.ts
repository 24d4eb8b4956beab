// Property: the ingest state machine ends in the in-order state whatever the order of the events
// and however often each is delivered (repeats with an event id dropped, as ingest's dedupe does).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/shared/channel-events.js';
import {
  applyChannelEvent,
  type ApplyContext,
  type MessageState,
} from '../../src/modules/channels/core/ingest-apply.js';
import { eventSet, shuffledDelivery } from '../helpers/event-sets.js';

/** Applies the batches in order; an event id seen before is skipped (ingest's event-id dedupe). */
function deliver(batches: ChannelEvent[][]): ApplyContext {
  const ctx: ApplyContext = { messages: new Map(), replyLinks: new Map(), estimate: (t) => t.length };
  const seen = new Set<string>();
  for (const event of batches.flat()) {
    if (event.event_id) {
      if (seen.has(event.event_id)) continue;
      seen.add(event.event_id);
    }
    applyChannelEvent(ctx, event);
  }
  return ctx;
}

/** Everything a read, a later event or retention depends on. */
const stateOf = (m: MessageState) => ({
  isPlaceholder: m.isPlaceholder,
  ts: m.ts,
  authorId: m.authorId,
  authorName: m.authorName,
  metadata: m.metadata,
  threadId: m.threadId,
  replyToId: m.replyToId,
  text: m.text,
  media: m.media,
  editedAt: m.editedAt,
  deletedAt: m.deletedAt,
  laneKey: m.laneKey,
  replyCount: m.replyCount,
  lastReplyTs: m.lastReplyTs,
  reactions: m.reactions,
  reactionState: m.reactionState,
  tokenEstimate: m.tokenEstimate,
});

const finalState = (ctx: ApplyContext) =>
  Object.fromEntries([...ctx.messages.keys()].sort().map((id) => [id, stateOf(ctx.messages.get(id)!)]));

describe('ingest convergence (property)', () => {
  it('any order, with repeats, ends in the in-order state', () => {
    const cases = eventSet('C').chain((events) => fc.tuple(fc.constant(events), shuffledDelivery(events, 4)));
    fc.assert(
      fc.property(cases, ([events, batches]) => {
        expect(finalState(deliver(batches))).toEqual(finalState(deliver([events])));
      }),
      { numRuns: 10000 },
    );
    // Bounded by the work (10,000 sets of at most MAX_EVENTS_PER_SET events, applied in memory),
    // not by the time: no time limit, so a loaded machine only makes it slower.
  }, 0);
});
