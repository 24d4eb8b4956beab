// fast-check arbitraries for ingest convergence: sets of channel events over a few messages (reply
// chains and trees, edits with and without media, deletes, reactions by users and without one, equal times included) and
// deliveries of a set in shuffled order with repeated events, cut into batches.
import fc from 'fast-check';
import type { ChannelEvent } from '../../src/shared/channel-events.js';

/** 2026-01-01T10:00:00Z plus `minute` minutes. */
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

/** Messages in a set, and events of one message at most (create, copy, mention, 3 edits, delete, 5 reactions). */
const MAX_MESSAGES = 6;
const MAX_EVENTS_PER_MESSAGE = 12;
/** The most events an event set holds: what a convergence property's work is bounded by. */
export const MAX_EVENTS_PER_SET = MAX_MESSAGES * MAX_EVENTS_PER_MESSAGE;

const messagePlan = fc.record({
  created: fc.nat({ max: 4 }).map((n) => n > 0),
  /** Index of an earlier message this one replies to, as an offset back; 0 for none. */
  parentBack: fc.constantFrom(0, 1, 1, 1, 2, 3),
  /** Likewise the Slack thread the message is in; 0 for none. */
  threadBack: fc.constantFrom(0, 0, 0, 1, 2),
  /** Media the create carries: none, or one of two files. */
  media: fc.constantFrom(null, 'a.png', 'b.png'),
  edits: fc.array(
    fc.record({
      minute: fc.nat({ max: 4 }),
      text: fc.constantFrom('e1', 'e2', 'e3'),
      /** An edit without media keeps the stored media; one with media replaces it. */
      media: fc.constantFrom(null, null, 'c.png', 'd.png', 'none'),
    }),
    { maxLength: 3 },
  ),
  deleteAt: fc.option(fc.nat({ max: 6 }), { freq: 3 }),
  reactions: fc.array(
    fc.record({
      added: fc.boolean(),
      user: fc.constantFrom('U1', 'U2', null),
      name: fc.constantFrom('eyes', 'tada'),
      /** A display name, as Discord custom emoji (keyed by id) carry; the latest one shows. */
      display: fc.constantFrom(null, null, 'LUL', 'KEK'),
      minute: fc.nat({ max: 4 }),
      withEventId: fc.boolean(),
    }),
    { maxLength: 5 },
  ),
  eventIds: fc.boolean(),
  /** Slack's app_mention for the same message: a second create without the author's name. */
  mention: fc.nat({ max: 3 }).map((n) => n === 0),
});

/**
 * Events of one Slack channel, in their in-order delivery: message i is created at minute 10·i
 * (a reply's parent and thread root are earlier messages, so they come first) and every later event of it
 * within the next minutes. Edits and reactions may share a time. Reactions without a user always
 * carry an event id (the only thing that dedupes them); other events carry one or not. Event ids
 * start with the channel id, so sets of different channels can go to one tenant.
 */
export function eventSet(channelId: string): fc.Arbitrary<ChannelEvent[]> {
  const sets = fc.array(messagePlan, { minLength: 2, maxLength: MAX_MESSAGES }).map((plans) => {
    let nextEventId = 0;
    const eventId = (wanted: boolean) =>
      wanted ? { event_id: `${channelId}.Ev${String(nextEventId++).padStart(3, '0')}` } : {};
    const timed: { minute: number; order: number; event: ChannelEvent }[] = [];
    const push = (minute: number, event: ChannelEvent) => timed.push({ minute, order: timed.length, event });
    const base = { platform: 'slack', channel_id: channelId };
    plans.forEach((plan, i) => {
      const id = `m${i}`;
      const t0 = 10 * i;
      const earlier = (back: number) => (back > 0 && i - back >= 0 ? `m${i - back}` : null);
      const [parent, thread] = [earlier(plan.parentBack), earlier(plan.threadBack)];
      if (plan.created)
        push(t0, {
          type: 'message.created',
          ...base,
          ...eventId(plan.eventIds),
          message_id: id,
          ts: at(t0),
          author: { id: 'U1', name: 'Ana' },
          text: `text ${id}`,
          ...(plan.media ? { media: [{ url: `https://files.example/${plan.media}` }] } : {}),
          ...(parent ? { reply_to_id: parent } : {}),
          ...(thread ? { thread_id: thread } : {}),
        });
      // A reply brings a copy of its parent (Telegram's reply_to_message), as the parent was
      // created: only for parents without edits, whose copy would carry the edited text.
      const parentPlan = parent ? plans[i - plan.parentBack] : undefined;
      if (plan.created && parent && parentPlan && parentPlan.edits.length === 0)
        push(t0, {
          type: 'message.created',
          ...base,
          message_id: parent,
          ts: at(10 * (i - plan.parentBack)),
          author: { id: 'U1', name: 'Ana' },
          text: `text ${parent}`,
          ...(parentPlan.media ? { media: [{ url: `https://files.example/${parentPlan.media}` }] } : {}),
          is_copy: true,
        });
      if (plan.created && plan.mention)
        push(t0, {
          type: 'message.created',
          ...base,
          ...eventId(plan.eventIds),
          message_id: id,
          ts: at(t0),
          author: { id: 'U1' },
          text: `text ${id}`,
          ...(plan.media ? { media: [{ url: `https://files.example/${plan.media}` }] } : {}),
          ...(parent ? { reply_to_id: parent } : {}),
          ...(thread ? { thread_id: thread } : {}),
          metadata: { slack_event: 'app_mention' },
        });
      for (const edit of plan.edits)
        push(t0 + 1 + edit.minute, {
          type: 'message.edited',
          ...base,
          ...eventId(plan.eventIds),
          message_id: id,
          ts: at(t0 + 1 + edit.minute),
          message_ts: at(t0),
          text: edit.text,
          ...(edit.media === 'none'
            ? { media: [] }
            : edit.media
              ? { media: [{ url: `https://files.example/${edit.media}` }] }
              : {}),
        });
      if (plan.deleteAt !== null)
        push(t0 + 1 + plan.deleteAt, {
          type: 'message.deleted',
          ...base,
          ...eventId(plan.eventIds),
          message_id: id,
          ts: at(t0 + 1 + plan.deleteAt),
          message_ts: at(t0),
        });
      for (const r of plan.reactions)
        push(t0 + 1 + r.minute, {
          type: r.added ? 'reaction.added' : 'reaction.removed',
          ...base,
          ...eventId(r.user === null || r.withEventId),
          message_id: id,
          ts: at(t0 + 1 + r.minute),
          message_ts: at(t0),
          reaction: r.name,
          ...(r.display ? { reaction_name: r.display } : {}),
          ...(r.user ? { user_id: r.user } : {}),
        });
    });
    // In order: by time; at equal times as generated (a create first).
    return timed.sort((a, b) => a.minute - b.minute || a.order - b.order).map((t) => t.event);
  });
  return sets.filter((events) => events.length > 0);
}

/**
 * The events in a random order with some of them repeated (a repeat is the same event, event id
 * included), cut into `batches` consecutive batches, the first never empty (later ones may be).
 * With two or more batches the first event is sent again at the end of the last batch, so a
 * repeat always crosses batches.
 */
export function shuffledDelivery(events: ChannelEvent[], batches = 1): fc.Arbitrary<ChannelEvent[][]> {
  return fc
    .tuple(
      fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
      fc.array(fc.nat({ max: events.length - 1 }), { maxLength: Math.max(1, events.length >> 1) }),
      fc.array(fc.integer({ min: 1, max: events.length }), {
        minLength: batches - 1,
        maxLength: batches - 1,
      }),
    )
    .chain(([order, repeated, cuts]) =>
      fc
        .array(fc.nat({ max: order.length + repeated.length }), {
          minLength: repeated.length,
          maxLength: repeated.length,
        })
        .map((positions) => {
          const sequence = [...order];
          repeated.forEach((index, k) => sequence.splice(positions[k]!, 0, events[index]!));
          const bounds = [
            0,
            ...cuts.map((c) => Math.min(c, sequence.length)).sort((a, b) => a - b),
            sequence.length,
          ];
          const cut = bounds.slice(1).map((end, k) => sequence.slice(bounds[k], end));
          if (cut.length > 1 && sequence.length > 0) cut[cut.length - 1]!.push(sequence[0]!);
          return cut;
        }),
    );
}
