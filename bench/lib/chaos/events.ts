// The chaos harness's traffic: a seeded history of channel events in the order they happened
// (top-level messages, thread replies, reply chains, edits, deletes, reactions with and without a
// user), and the final state that history must end in, computed with the ingest state machine.
import type { ChannelEvent } from '../../../src/shared/channel-events.js';
import {
  applyChannelEvent,
  type ApplyContext,
  type MessageState,
} from '../../../src/modules/channels/core/ingest-apply.js';
import { rng } from '../measure.js';

export const CHAOS_PLATFORM = 'slack';

const WORDS =
  'deploy rollout staging tonight migration failed logs check 🚀 日本語 ok ship friday review'.split(' ');

/**
 * `count` events of `channels` channels, in happening order (strictly increasing `ts`). Every
 * reaction without a user carries an event id (only the id makes its redelivery a duplicate);
 * about a fifth of the other events carry none and rely on their natural keys.
 */
export function chaosHistory(count: number, seed: number, channels = 8): ChannelEvent[] {
  const random = rng(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const text = () => Array.from({ length: 2 + Math.floor(random() * 8) }, () => pick(WORDS)).join(' ');
  const users = Array.from({ length: 12 }, (_, i) => `U${i}`);
  const reactionNames = ['eyes', 'white_check_mark', '👍', 'tada'];
  // Per channel: messages that exist (not deleted), thread roots, and per (message, reaction, user) on/off.
  const live: Record<string, string[]> = {};
  const roots: Record<string, string[]> = {};
  const reacted = new Map<string, boolean>();
  const anonymous = new Map<string, number>();
  let clock = Date.UTC(2026, 0, 1);
  let n = 0;
  const events: ChannelEvent[] = [];
  while (events.length < count) {
    clock += 1 + Math.floor(random() * 3000);
    const ts = new Date(clock).toISOString();
    const channel_id = `C${Math.floor(random() * channels)}`;
    const messages = (live[channel_id] ??= []);
    const threadRoots = (roots[channel_id] ??= []);
    const base = { platform: CHAOS_PLATFORM, channel_id, ts };
    const roll = random();
    let event: ChannelEvent;
    if (messages.length < 3 || roll < 0.5) {
      n += 1;
      const message_id = `m${n}`;
      const kind = random();
      const placement =
        kind < 0.2 && threadRoots.length > 0
          ? { thread_id: pick(threadRoots) }
          : kind < 0.4 && messages.length > 0
            ? { reply_to_id: pick(messages) }
            : {};
      if (!('thread_id' in placement) && !('reply_to_id' in placement) && random() < 0.3)
        threadRoots.push(message_id);
      messages.push(message_id);
      event = {
        type: 'message.created',
        ...base,
        message_id,
        ...placement,
        author: { id: pick(users), name: 'someone' },
        text: text(),
      };
    } else if (roll < 0.62) {
      event = { type: 'message.edited', ...base, message_id: pick(messages), text: `edited ${text()}` };
    } else if (roll < 0.67) {
      const message_id = pick(messages);
      messages.splice(messages.indexOf(message_id), 1);
      const rootAt = threadRoots.indexOf(message_id);
      if (rootAt >= 0) threadRoots.splice(rootAt, 1);
      event = { type: 'message.deleted', ...base, message_id };
    } else if (roll < 0.9) {
      const message_id = pick(messages);
      const reaction = pick(reactionNames);
      const user_id = pick(users);
      const key = `${channel_id}/${message_id}/${reaction}/${user_id}`;
      const on = reacted.get(key) ?? false;
      reacted.set(key, !on);
      event = { type: on ? 'reaction.removed' : 'reaction.added', ...base, message_id, reaction, user_id };
    } else {
      const message_id = pick(messages);
      const reaction = pick(reactionNames);
      const key = `${channel_id}/${message_id}/${reaction}`;
      const current = anonymous.get(key) ?? 0;
      const add = current === 0 || random() < 0.6;
      anonymous.set(key, current + (add ? 1 : -1));
      event = { type: add ? 'reaction.added' : 'reaction.removed', ...base, message_id, reaction };
    }
    const needsId = (event.type === 'reaction.added' || event.type === 'reaction.removed') && !event.user_id;
    if (needsId || random() < 0.8) event.event_id = `ev${events.length}`;
    events.push(event);
  }
  return events;
}

/** The final state per `channel/message` after applying `events` once each, in the given order. */
export function expectedState(events: ChannelEvent[]): Map<string, MessageState> {
  const contexts = new Map<string, ApplyContext>();
  for (const event of events) {
    let ctx = contexts.get(event.channel_id);
    if (!ctx) {
      ctx = { messages: new Map(), replyLinks: new Map(), estimate: (t) => t.length };
      contexts.set(event.channel_id, ctx);
    }
    applyChannelEvent(ctx, event);
  }
  const out = new Map<string, MessageState>();
  for (const [channel, ctx] of contexts) {
    for (const [id, state] of ctx.messages) out.set(`${channel}/${id}`, state);
  }
  return out;
}
