// Backfill over real HTTP against the fake Slack and Discord APIs, counting the fakes' calls:
// none in steady state with events flowing, one conversations.history per cold channel, one
// conversations.replies per old thread; a 429 is honoured for its Retry-After on later reads; a
// 500 or garbage reply leaves a note and nothing stored; another tenant sees nothing of it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startFakeDiscord, type FakeDiscord } from '../helpers/fake-discord.js';

const BASE_S = 1_767_261_600; // 2026-01-01T10:00:00Z
/** A Slack ts `i` minutes after 10:00, and its time. */
const tsOf = (i: number) => `${BASE_S + i * 60}.000100`;
const isoOf = (i: number) => new Date((BASE_S + i * 60) * 1000).toISOString();

let slack: FakeSlack;
let discord: FakeDiscord;
let ctx: TestContext;
let tenant: TestTenant;

const calls = (fake: { requests: { path: string }[] }, pathPart: string) =>
  fake.requests.filter((r) => r.path.includes(pathPart)).length;

async function ingestSlack(t: TestTenant, channel: string, events: Record<string, unknown>[]) {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/events',
    payload: {
      events: events.map((e) => ({
        type: 'message.created',
        platform: 'slack',
        channel_id: channel,
        author: { id: 'U1', name: 'Ana' },
        ...e,
      })),
    },
  });
  expect(response.statusCode).toBe(200);
  return response.json() as { results: { outcome: string }[] };
}

async function storeToken(t: TestTenant, platform: 'slack' | 'discord', token: string, workspace: string) {
  const response = await t.inject({
    method: 'PUT',
    url: `/v1/platforms/${platform}/credentials`,
    payload: { bot_token: token, workspace_id: workspace },
  });
  expect(response.statusCode).toBeLessThan(300);
}

/** A fake channel of `n` top-level messages (minutes 0…n−1). */
function fakeChannel(channel: string, n: number, threads: Record<number, number> = {}) {
  const messages = [];
  for (let i = 0; i < n; i += 1) {
    messages.push({ ts: tsOf(i), user: 'U2', text: `old message ${i}` });
    for (let r = 0; r < (threads[i] ?? 0); r += 1) {
      messages.push({
        ts: `${BASE_S + i * 60 + r + 1}.000200`,
        user: 'U3',
        text: `reply ${r} to ${i}`,
        thread_ts: tsOf(i),
      });
    }
  }
  slack.channels.set(channel, messages);
}

beforeAll(async () => {
  slack = await startFakeSlack();
  discord = await startFakeDiscord();
  ctx = await createTestApp({
    env: {
      SLACK_API_URL: slack.apiUrl,
      DISCORD_API_URL: discord.apiUrl,
      PLATFORM_FETCH_ALLOW: '127.0.0.1',
      PLATFORM_RATE_OVERFLOW: 'degrade',
      // The limiter's own refusals are tested in platform-rate-limiter.test.ts and below with
      // three replicas; here the platform's answers are.
      PLATFORM_RATE_LIMIT_PER_MINUTE: '6000',
    },
  });
  tenant = await ctx.tenant();
  await storeToken(tenant, 'slack', slack.token, slack.teamId);
  await storeToken(tenant, 'discord', discord.token, '100000000000000001');
});

afterAll(async () => {
  await ctx?.close();
  await slack?.close();
  await discord?.close();
});

beforeEach(() => {
  slack.mode = 'ok';
  discord.mode = 'ok';
});

describe('Slack', () => {
  it('steady state with events flowing: no call', async () => {
    const events = [];
    for (let i = 0; i < 25; i += 1) events.push({ message_id: tsOf(i), ts: isoOf(i), text: `live ${i}` });
    for (let r = 0; r < 3; r += 1) {
      events.push({
        message_id: `${BASE_S + 5 * 60 + r + 1}.000200`,
        ts: isoOf(5),
        text: `r${r}`,
        thread_id: tsOf(5),
      });
    }
    await ingestSlack(tenant, 'CLIVE', events);
    const before = slack.requests.length;
    const snapshot = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/slack/CLIVE/snapshot?anchor=${tsOf(24)}`,
    });
    expect(snapshot.statusCode).toBe(200);
    expect(snapshot.json().adjacent).toHaveLength(20);
    const thread = await tenant.inject({ method: 'GET', url: `/v1/channels/slack/CLIVE/threads/${tsOf(5)}` });
    expect(thread.json().replies).toHaveLength(3);
    expect(slack.requests.length).toBe(before);
  });

  it('a cold channel: one conversations.history, then none; a later event of a backfilled message is a duplicate', async () => {
    fakeChannel('CCOLD', 60, { 50: 4 });
    await ingestSlack(tenant, 'CCOLD', [{ message_id: tsOf(60), ts: isoOf(60), text: 'hello bot' }]);
    const history = calls(slack, 'conversations.history');
    const first = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/slack/CCOLD/snapshot?anchor=${tsOf(60)}`,
    });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.notes).toBeUndefined();
    expect(body.adjacent).toHaveLength(20);
    expect(body.adjacent.at(-1).snippet).toBe('old message 59');
    expect(calls(slack, 'conversations.history')).toBe(history + 1);
    // The second read, and a snapshot at another anchor, make no call.
    await tenant.inject({ method: 'GET', url: `/v1/channels/slack/CCOLD/snapshot?anchor=${tsOf(60)}` });
    await tenant.inject({ method: 'GET', url: `/v1/channels/slack/CCOLD/snapshot?anchor=${tsOf(45)}` });
    expect(calls(slack, 'conversations.history')).toBe(history + 1);
    // The live event of a message the backfill stored is a duplicate: same id, nothing twice.
    const again = await ingestSlack(tenant, 'CCOLD', [
      { message_id: tsOf(59), ts: isoOf(59), text: 'old message 59', author: { id: 'U2' } },
    ]);
    expect(again.results[0]!.outcome).toBe('duplicate');
  });

  it('an old thread: one conversations.replies, then none', async () => {
    // CCOLD's message 50 came from history with reply_count 4 and no stored reply.
    const replies = calls(slack, 'conversations.replies');
    const thread = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/slack/CCOLD/threads/${tsOf(50)}`,
    });
    expect(thread.statusCode).toBe(200);
    expect(thread.json().replies.map((r: { text: string }) => r.text)).toEqual([
      'reply 0 to 50',
      'reply 1 to 50',
      'reply 2 to 50',
      'reply 3 to 50',
    ]);
    await tenant.inject({ method: 'GET', url: `/v1/channels/slack/CCOLD/threads/${tsOf(50)}` });
    expect(calls(slack, 'conversations.replies')).toBe(replies + 1);
  });

  it('a reply to a thread older than the bot fetches the thread once', async () => {
    fakeChannel('CREPLY', 3, { 1: 6 });
    await ingestSlack(tenant, 'CREPLY', [
      { message_id: `${BASE_S + 60 + 7}.000200`, ts: isoOf(2), text: 'late reply', thread_id: tsOf(1) },
    ]);
    const replies = calls(slack, 'conversations.replies');
    const thread = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/slack/CREPLY/threads/${tsOf(1)}`,
    });
    expect(thread.json().root.text).toBe('old message 1');
    expect(thread.json().truncation.total_replies).toBe(7);
    await tenant.inject({ method: 'GET', url: `/v1/channels/slack/CREPLY/threads/${tsOf(1)}` });
    expect(calls(slack, 'conversations.replies')).toBe(replies + 1);
  });

  it('a 500 or garbage reply: a note, nothing stored, and the next read tries again', async () => {
    fakeChannel('CFAIL', 30);
    await ingestSlack(tenant, 'CFAIL', [{ message_id: tsOf(30), ts: isoOf(30), text: 'anchor' }]);
    for (const mode of ['error500', 'garbage'] as const) {
      slack.mode = mode;
      const read = await tenant.inject({
        method: 'GET',
        url: `/v1/channels/slack/CFAIL/snapshot?anchor=${tsOf(30)}`,
      });
      expect(read.statusCode).toBe(200);
      expect(read.json().adjacent).toHaveLength(0);
      expect(read.json().notes).toEqual([
        expect.stringMatching(
          /^Channel history could not be fetched from slack \(.+\); the channel context shown may be stale\.$/,
        ),
      ]);
      expect(read.json().notes[0]).not.toContain(slack.token);
    }
    const listed = await tenant.inject({ method: 'GET', url: '/v1/channels/slack/CFAIL/messages' });
    expect(listed.json().messages).toHaveLength(1);
    const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(
      /contextd_backfills_total\{platform="slack",scope="channel",outcome="failed"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /contextd_backfills_total\{platform="slack",scope="channel",outcome="fetched"\} [1-9]/,
    );
    slack.mode = 'ok';
    const healed = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/slack/CFAIL/snapshot?anchor=${tsOf(30)}`,
    });
    expect(healed.json().adjacent).toHaveLength(20);
    expect(healed.json().notes).toBeUndefined();
  });

  it('another tenant: no token, no call, none of the first tenant’s history', async () => {
    const other = await ctx.tenant();
    await ingestSlack(other, 'CCOLD', [{ message_id: tsOf(60), ts: isoOf(60), text: 'hi' }]);
    const before = slack.requests.length;
    const read = await other.inject({
      method: 'GET',
      url: `/v1/channels/slack/CCOLD/snapshot?anchor=${tsOf(60)}`,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().adjacent).toHaveLength(0);
    expect(read.json().notes).toBeUndefined();
    const thread = await other.inject({ method: 'GET', url: `/v1/channels/slack/CCOLD/threads/${tsOf(50)}` });
    expect(thread.statusCode).toBe(404);
    expect(slack.requests.length).toBe(before);
  });

  it('the context call and channel_messages carry the note; the payload has what is stored', async () => {
    fakeChannel('CCTX', 10, { 3: 2 });
    await ingestSlack(tenant, 'CCTX', [{ message_id: tsOf(10), ts: isoOf(10), text: 'what did we decide?' }]);
    const session = await tenant.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CCTX' },
    });
    expect(session.statusCode).toBeLessThan(300);
    const id = session.json().session.id as string;
    slack.mode = 'error500';
    const context = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: {
        message: {
          content: 'what did we decide?',
          source: { platform: 'slack', channel_id: 'CCTX', message_id: tsOf(10) },
        },
        dry_run: true,
      },
    });
    expect(context.statusCode).toBe(200);
    expect(context.json().notes).toContainEqual(
      expect.stringContaining('Channel history could not be fetched from slack'),
    );
    expect(JSON.stringify(context.json().payload)).not.toContain('may be stale');
    const tool = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/tools/channel_messages`,
      payload: { input: { thread_id: tsOf(3) } },
    });
    expect(tool.statusCode).toBe(200);
    expect(JSON.stringify(tool.json())).toContain('Thread history could not be fetched from slack');
    slack.mode = 'ok';
    const healed = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: {
        message: {
          content: 'what did we decide?',
          source: { platform: 'slack', channel_id: 'CCTX', message_id: tsOf(10) },
        },
        dry_run: true,
      },
    });
    expect(healed.json().notes.join(' ')).not.toContain('may be stale');
    expect(JSON.stringify(healed.json().payload)).toContain('old message 9');
  });

  it('channel_context on a channel the store barely knows: one conversations.history, then none', async () => {
    fakeChannel('CSEARCH', 30);
    await ingestSlack(tenant, 'CSEARCH', [{ message_id: tsOf(30), ts: isoOf(30), text: 'anything new?' }]);
    const session = await tenant.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CSEARCH' },
    });
    const id = session.json().session.id as string;
    const history = calls(slack, 'conversations.history');
    const search = () =>
      tenant.inject({
        method: 'POST',
        url: `/v1/sessions/${id}/tools/channel_context`,
        payload: { input: { intent: 'old message 12' } },
      });
    const first = await search();
    expect(first.statusCode).toBe(200);
    expect(JSON.stringify(first.json())).toContain('old message 12');
    expect(JSON.stringify(first.json())).not.toContain('may be stale');
    await search();
    expect(calls(slack, 'conversations.history')).toBe(history + 1);
  });

  // Last of the Slack tests: it leaves the workspace held back for Retry-After.
  it('a platform 429: the read degrades, and Retry-After holds the workspace back', async () => {
    fakeChannel('C429', 5, { 0: 2, 1: 2 });
    await ingestSlack(tenant, 'C429', [
      { message_id: `${BASE_S + 1}.000200`, ts: isoOf(0), text: 'reply a', thread_id: tsOf(0) },
      { message_id: `${BASE_S + 61}.000200`, ts: isoOf(1), text: 'reply b', thread_id: tsOf(1) },
    ]);
    slack.rateLimitNext(1, 7);
    const before = slack.requests.length;
    const limited = await tenant.inject({ method: 'GET', url: `/v1/channels/slack/C429/threads/${tsOf(0)}` });
    expect(limited.statusCode).toBe(200);
    expect(limited.json().notes[0]).toMatch(/rate limited; retry in [67] s/);
    expect(slack.requests.length).toBe(before + 1);
    // Another cold thread of the same workspace: the limiter holds it back, no call is made.
    const held = await tenant.inject({ method: 'GET', url: `/v1/channels/slack/C429/threads/${tsOf(1)}` });
    expect(held.json().notes[0]).toMatch(/rate limited; retry in [1-7] s/);
    expect(slack.requests.length).toBe(before + 1);
    expect(held.json().replies).toHaveLength(1);
  });
});

describe('Discord', () => {
  it('a cold channel: one GET messages; a thread channel: one GET of the thread', async () => {
    const base = 1_200_000_000_000_000_000n;
    const id = (i: number) => String(base + BigInt(i) * 4_194_304_000n);
    discord.channels.set(
      '900',
      Array.from({ length: 30 }, (_, i) => ({
        id: id(i),
        content: `discord ${i}`,
        timestamp: new Date(Date.UTC(2026, 0, 1, 9, i)).toISOString(),
        author: { id: '77', username: 'kim' },
      })),
    );
    const anchor = id(30);
    const ingest = await tenant.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'discord',
            channel_id: '900',
            message_id: anchor,
            ts: new Date(Date.UTC(2026, 0, 1, 9, 30)).toISOString(),
            author: { id: '77' },
            text: 'anchor',
          },
        ],
      },
    });
    expect(ingest.statusCode).toBe(200);
    const before = calls(discord, '/channels/900/messages');
    const read = await tenant.inject({
      method: 'GET',
      url: `/v1/channels/discord/900/snapshot?anchor=${anchor}`,
    });
    expect(read.json().adjacent).toHaveLength(20);
    await tenant.inject({ method: 'GET', url: `/v1/channels/discord/900/snapshot?anchor=${anchor}` });
    expect(calls(discord, '/channels/900/messages')).toBe(before + 1);

    // A thread (its own channel 901 under 900) that a reply reached before any of its past.
    const thread = id(35);
    discord.channels.set(
      thread,
      Array.from({ length: 5 }, (_, i) => ({
        id: id(40 + i),
        content: `in thread ${i}`,
        timestamp: new Date(Date.UTC(2026, 0, 1, 9, 40 + i)).toISOString(),
        author: { id: '78', username: 'lee' },
      })),
    );
    const reply = await tenant.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'discord',
            channel_id: '900',
            thread_id: thread,
            topic_id: thread,
            message_id: id(45),
            ts: new Date(Date.UTC(2026, 0, 1, 9, 45)).toISOString(),
            author: { id: '77' },
            text: 'late reply',
          },
        ],
      },
    });
    expect(reply.statusCode).toBe(200);
    const threadCalls = calls(discord, `/channels/${thread}/messages`);
    const read1 = await tenant.inject({ method: 'GET', url: `/v1/channels/discord/900/threads/${thread}` });
    expect(read1.statusCode).toBe(200);
    expect(read1.json().replies.map((r: { text: string }) => r.text)).toEqual([
      'in thread 0',
      'in thread 1',
      'in thread 2',
      'in thread 3',
      'in thread 4',
      'late reply',
    ]);
    await tenant.inject({ method: 'GET', url: `/v1/channels/discord/900/threads/${thread}` });
    expect(calls(discord, `/channels/${thread}/messages`)).toBe(threadCalls + 1);
  });
});
