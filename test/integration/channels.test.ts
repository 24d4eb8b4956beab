// Channel reads over stored events: snapshot, thread context, paging, raw platform ingest, and
// the channel search / channel_messages services that the agent tools will call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
const C = 'CREAD';
const T0 = Date.UTC(2026, 0, 1, 12, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const msg = (id: string, minutes: number, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message.created',
  platform: 'slack',
  channel_id: C,
  message_id: id,
  ts: at(minutes),
  author: { id: 'U1', name: 'Ana' },
  text,
  ...extra,
});

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  const events = [
    msg('m01', 0, 'Kickoff: the rollout plan for v2 is in the doc', {
      channel: { name: 'eng', kind: 'channel' },
    }),
    msg('m02', 10, 'Lunch anyone?', { author: { id: 'U2', name: 'Sam' } }),
    msg('m03', 20, 'Database migration failed on staging with error 42P01', {
      author: { id: 'U3', name: 'Kim' },
    }),
    ...Array.from({ length: 6 }, (_, i) =>
      msg(`m03r${i}`, 21 + i * 10, `reply ${i} about the migration fix`, { thread_id: 'm03' }),
    ),
    msg('m04', 30, 'Rollout moved to Friday 🚀', {
      author: { id: 'U2', name: 'Sam' },
      media: [{ filename: 'plan.png', media_type: 'image/png' }],
    }),
    msg('m05', 90, 'Who owns the rollout checklist? '.repeat(12)),
    {
      type: 'reaction.added',
      platform: 'slack',
      channel_id: C,
      message_id: 'm04',
      ts: at(31),
      reaction: 'tada',
      user_id: 'U1',
    },
    {
      type: 'reaction.added',
      platform: 'slack',
      channel_id: C,
      message_id: 'm04',
      ts: at(32),
      reaction: 'tada',
      user_id: 'U3',
    },
    {
      type: 'reaction.added',
      platform: 'slack',
      channel_id: C,
      message_id: 'm04',
      ts: at(33),
      reaction: 'eyes',
      user_id: 'U3',
    },
    msg('m06', 100, 'Can someone summarize the migration thread?', { author: { id: 'U4', name: 'Lee' } }),
  ];
  const response = await t.inject({ method: 'POST', url: '/v1/events', payload: { events } });
  expect(response.statusCode).toBe(200);
});
afterAll(async () => {
  await ctx?.close();
});

describe('GET …/snapshot', () => {
  it('returns the anchor in full and top-level neighbours with activity relative to the anchor', async () => {
    const response = await t.inject({ url: `/v1/channels/slack/${C}/snapshot?anchor=m06` });
    expect(response.statusCode).toBe(200);
    const s = response.json();
    expect(s).toMatchObject({
      schema_version: '1.0',
      channel: { id: C, name: 'eng', platform: 'slack' },
      anchor: {
        message_id: 'm06',
        text: 'Can someone summarize the migration thread?',
        author: { display_name: 'Lee' },
        thread_id: null,
      },
    });
    expect(s.adjacent.map((m: { message_id: string }) => m.message_id)).toEqual([
      'm01',
      'm02',
      'm03',
      'm04',
      'm05',
    ]);
    const m03 = s.adjacent[2];
    // Replies at 21…71 min; the anchor is at 100 min, so (40, 100] holds the ones at 41…71.
    expect(m03.thread_activity).toEqual({ reply_count: 6, replies_last_1h: 4, last_reply_ts: at(71) });
    expect(s.adjacent[3]).toMatchObject({
      has_media: true,
      reactions: [':tada: 2', ':eyes: 1'],
      thread_activity: null,
    });
    expect(s.adjacent[4].snippet.endsWith('…')).toBe(true);
  });

  it('limits the window with ?adjacent and answers an unknown anchor with 404', async () => {
    const s = (await t.inject({ url: `/v1/channels/slack/${C}/snapshot?anchor=m06&adjacent=2` })).json();
    expect(s.adjacent.map((m: { message_id: string }) => m.message_id)).toEqual(['m04', 'm05']);
    const missing = await t.inject({ url: `/v1/channels/slack/${C}/snapshot?anchor=nope` });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('channel_message.not_found');
    const bad = await t.inject({ url: `/v1/channels/slack/${C}/snapshot?anchor=m06&adjacent=-1` });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toContain('adjacent');
    const noAnchor = await t.inject({ url: `/v1/channels/slack/${C}/snapshot` });
    expect(noAnchor.statusCode).toBe(400);
  });
});

describe('GET …/threads/{threadId}', () => {
  it('returns the root and the replies, budgeted', async () => {
    const full = (await t.inject({ url: `/v1/channels/slack/${C}/threads/m03` })).json();
    expect(full.root).toMatchObject({
      message_id: 'm03',
      text: 'Database migration failed on staging with error 42P01',
    });
    expect(full.truncation).toEqual({
      total_replies: 6,
      included_replies: 6,
      strategy: 'most_recent',
      omitted_range_ts: null,
    });
    const tight = (await t.inject({ url: `/v1/channels/slack/${C}/threads/m03?budget=120` })).json();
    expect(tight.truncation.included_replies).toBeLessThan(6);
    expect(tight.truncation.omitted_range_ts[0]).toBe(at(21));
    expect(tight.replies.at(-1).message_id).toBe('m03r5');
    const capped = (await t.inject({ url: `/v1/channels/slack/${C}/threads/m03?max_replies=2` })).json();
    expect(capped.replies.map((r: { message_id: string }) => r.message_id)).toEqual(['m03r4', 'm03r5']);
    expect(capped.truncation).toMatchObject({ total_replies: 6, omitted_range_ts: [at(21), at(51)] });
  });

  it('is 404 for an unknown thread and for another tenant', async () => {
    expect((await t.inject({ url: `/v1/channels/slack/${C}/threads/zzz` })).statusCode).toBe(404);
    const other = await ctx.tenant();
    const response = await other.inject({ url: `/v1/channels/slack/${C}/threads/m03` });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('channel_thread.not_found');
  });
});

describe('GET …/messages', () => {
  it('pages through a time window with a cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string =
        `limit=4&since=${encodeURIComponent(at(10))}&until=${encodeURIComponent(at(100))}` +
        (cursor ? `&cursor=${cursor}` : '');
      const page = (await t.inject({ url: `/v1/channels/slack/${C}/messages?${query}` })).json();
      seen.push(...page.messages.map((m: { message_id: string }) => m.message_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['m02', 'm03', 'm03r0', 'm04', 'm03r1', 'm03r2', 'm03r3', 'm03r4', 'm03r5', 'm05']);
    const top = (await t.inject({ url: `/v1/channels/slack/${C}/messages?top_level=true` })).json();
    expect(top.messages.map((m: { message_id: string }) => m.message_id)).toEqual([
      'm01',
      'm02',
      'm03',
      'm04',
      'm05',
      'm06',
    ]);
  });

  it('rejects a forged cursor and bad parameters with 400', async () => {
    const forged = await t.inject({ url: `/v1/channels/slack/${C}/messages?cursor=not-a-cursor` });
    expect(forged.statusCode).toBe(400);
    expect(errorOf(forged).code).toBe('cursor.invalid');
    expect((await t.inject({ url: `/v1/channels/slack/${C}/messages?limit=0` })).statusCode).toBe(400);
    expect((await t.inject({ url: `/v1/channels/slack/${C}/messages?since=yesterday` })).statusCode).toBe(
      400,
    );
    expect((await t.inject({ url: `/v1/channels/SLACK!/${C}/messages` })).statusCode).toBe(400);
  });
});

describe('POST /v1/events/{platform}', () => {
  it('ingests a raw Telegram update and ignores unknown shapes with a reason, never a 500', async () => {
    const update = {
      update_id: 1,
      message: {
        message_id: 10,
        from: { id: 5, is_bot: false, first_name: 'Ivan' },
        chat: { id: 99, type: 'private', first_name: 'Ivan' },
        date: 1767268800,
        text: 'hi there',
      },
    };
    const ok = await t.inject({ method: 'POST', url: '/v1/events/telegram', payload: update });
    expect(ok.json()).toMatchObject({
      outcome: 'ingested',
      results: [{ outcome: 'created', message_id: '10' }],
    });
    for (const [platform, payload] of [
      ['telegram', { update_id: 2, poll: {} }],
      ['slack', { hello: 'world' }],
      ['discord', [1, 2, 3]],
      [
        'discord',
        { t: 'MESSAGE_CREATE', d: { id: '1', channel_id: 'c', content: 5, timestamp: 'never', type: 0 } },
      ],
      ['slack', 'just a string'],
    ] as const) {
      const response = await t.inject({
        method: 'POST',
        url: `/v1/events/${platform}`,
        payload: JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ outcome: 'ignored', reason: expect.any(String) });
    }
    expect((await t.inject({ method: 'POST', url: '/v1/events/myspace', payload: {} })).statusCode).toBe(400);
  });
});

describe('channel search service', () => {
  const scope = () => ({ tenantId: t.tenantId, platform: 'slack', channelId: C, now: new Date(at(100)) });

  it('ranks matches by relevance with signals and coverage', async () => {
    const out = await ctx.app.services.channelSearch.searchChannel({
      ...scope(),
      intent: 'what is the rollout plan?',
    });
    expect(out.terms).toEqual(['rollout', 'plan']);
    expect(out.results[0]).toMatchObject({ message_id: 'm01', relevance_signal: 'keyword:rollout+plan' });
    expect(out.results.map((r) => r.message_id)).toEqual(expect.arrayContaining(['m04', 'm05']));
    expect(out.coverage.messages_scanned).toBe(3);
    expect(out.coverage.time_range).toEqual([at(0), at(90)]);
  });

  it('summarizes threads of results, filters by since, boosts authors, caps max_results', async () => {
    const out = await ctx.app.services.channelSearch.searchChannel({
      ...scope(),
      intent: 'migration',
      maxResults: 2,
    });
    expect(out.results).toHaveLength(2);
    const root = (
      await ctx.app.services.channelSearch.searchChannel({ ...scope(), intent: 'staging migration' })
    ).results[0]!;
    expect(root).toMatchObject({
      message_id: 'm03',
      thread_summary: { reply_count: 6, last_reply_ts: at(71), participant_names: ['Ana'] },
    });
    const recent = await ctx.app.services.channelSearch.searchChannel({
      ...scope(),
      intent: 'rollout',
      since: new Date(at(60)),
    });
    expect(recent.results.map((r) => r.message_id)).toEqual(['m05']);
    const boosted = await ctx.app.services.channelSearch.searchChannel({
      ...scope(),
      intent: 'rollout',
      authors: ['sam'],
    });
    expect(boosted.results[0]).toMatchObject({
      message_id: 'm04',
      relevance_signal: expect.stringContaining('author:Sam'),
    });
  });

  it('survives hostile and empty intents', async () => {
    for (const intent of [
      "'; drop table channel_messages; --",
      '!!! & | <-> :* ( ) \\',
      '"unterminated',
      'a'.repeat(5000),
      '🚀🚀',
      '',
    ]) {
      const out = await ctx.app.services.channelSearch.searchChannel({ ...scope(), intent });
      expect(Array.isArray(out.results)).toBe(true);
    }
    const empty = await ctx.app.services.channelSearch.searchChannel({ ...scope(), intent: 'the of and' });
    expect(empty.terms).toEqual([]);
    expect(empty.results.length).toBeGreaterThan(0);
    expect(empty.results.every((r) => !r.relevance_signal.includes('keyword'))).toBe(true);
    const messages = await t.inject({ url: `/v1/channels/slack/${C}/messages?limit=1` });
    expect(messages.json().messages).toHaveLength(1);
  });

  it("never returns another tenant's messages", async () => {
    const other = await ctx.tenant();
    const out = await ctx.app.services.channelSearch.searchChannel({
      ...scope(),
      tenantId: other.tenantId,
      intent: 'rollout',
    });
    expect(out.results).toEqual([]);
    expect(out.coverage).toEqual({ messages_scanned: 0, time_range: null });
  });
});

describe('channel_messages service and the anchor loader', () => {
  const scope = () => ({ tenantId: t.tenantId, platform: 'slack', channelId: C });

  it('fetches a thread with max_replies and messages by id, listing unknown ids', async () => {
    const out = await ctx.app.services.channels.getChannelMessages({
      ...scope(),
      threadId: 'm03',
      maxReplies: 3,
      messageIds: ['m01', 'ghost', 'm04'],
    });
    expect(out.thread!.replies.map((r) => r.message_id)).toEqual(['m03r3', 'm03r4', 'm03r5']);
    expect(out.messages!.map((m) => m.message_id)).toEqual(['m01', 'm04']);
    expect(out.missing_ids).toEqual(['ghost']);
    const defaults = await ctx.app.services.channels.getChannelMessages({ ...scope(), threadId: 'm03' });
    expect(defaults.thread!.truncation.included_replies).toBe(6);
  });

  it('loads snapshot and thread for an anchor inside a thread, and no thread for a plain message', async () => {
    const inThread = await ctx.app.services.channels.loadAnchorContext({ ...scope(), messageId: 'm03r2' });
    expect(inThread.snapshot.anchor).toMatchObject({ message_id: 'm03r2', thread_id: 'm03' });
    expect(inThread.thread).toMatchObject({ thread_id: 'm03', root: { message_id: 'm03' } });
    const root = await ctx.app.services.channels.loadAnchorContext({ ...scope(), messageId: 'm03' });
    expect(root.thread!.truncation.total_replies).toBe(6);
    const plain = await ctx.app.services.channels.loadAnchorContext({ ...scope(), messageId: 'm02' });
    expect(plain.thread).toBeNull();
    await expect(
      ctx.app.services.channels.loadAnchorContext({ ...scope(), tenantId: 'other', messageId: 'm02' }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});
