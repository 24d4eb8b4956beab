// POST /v1/events end to end: validation of whole batches, outcomes, out-of-order convergence,
// lanes, reply counters, reactions, Unicode round trips and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

let seq = 0;
const channel = () => `C${++seq}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
const created = (channelId: string, id: string, minute: number, extra: Record<string, unknown> = {}) => ({
  type: 'message.created',
  platform: 'slack',
  channel_id: channelId,
  message_id: id,
  ts: at(minute),
  author: { id: 'U1', name: 'Ana' },
  text: `message ${id}`,
  ...extra,
});

async function post(tenant: TestTenant, events: unknown[], headers: Record<string, string> = {}) {
  return tenant.inject({ method: 'POST', url: '/v1/events', payload: { events }, headers });
}
async function messages(tenant: TestTenant, channelId: string, query = '') {
  const response = await tenant.inject({ url: `/v1/channels/slack/${channelId}/messages?limit=500${query}` });
  expect(response.statusCode).toBe(200);
  return response.json().messages as {
    message_id: string;
    text: string;
    lane_key: string;
    reply_count: number;
    last_reply_ts: string | null;
    reactions: Record<string, number>;
    edited_at: string | null;
    token_estimate: number;
  }[];
}
const byId = async (tenant: TestTenant, channelId: string) =>
  new Map((await messages(tenant, channelId)).map((m) => [m.message_id, m]));

describe('POST /v1/events', () => {
  it('stores a batch and reports each outcome, lane and token estimate', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const response = await post(t, [
      created(c, 'm1', 1),
      created(c, 'm2', 2, { reply_to_id: 'm1' }),
      created(c, 'm1', 1),
    ]);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.results.map((r: { outcome: string }) => r.outcome)).toEqual([
      'created',
      'created',
      'duplicate',
    ]);
    expect(body.results[1]).toMatchObject({ index: 1, message_id: 'm2', lane_key: `reply:${c}:m1` });
    expect(body.counts).toEqual({ created: 2, updated: 0, duplicate: 1, ignored: 0 });
    const stored = await byId(t, c);
    expect(stored.get('m1')).toMatchObject({ lane_key: `root:${c}`, reply_count: 1, last_reply_ts: at(2) });
    expect(stored.get('m1')!.token_estimate).toBe(ctx.deps.estimator.text('message m1'));
  });

  it('rejects a batch with bad items as a whole, naming every item and field, storing nothing', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const response = await post(t, [
      created(c, 'ok1', 1),
      { ...created(c, 'bad1', 2), text: 42 },
      created(c, 'ok2', 3),
      { ...created(c, 'bad2', 4), ts: 'yesterday' },
      { type: 'message.exploded', platform: 'slack', channel_id: c, message_id: 'x', ts: at(5) },
    ]);
    expect(response.statusCode).toBe(400);
    const error = errorOf(response);
    expect(error.code).toBe('request.invalid');
    const paths = (error.details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining(['body.events.1.text', 'body.events.3.ts', 'body.events.4.type']),
    );
    expect(await messages(t, c)).toEqual([]);
  });

  it('rejects empty and oversized batches and unstorable text', async () => {
    const t = await ctx.tenant();
    const c = channel();
    expect((await post(t, [])).statusCode).toBe(400);
    const many = Array.from({ length: 501 }, (_, i) => created(c, `m${i}`, 1));
    expect((await post(t, many)).statusCode).toBe(400);
    const lone = await post(t, [{ ...created(c, 'm', 1), text: 'broken \ud800 surrogate' }]);
    expect(lone.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(lone).details)).toContain('events.0.text');
    const nul = await post(t, [{ ...created(c, 'm', 1), text: 'nul \u0000 byte' }]);
    expect(nul.statusCode).toBe(400);
    expect(await messages(t, c)).toEqual([]);
  });

  it('round-trips any storable Unicode exactly', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const texts = [
      '👩‍👩‍👧‍👦 family 🇯🇵 flag 𝄞 clef',
      'zero\u200bwidth\u200djoiner\ufeffbom',
      'עברית RTL \u202eoverride\u202c العربية',
      '日本語のテキストと中文和한국어',
      'e\u0301 combining, Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
      'x'.repeat(200_000) + '🎉',
    ];
    const response = await post(
      t,
      texts.map((text, i) => created(c, `u${i}`, i, { text })),
    );
    expect(response.statusCode).toBe(200);
    const stored = await byId(t, c);
    texts.forEach((text, i) => expect(stored.get(`u${i}`)!.text).toBe(text));
  });

  it('applies an edit that arrives before its create, and keeps the newer text', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const edit = {
      type: 'message.edited',
      platform: 'slack',
      channel_id: c,
      message_id: 'e1',
      ts: at(5),
      message_ts: at(1),
      text: 'edited text',
    };
    const first = await post(t, [edit]);
    expect(first.json().results[0].outcome).toBe('updated');
    // A placeholder is not a message yet.
    expect(await messages(t, c)).toEqual([]);
    const second = await post(t, [created(c, 'e1', 1, { text: 'original text' })]);
    expect(second.json().results[0].outcome).toBe('created');
    const stored = (await byId(t, c)).get('e1')!;
    expect(stored.text).toBe('edited text');
    expect(stored.edited_at).toBe(at(5));
    // An older edit arriving late loses; the same edit again is a duplicate.
    const late = await post(t, [{ ...edit, ts: at(3), text: 'older edit' }, edit]);
    expect(late.json().results.map((r: { outcome: string }) => r.outcome)).toEqual(['ignored', 'duplicate']);
    expect((await byId(t, c)).get('e1')!.text).toBe('edited text');
  });

  it('counts a reply that arrives before its root once the root arrives', async () => {
    const t = await ctx.tenant();
    const c = channel();
    await post(t, [created(c, 'r2', 3, { thread_id: 'r1' }), created(c, 'r3', 4, { thread_id: 'r1' })]);
    expect((await byId(t, c)).has('r1')).toBe(false);
    await post(t, [created(c, 'r1', 1)]);
    const stored = await byId(t, c);
    expect(stored.get('r1')).toMatchObject({ text: 'message r1', reply_count: 2, last_reply_ts: at(4) });
    expect(stored.get('r2')!.lane_key).toBe(`thread:${c}:r1`);
  });

  it('keeps a delete of an unknown message as a tombstone the later create cannot revive', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const del = { type: 'message.deleted', platform: 'slack', channel_id: c, message_id: 'd1', ts: at(9) };
    expect((await post(t, [del])).json().results[0].outcome).toBe('updated');
    expect((await post(t, [created(c, 'd1', 1, { thread_id: 'root' })])).json().results[0].outcome).toBe(
      'created',
    );
    expect((await byId(t, c)).has('d1')).toBe(false);
    expect((await post(t, [del])).json().results[0].outcome).toBe('duplicate');
    // The deleted reply was never counted on its root.
    await post(t, [created(c, 'root', 0)]);
    expect((await byId(t, c)).get('root')!.reply_count).toBe(0);
  });

  it('decrements reply_count when a counted reply is deleted', async () => {
    const t = await ctx.tenant();
    const c = channel();
    await post(t, [
      created(c, 'p', 1),
      created(c, 'q', 2, { thread_id: 'p' }),
      created(c, 's', 3, { thread_id: 'p' }),
    ]);
    await post(t, [
      { type: 'message.deleted', platform: 'slack', channel_id: c, message_id: 'q', ts: at(5) },
    ]);
    expect((await byId(t, c)).get('p')!.reply_count).toBe(1);
  });

  it('dedupes reactions per user, in any order, and by event id', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const reaction = (type: string, user: string, minute: number, extra: Record<string, unknown> = {}) => ({
      type,
      platform: 'slack',
      channel_id: c,
      message_id: 'x1',
      ts: at(minute),
      reaction: 'eyes',
      user_id: user,
      ...extra,
    });
    await post(t, [created(c, 'x1', 1)]);
    const twice = await post(t, [reaction('reaction.added', 'U1', 2), reaction('reaction.added', 'U1', 3)]);
    expect(twice.json().results.map((r: { outcome: string }) => r.outcome)).toEqual(['updated', 'duplicate']);
    // U2's removal arrives before U2's add: the add is older and stays undone.
    await post(t, [reaction('reaction.removed', 'U2', 6), reaction('reaction.added', 'U2', 5)]);
    await post(t, [reaction('reaction.added', 'U3', 4, { reaction: 'white_check_mark' })]);
    expect((await byId(t, c)).get('x1')!.reactions).toEqual({ eyes: 1, white_check_mark: 1 });
    // A reaction without a user is deduplicated by its event id only.
    const anon = {
      ...reaction('reaction.added', 'U0', 7),
      user_id: undefined,
      event_id: 'Ev1',
      reaction: 'tada',
    };
    const again = await post(t, [anon, anon]);
    expect(again.json().results.map((r: { outcome: string }) => r.outcome)).toEqual(['updated', 'duplicate']);
    expect((await post(t, [anon])).json().results[0].outcome).toBe('duplicate');
    expect((await byId(t, c)).get('x1')!.reactions).toEqual({ eyes: 1, white_check_mark: 1, tada: 1 });
  });

  it('metadata named like internal fields neither breaks later reactions nor forges counts', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const forged = { reactors: { x: null, eyes: { U9: [1, 0] } }, anonymous_reactions: { eyes: 100 } };
    expect((await post(t, [created(c, 'x1', 1, { metadata: forged })])).statusCode).toBe(200);
    const reacted = await post(t, [
      {
        type: 'reaction.added',
        platform: 'slack',
        channel_id: c,
        message_id: 'x1',
        ts: at(2),
        reaction: 'eyes',
        user_id: 'U1',
      },
      {
        type: 'reaction.added',
        platform: 'slack',
        channel_id: c,
        message_id: 'x1',
        ts: at(3),
        reaction: 'x',
        user_id: 'U2',
      },
    ]);
    expect(reacted.statusCode).toBe(200);
    expect((await byId(t, c)).get('x1')!.reactions).toEqual({ eyes: 1, x: 1 });
  });

  it('loses no update when batches on the same channel run concurrently', async () => {
    const t = await ctx.tenant();
    const c = channel();
    await post(t, [created(c, 'hot', 0)]);
    const users = Array.from({ length: 16 }, (_, i) => `U${i}`);
    const responses = await Promise.all(
      users.map((user, i) =>
        post(t, [
          {
            type: 'reaction.added',
            platform: 'slack',
            channel_id: c,
            message_id: 'hot',
            ts: at(1),
            reaction: 'eyes',
            user_id: user,
          },
          created(c, `reply${i}`, 2 + i, { thread_id: 'hot' }),
        ]),
      ),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect((await byId(t, c)).get('hot')).toMatchObject({ reactions: { eyes: 16 }, reply_count: 16 });
  });

  it('keeps a reply chain in one lane, also when a middle message arrives last', async () => {
    const t = await ctx.tenant();
    const c = channel();
    await post(t, [created(c, 'a', 1), created(c, 'c', 3, { reply_to_id: 'b' })]);
    expect((await byId(t, c)).get('c')!.lane_key).toBe(`reply:${c}:b`);
    const late = await post(t, [
      created(c, 'b', 2, { reply_to_id: 'a' }),
      created(c, 'd', 4, { reply_to_id: 'c' }),
    ]);
    expect(late.json().results.map((r: { lane_key: string }) => r.lane_key)).toEqual([
      `reply:${c}:a`,
      `reply:${c}:a`,
    ]);
    const stored = await byId(t, c);
    expect(['b', 'c', 'd'].map((id) => stored.get(id)!.lane_key)).toEqual(Array(3).fill(`reply:${c}:a`));
    expect(stored.get('a')!.lane_key).toBe(`root:${c}`);
  });

  it('roots a chain at its first message when the middle was deleted before anything arrived', async () => {
    const t = await ctx.tenant();
    const c = channel();
    // One batch per event: the lanes of earlier batches are renamed in storage.
    for (const event of [
      { type: 'message.deleted', platform: 'slack', channel_id: c, message_id: 'b', ts: at(9) },
      created(c, 'b', 3, { reply_to_id: 'a' }),
      created(c, 'c', 4, { reply_to_id: 'b' }),
      created(c, 'r', 1),
      created(c, 'a', 2, { reply_to_id: 'r' }),
    ])
      expect((await post(t, [event])).statusCode).toBe(200);
    const rows = await queryRows<{ message_id: string; lane_key: string }>(
      ctx.deps.database.db,
      sql`select message_id, lane_key from channel_messages
          where tenant_id = ${t.tenantId} and channel_id = ${c} order by message_id`,
    );
    expect(rows).toEqual([
      { message_id: 'a', lane_key: `reply:${c}:r` },
      { message_id: 'b', lane_key: `reply:${c}:r` },
      { message_id: 'c', lane_key: `reply:${c}:r` },
      { message_id: 'r', lane_key: `root:${c}` },
    ]);
  });

  it('keeps a reaction added again after a removal that arrives last', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const reaction = (type: string, minute: number) => ({
      type,
      platform: 'slack',
      channel_id: c,
      message_id: 'x',
      ts: at(minute),
      reaction: 'eyes',
      user_id: 'U1',
    });
    await post(t, [created(c, 'x', 0), reaction('reaction.added', 1)]);
    await post(t, [reaction('reaction.added', 3)]);
    await post(t, [reaction('reaction.removed', 2)]);
    expect((await byId(t, c)).get('x')!.reactions).toEqual({ eyes: 1 });
  });

  it('lanes forum topics before threads before replies', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const response = await post(t, [
      created(c, 't1', 1, { topic_id: 'T', thread_id: 'X', reply_to_id: 'y' }),
      created(c, 't2', 2, { thread_id: 'X', reply_to_id: 'y' }),
    ]);
    expect(response.json().results.map((r: { lane_key: string }) => r.lane_key)).toEqual([
      `topic:${c}:T`,
      `thread:${c}:X`,
    ]);
  });

  it('replays an Idempotency-Key and refuses it for another body', async () => {
    const t = await ctx.tenant();
    const c = channel();
    const headers = { 'idempotency-key': 'batch-1' };
    const first = await post(t, [created(c, 'i1', 1)], headers);
    const second = await post(t, [created(c, 'i1', 1)], headers);
    expect(second.json()).toEqual(first.json());
    expect(second.json().results[0].outcome).toBe('created');
    const other = await post(t, [created(c, 'i2', 1)], headers);
    expect(other.statusCode).toBe(409);
  });

  it("never shows one tenant's messages to another", async () => {
    const a = await ctx.tenant();
    const b = await ctx.tenant();
    const c = channel();
    await post(a, [created(c, 's1', 1, { text: 'secret plan' })]);
    expect(await messages(b, c)).toEqual([]);
    const snapshot = await b.inject({ url: `/v1/channels/slack/${c}/snapshot?anchor=s1` });
    expect(snapshot.statusCode).toBe(404);
    expect(errorOf(snapshot).code).toBe('channel_message.not_found');
    // The same ids in tenant b are b's own messages, untouched by a's.
    await post(b, [created(c, 's1', 1, { text: 'b text' })]);
    expect((await byId(a, c)).get('s1')!.text).toBe('secret plan');
  });
});
