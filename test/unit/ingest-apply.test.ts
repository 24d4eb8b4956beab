// The ingest state machine without a database: every order of the same events ends in one state.
import { describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/shared/channel-events.js';
import {
  applyChannelEvent,
  reactionStateOf,
  type ApplyContext,
  type MessageState,
} from '../../src/modules/channels/core/ingest-apply.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
const base = { platform: 'slack', channel_id: 'C' };
const create = (id: string, minute: number, extra: Partial<ChannelEvent> = {}): ChannelEvent =>
  ({
    type: 'message.created',
    ...base,
    message_id: id,
    ts: at(minute),
    author: { id: 'U' },
    text: `text ${id}`,
    ...extra,
  }) as ChannelEvent;
const edit = (id: string, minute: number, text: string): ChannelEvent => ({
  type: 'message.edited',
  ...base,
  message_id: id,
  ts: at(minute),
  text,
});
const del = (id: string, minute: number): ChannelEvent => ({
  type: 'message.deleted',
  ...base,
  message_id: id,
  ts: at(minute),
});
const react = (
  type: 'reaction.added' | 'reaction.removed',
  user: string,
  minute: number,
  name = 'eyes',
): ChannelEvent => ({
  type,
  ...base,
  message_id: 'm',
  ts: at(minute),
  reaction: name,
  user_id: user,
});

function run(events: ChannelEvent[]) {
  const ctx: ApplyContext = { messages: new Map(), replyLinks: new Map(), estimate: (t) => t.length };
  const outcomes = events.map((e) => applyChannelEvent(ctx, e).outcome);
  return { ctx, outcomes };
}

const view = (m: MessageState | undefined) =>
  m && {
    text: m.text,
    isPlaceholder: m.isPlaceholder,
    deleted: m.deletedAt !== null,
    replyCount: m.replyCount,
    lastReplyTs: m.lastReplyTs,
    reactions: m.reactions,
    laneKey: m.laneKey,
    tokenEstimate: m.tokenEstimate,
  };

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

function allOrdersAgree(events: ChannelEvent[]) {
  const states = permutations(events).map((order) => {
    const { ctx } = run(order);
    return JSON.stringify([...ctx.messages.keys()].sort().map((id) => [id, view(ctx.messages.get(id))]));
  });
  expect([...new Set(states)]).toHaveLength(1);
  return JSON.parse(states[0]!) as [string, ReturnType<typeof view>][];
}

describe('applyChannelEvent', () => {
  it('converges for create, two edits and a reaction in every order', () => {
    const final = new Map(
      allOrdersAgree([
        create('m', 1),
        edit('m', 2, 'second'),
        edit('m', 3, 'third'),
        react('reaction.added', 'U1', 4),
      ]),
    );
    expect(final.get('m')).toMatchObject({
      text: 'third',
      isPlaceholder: false,
      reactions: { eyes: 1 },
      tokenEstimate: 5,
    });
  });

  it('converges for a root, two replies and a reply delete in every order', () => {
    const final = new Map(
      allOrdersAgree([
        create('r', 1),
        create('a', 2, { thread_id: 'r' }),
        create('b', 3, { thread_id: 'r' }),
        del('a', 5),
      ]),
    );
    expect(final.get('r')).toMatchObject({ replyCount: 1, isPlaceholder: false });
    expect(final.get('a')).toMatchObject({ deleted: true, text: '' });
  });

  it('converges for add/remove of the same reaction by several users in every order', () => {
    const final = new Map(
      allOrdersAgree([
        create('m', 0),
        react('reaction.added', 'U1', 1),
        react('reaction.removed', 'U1', 2),
        react('reaction.added', 'U2', 3),
        react('reaction.added', 'U3', 4, 'tada'),
      ]),
    );
    expect(final.get('m')!.reactions).toEqual({ eyes: 1, tada: 1 });
  });

  it('keeps a reaction that was added again after a removal, whatever the arrival order', () => {
    // add 10:01, add 10:03, remove 10:02: the add at 10:03 is the last word.
    const { ctx } = run([
      create('m', 0),
      react('reaction.added', 'U1', 1),
      react('reaction.added', 'U1', 3),
      react('reaction.removed', 'U1', 2),
    ]);
    expect(ctx.messages.get('m')!.reactions).toEqual({ eyes: 1 });
    const final = new Map(
      allOrdersAgree([
        create('m', 0),
        react('reaction.added', 'U1', 1),
        react('reaction.added', 'U1', 3),
        react('reaction.removed', 'U1', 2),
      ]),
    );
    expect(final.get('m')!.reactions).toEqual({ eyes: 1 });
  });

  it('roots a reply chain whose middle was deleted first at the chain root, in every order', () => {
    const events = [
      del('b', 9),
      create('b', 3, { reply_to_id: 'a' }),
      create('c', 4, { reply_to_id: 'b' }),
      create('r', 1),
      create('a', 2, { reply_to_id: 'r' }),
    ];
    const { ctx } = run(events);
    expect(['a', 'b', 'c'].map((id) => ctx.messages.get(id)!.laneKey)).toEqual(Array(3).fill('reply:C:r'));
    const final = new Map(allOrdersAgree(events));
    expect(final.get('c')!.laneKey).toBe('reply:C:r');
    expect(final.get('r')!.laneKey).toBe('root:C');
  });

  it('breaks ties of equal reaction times by event id, then by the removal', () => {
    const withId = (e: ChannelEvent, id: string) => ({ ...e, event_id: id }) as ChannelEvent;
    const tied = allOrdersAgree([
      create('m', 0),
      withId(react('reaction.added', 'U1', 1), 'Ev2'),
      withId(react('reaction.removed', 'U1', 1), 'Ev1'),
      react('reaction.added', 'U2', 1),
      react('reaction.removed', 'U2', 1),
    ]);
    // U1: the add has the greater id; U2: no ids, the removal wins.
    expect(new Map(tied).get('m')!.reactions).toEqual({ eyes: 1 });
  });

  it('counts anonymous reactions as net adds and removes, a removal before its add included', () => {
    const anonymous = (type: 'reaction.added' | 'reaction.removed', minute: number, id: string) =>
      ({ ...react(type, 'U0', minute), user_id: undefined, event_id: id }) as ChannelEvent;
    const final = new Map(
      allOrdersAgree([
        create('m', 0),
        anonymous('reaction.removed', 3, 'Ev3'),
        anonymous('reaction.added', 1, 'Ev1'),
        anonymous('reaction.added', 2, 'Ev2'),
      ]),
    );
    expect(final.get('m')!.reactions).toEqual({ eyes: 1 });
    const { ctx, outcomes } = run([create('m', 0), anonymous('reaction.removed', 3, 'Ev3')]);
    expect(outcomes).toEqual(['created', 'ignored']);
    expect(ctx.messages.get('m')!.reactionState.anonymous_reactions).toEqual({ eyes: -1 });
  });

  it('lets the greater text win between edits of the same time, and a delete drop edits and reactions', () => {
    const final = new Map(allOrdersAgree([create('m', 0), edit('m', 2, 'apple'), edit('m', 2, 'pear')]));
    expect(final.get('m')!.text).toBe('pear');
    const deleted = new Map(
      allOrdersAgree([create('m', 0), edit('m', 2, 'x'), react('reaction.added', 'U1', 3), del('m', 1)]),
    );
    expect(deleted.get('m')).toMatchObject({ deleted: true, text: '', reactions: {}, tokenEstimate: 0 });
  });

  it("relanes a thread message's early replies once its reply target arrives", () => {
    const final = new Map(
      allOrdersAgree([
        create('r', 1),
        create('a', 2, { reply_to_id: 'r' }),
        create('t', 3),
        create('b', 4, { thread_id: 't', reply_to_id: 'a' }),
        create('c', 5, { reply_to_id: 'b' }),
      ]),
    );
    expect(final.get('b')!.laneKey).toBe('thread:C:t');
    // A reply to b follows b's reply link through the thread to a's chain.
    expect(final.get('c')!.laneKey).toBe('reply:C:r');
  });

  it('reports duplicates and ignored events with reasons', () => {
    const { outcomes } = run([create('m', 1), create('m', 1), del('m', 2), edit('m', 3, 'x'), del('m', 4)]);
    expect(outcomes).toEqual(['created', 'duplicate', 'updated', 'ignored', 'duplicate']);
  });

  it('makes a placeholder for anything that references an unseen message, and fills it on create', () => {
    const { ctx, outcomes } = run([react('reaction.added', 'U1', 2), create('m', 1)]);
    expect(outcomes).toEqual(['updated', 'created']);
    expect(view(ctx.messages.get('m'))).toMatchObject({
      isPlaceholder: false,
      reactions: { eyes: 1 },
      text: 'text m',
    });
  });

  it('leaves an anonymous reaction removal with nothing to remove ignored', () => {
    const anonymous = { ...react('reaction.removed', 'U1', 1), user_id: undefined } as ChannelEvent;
    const { outcomes } = run([create('m', 0), anonymous]);
    expect(outcomes).toEqual(['created', 'ignored']);
  });
});

describe("caller metadata never reaches contextd's derived state", () => {
  it('metadata named like internal fields is kept as sent and neither breaks nor forges reactions', () => {
    const metadata = {
      reactors: { x: null, eyes: { U9: [1, 0] } },
      anonymous_reactions: { eyes: 100 },
      team: 'ops',
    };
    const { ctx, outcomes } = run([
      create('m', 0, { metadata } as Partial<ChannelEvent>),
      react('reaction.added', 'U1', 1),
      react('reaction.added', 'U2', 2, 'x'),
      { type: 'reaction.added', ...base, message_id: 'm', ts: at(3), reaction: 'eyes' },
    ]);
    expect(outcomes).toEqual(['created', 'updated', 'updated', 'updated']);
    const m = ctx.messages.get('m')!;
    expect(m.reactions).toEqual({ eyes: 2, x: 1 });
    expect(m.metadata).toEqual(metadata);
  });

  it('a stored state of the wrong shape is read as what it validly holds', () => {
    expect(reactionStateOf(null)).toEqual({});
    expect(reactionStateOf('x')).toEqual({});
    expect(
      reactionStateOf({
        reactors: {
          x: null,
          eyes: { U1: [1, 5], U2: ['on', 5], U3: [1, 'later'], U4: [0, 6, 'Ev4'], U5: [1, 7, 8] },
          ok: [],
        },
        // A net count below zero is a removal waiting for its add.
        anonymous_reactions: { '+1': 2, waiting: -1, half: 0.5, worse: 'many' },
      }),
    ).toEqual({
      reactors: { eyes: { U1: [1, 5], U4: [0, 6, 'Ev4'] } },
      anonymous_reactions: { '+1': 2, waiting: -1 },
    });
  });
});

describe('copies (Telegram reply_to_message, Discord referenced_message)', () => {
  const copy = (id: string, minute: number, text: string) =>
    create(id, minute, { text, author: { id: 'U9', name: 'Ivan' }, is_copy: true });

  it('fills a placeholder that stays one, and gives way to the own create in either order', () => {
    const { ctx, outcomes } = run([create('r', 5, { reply_to_id: 'p' }), copy('p', 1, 'root words')]);
    expect(outcomes).toEqual(['created', 'updated']);
    const p = ctx.messages.get('p')!;
    expect(p).toMatchObject({ isPlaceholder: true, text: 'root words', authorId: 'U9', authorName: 'Ivan' });
    expect(p.ts).toBe(new Date(at(1)).getTime());
    expect(p.replyCount).toBe(1);
    const own = create('p', 1, { text: 'own words', author: { id: 'U9', name: 'Ivan' } });
    const later = run([copy('p', 1, 'root words'), own]).ctx.messages.get('p')!;
    const earlier = run([own, copy('p', 1, 'root words')]);
    expect(earlier.outcomes).toEqual(['created', 'duplicate']);
    expect(view(later)).toEqual(view(earlier.ctx.messages.get('p')));
    expect(later).toMatchObject({ isPlaceholder: false, text: 'own words' });
  });

  it('does not undo an edit or a delete that arrived first', () => {
    const edited = run([edit('p', 3, 'edited'), copy('p', 1, 'copy')]).ctx.messages.get('p')!;
    expect(edited).toMatchObject({ text: 'edited', authorId: 'U9' });
    const deleted = run([del('p', 3), copy('p', 1, 'copy')]).ctx.messages.get('p')!;
    expect(deleted).toMatchObject({ text: '', tokenEstimate: 0 });
  });
});

describe('second creates (Slack app_mention and message)', () => {
  it('fill a missing author name and unite metadata keys, in either order', () => {
    const named = create('m', 1, { author: { id: 'U', name: 'Ana' } });
    const bare = create('m', 1, { metadata: { slack_event: 'app_mention' } });
    const a = run([named, bare]);
    const b = run([bare, named]);
    expect(a.outcomes).toEqual(['created', 'updated']);
    expect(b.outcomes).toEqual(['created', 'updated']);
    for (const { ctx } of [a, b])
      expect(ctx.messages.get('m')).toMatchObject({
        authorName: 'Ana',
        metadata: { slack_event: 'app_mention' },
      });
    expect(run([named, named]).outcomes).toEqual(['created', 'duplicate']);
  });
});

describe('reactions keyed by an id', () => {
  const custom = (user: string, minute: number, name?: string): ChannelEvent => ({
    ...(react('reaction.added', user, minute, '41771983429993937') as Extract<
      ChannelEvent,
      { type: 'reaction.added' }
    >),
    ...(name ? { reaction_name: name } : {}),
  });

  it('show the latest name with the id; events without a name count on the same key', () => {
    const events = [create('m', 0), custom('u1', 1, 'LUL'), custom('u2', 2), custom('u3', 3, 'LULW')];
    const { ctx, outcomes } = run(events);
    expect(outcomes).toEqual(['created', 'updated', 'updated', 'updated']);
    expect(ctx.messages.get('m')!.reactions).toEqual({ 'LULW:41771983429993937': 3 });
    const reversed = run([events[0]!, ...events.slice(1).reverse()]).ctx.messages.get('m')!;
    expect(reversed.reactions).toEqual({ 'LULW:41771983429993937': 3 });
    expect(reactionStateOf(JSON.parse(JSON.stringify(reversed.reactionState)))).toEqual(
      reversed.reactionState,
    );
  });
});
