// checkedEventBatch against eventBatchSchema: whatever it accepts, the schema accepts with the same
// values; every body it is unsure of goes to the schema (which names the bad fields).
import { describe, expect, it } from 'vitest';
import { checkedEventBatch, eventBatchSchema } from '../../src/shared/channel-events.js';

const ts = '2026-01-01T10:00:00.000Z';
const valid: Record<string, unknown>[] = [
  {
    type: 'message.created',
    event_id: 'E1',
    platform: 'slack',
    channel_id: 'C1',
    message_id: 'm1',
    ts,
    channel: { name: 'general', kind: 'channel' },
    thread_id: null,
    topic_id: 'T',
    reply_to_id: 'm0',
    author: { id: 'U1', name: 'ann', is_bot: false },
    text: 'hello 👋',
    is_copy: true,
  },
  {
    type: 'message.created',
    platform: 'p-1_x',
    channel_id: 'C',
    message_id: 'm',
    ts,
    author: { id: 'U' },
    text: '',
  },
  {
    type: 'message.created',
    platform: 'slack',
    channel_id: 'C',
    message_id: 'm',
    ts: '2026-02-03T04:05:06+02:00',
    author: { id: 'U' },
    text: 'x',
    media: [{ url: 'https://x', media_type: 'image/png', width: 3 }],
    metadata: { b: 1, a: { c: [1] } },
  },
  {
    type: 'message.edited',
    platform: 'slack',
    channel_id: 'C',
    message_id: 'm',
    ts,
    text: 'new',
    message_ts: ts,
  },
  {
    type: 'message.edited',
    platform: 'slack',
    channel_id: 'C',
    message_id: 'm',
    ts,
    text: 'new',
    author: { id: 'U' },
    media: [],
  },
  { type: 'message.deleted', platform: 'slack', channel_id: 'C', message_id: 'm', ts, message_ts: ts },
  {
    type: 'reaction.added',
    platform: 'slack',
    channel_id: 'C',
    message_id: 'm',
    ts,
    reaction: 'eyes',
    reaction_name: 'eyes',
    user_id: 'U2',
  },
  { type: 'reaction.removed', platform: 'slack', channel_id: 'C', message_id: 'm', ts, reaction: '👍' },
];

/** Values a field may be set to: right and wrong types, limits, unstorable text, bad times. */
const oddValues: unknown[] = [
  undefined,
  null,
  '',
  'a',
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(256),
  'x'.repeat(257),
  'a\u0000b',
  'a\ud800b',
  '\udc00',
  '😀',
  0,
  1.5,
  true,
  false,
  [],
  {},
  { id: 'U' },
  { id: 'U', name: 'x'.repeat(257) },
  { id: 'U', extra: 1 },
  { id: '' },
  { name: 'n' },
  { name: 'n', kind: 'dm' },
  { kind: 'other' },
  [{ url: 'u' }],
  [{ bogus: 1 }],
  { k: 'v' },
  '2026-01-01T10:00:00Z',
  '2026-01-01T10:00:00',
  '2026-02-30T10:00:00Z',
  '2026-01-01 10:00:00Z',
  '2026-01-01T10:00Z',
  'slack',
  'Slack',
  '1abc',
  'a'.repeat(33),
  'message.created',
  'message.edited',
  'message.deleted',
  'reaction.added',
  'reaction.removed',
  'message.other',
  'dm',
  // Names an object literal would find on Object.prototype.
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
];
const fields = [
  'type',
  'event_id',
  'platform',
  'channel_id',
  'message_id',
  'ts',
  'channel',
  'thread_id',
  'topic_id',
  'reply_to_id',
  'author',
  'text',
  'media',
  'metadata',
  'is_copy',
  'message_ts',
  'reaction',
  'reaction_name',
  'user_id',
  'other',
];

/** Either undefined (the schema decides) or what the schema returns, with the schema accepting it. */
function expectSound(body: unknown) {
  const checked = checkedEventBatch(body);
  if (checked === undefined) return false;
  const parsed = eventBatchSchema.safeParse(body);
  expect(parsed.success, JSON.stringify(body)).toBe(true);
  expect(checked).toEqual(parsed.data);
  // Events with media or metadata are the schema's copies (media compare as JSON, in its key order).
  checked.events.forEach((event, i) => {
    if ('media' in event || 'metadata' in event)
      expect(JSON.stringify(event)).toBe(JSON.stringify(parsed.data!.events[i]));
  });
  return true;
}

describe('checkedEventBatch', () => {
  it('accepts valid batches as the schema returns them', () => {
    expect(expectSound({ events: valid })).toBe(true);
    for (const event of valid) expect(expectSound({ events: [event] })).toBe(true);
  });

  it('is never sure of a body the schema refuses, whatever field is changed', () => {
    let accepted = 0;
    let refused = 0;
    for (const event of valid)
      for (const field of fields)
        for (const value of oddValues) {
          const changed: Record<string, unknown> = { ...event };
          if (value === undefined) delete changed[field];
          else changed[field] = value;
          if (expectSound({ events: [changed] })) accepted += 1;
          else refused += 1;
          // Nested: the author's and channel's fields.
          if (field === 'author' || field === 'channel') {
            for (const inner of ['id', 'name', 'is_bot', 'kind', 'x']) {
              const nested: Record<string, unknown> = {
                ...((event[field] as Record<string, unknown> | undefined) ?? {}),
              };
              if (value === undefined) delete nested[inner];
              else nested[inner] = value;
              expectSound({ events: [{ ...event, [field]: nested }] });
            }
          }
        }
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('leaves the batch shape to the schema', () => {
    for (const body of [
      null,
      [],
      {},
      { events: [] },
      { events: {} },
      { events: valid, other: 1 },
      { events: Array.from({ length: 501 }, () => valid[1]) },
      { events: [valid[1], 'x'] },
    ])
      expect(checkedEventBatch(body)).toBeUndefined();
    expect(expectSound({ events: Array.from({ length: 500 }, () => valid[1]) })).toBe(true);
  });
});
