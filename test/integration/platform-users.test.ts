// Names, not ids: authors stored by id are shown by the display name the tenant's token resolves
// (Slack users.info, Discord guild member) or the bot pushed; without either the id stays. Real
// HTTP against the fakes; other tenants, bad input, and the token in no reply or log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import { startFakeDiscord, type FakeDiscord } from '../helpers/fake-discord.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';

let ctx: TestContext;
let slack: FakeSlack;
let discord: FakeDiscord;
let a: TestTenant;
let b: TestTenant;
const lines: string[] = [];
const replies: string[] = [];

function recorded(tenant: TestTenant): TestTenant {
  return {
    ...tenant,
    inject: async (options) => {
      const response = await tenant.inject(options);
      replies.push(response.body);
      return response;
    },
  };
}

beforeAll(async () => {
  [slack, discord] = await Promise.all([startFakeSlack(), startFakeDiscord()]);
  slack.users.set('U01', { id: 'U01', name: 'ada', real_name: 'Ada Lovelace', display_name: 'ada.l' });
  slack.users.set('U02', { id: 'U02', name: 'bob', real_name: 'Bob Resolved' });
  slack.users.set('U03', { id: 'U03', name: 'cy', real_name: 'Cy Later' });
  slack.users.set('UBOT', { id: 'UBOT', name: 'deploybot', is_bot: true });
  discord.users.set('300000000000000001', {
    id: '300000000000000001',
    username: 'grace',
    global_name: 'Grace H',
  });
  discord.guilds.set('400000000000000001', new Map([['300000000000000001', { nick: 'Admiral' }]]));
  ctx = await createTestApp({
    env: {
      SLACK_API_URL: slack.apiUrl,
      DISCORD_API_URL: discord.apiUrl,
      PLATFORM_FETCH_ALLOW: '127.0.0.1',
      LOG_LEVEL: 'trace',
    },
    logger: { stream: { write: (line) => lines.push(line) } },
  });
  a = recorded(await ctx.tenant());
  b = recorded(await ctx.tenant());
  const stored = await a.inject({
    method: 'PUT',
    url: '/v1/platforms/slack/credentials',
    payload: { bot_token: slack.token, workspace_id: slack.teamId },
  });
  expect(stored.statusCode).toBe(201);
});
afterAll(async () => {
  await ctx?.close();
  await Promise.all([slack?.close(), discord?.close()]);
});

const authors = async (tenant: TestTenant, channel: string, platform = 'slack') => {
  const response = await tenant.inject({ url: `/v1/channels/${platform}/${channel}/messages` });
  expect(response.statusCode, response.body).toBe(200);
  return (
    response.json().messages as { author: { user_id: string; display_name: string; is_bot: boolean } }[]
  ).map((m) => m.author);
};
const usersInfoCalls = () => slack.requests.filter((r) => r.path === '/api/users.info').length;

describe('names resolved with the token', () => {
  it('resolves authors stored by id at ingest, in the background, and shows the name on every read', async () => {
    await ingest(a, 'C1', [
      { message_id: 'm1', ts: at(1), text: 'hello', author: { id: 'U01' } },
      { message_id: 'm2', ts: at(2), text: 'deploying', author: { id: 'UBOT' } },
      { message_id: 'm3', ts: at(3), text: 'thread reply', thread_id: 'm1', author: { id: 'U01' } },
      { message_id: 'm4', ts: at(4), text: 'named already', author: { id: 'U09', name: 'Named' } },
    ]);
    await ctx.app.services.userResolver.settle();
    expect(await authors(a, 'C1')).toEqual([
      { user_id: 'U01', display_name: 'ada.l', is_bot: false },
      { user_id: 'UBOT', display_name: 'deploybot', is_bot: true },
      { user_id: 'U01', display_name: 'ada.l', is_bot: false },
      { user_id: 'U09', display_name: 'Named', is_bot: false },
    ]);
    const snapshot = await a.inject({ url: '/v1/channels/slack/C1/snapshot?anchor=m4' });
    expect(
      snapshot.json().adjacent.map((m: { author: { display_name: string } }) => m.author.display_name),
    ).toEqual(['ada.l', 'deploybot']);
    const thread = await a.inject({ url: '/v1/channels/slack/C1/threads/m1' });
    expect(thread.json().root.author.display_name).toBe('ada.l');
    expect(thread.json().replies[0].author.display_name).toBe('ada.l');
    // U01 and UBOT looked up once each; U09 arrived with a name and is never looked up.
    expect(usersInfoCalls()).toBe(2);
  });

  it('renders the same bytes for the same stored state and makes no call on a read of known names', async () => {
    const calls = usersInfoCalls();
    const first = await a.inject({ url: '/v1/channels/slack/C1/snapshot?anchor=m4' });
    const second = await a.inject({ url: '/v1/channels/slack/C1/snapshot?anchor=m4' });
    await ctx.app.services.userResolver.settle();
    expect(second.body).toBe(first.body);
    expect(usersInfoCalls()).toBe(calls);
  });

  it('remembers an unknown user (negative cache) and keeps showing the id', async () => {
    await ingest(a, 'C2', [{ message_id: 'n1', ts: at(5), text: 'ghost', author: { id: 'U404' } }]);
    await ctx.app.services.userResolver.settle();
    const calls = usersInfoCalls();
    expect(await authors(a, 'C2')).toEqual([{ user_id: 'U404', display_name: 'U404', is_bot: false }]);
    await ctx.app.services.userResolver.settle();
    expect(usersInfoCalls()).toBe(calls);
  });

  it('a rate-limited lookup stores nothing; a later read queues it again', async () => {
    slack.rateLimitNext(1, 1);
    await ingest(a, 'C3', [{ message_id: 'o1', ts: at(6), text: 'later', author: { id: 'U03' } }]);
    await ctx.app.services.userResolver.settle();
    expect(await authors(a, 'C3')).toEqual([{ user_id: 'U03', display_name: 'U03', is_bot: false }]);
    await ctx.app.services.userResolver.settle();
    expect(await authors(a, 'C3')).toEqual([{ user_id: 'U03', display_name: 'Cy Later', is_bot: false }]);
  });

  it('uses the guild nickname on Discord', async () => {
    const stored = await a.inject({
      method: 'PUT',
      url: '/v1/platforms/discord/credentials',
      payload: { bot_token: discord.token, workspace_id: '400000000000000001' },
    });
    expect(stored.statusCode).toBe(201);
    const response = await a.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'discord',
            channel_id: '500000000000000001',
            message_id: '600000000000000001',
            ts: at(7),
            text: 'ahoy',
            author: { id: '300000000000000001' },
          },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
    await ctx.app.services.userResolver.settle();
    expect(await authors(a, '500000000000000001', 'discord')).toEqual([
      { user_id: '300000000000000001', display_name: 'Admiral', is_bot: false },
    ]);
  });
});

describe('pushed directory', () => {
  it('pushed names win over resolved ones, and stay', async () => {
    const pushed = await a.inject({
      method: 'PUT',
      url: '/v1/platforms/slack/users',
      payload: { users: [{ user_id: 'U02', display_name: 'Bob Pushed', real_name: 'Robert' }] },
    });
    expect(pushed.statusCode, pushed.body).toBe(200);
    expect(pushed.json()).toMatchObject({ platform: 'slack', stored: 1 });
    await ingest(a, 'C4', [{ message_id: 'p1', ts: at(8), text: 'hi', author: { id: 'U02' } }]);
    await ctx.app.services.userResolver.settle();
    expect(await authors(a, 'C4')).toEqual([{ user_id: 'U02', display_name: 'Bob Pushed', is_bot: false }]);
    const entry = await a.inject({ url: '/v1/platforms/slack/users/U02' });
    expect(entry.json()).toMatchObject({ display_name: 'Bob Pushed', real_name: 'Robert', source: 'pushed' });
    // A pushed name also replaces a resolved one.
    await a.inject({
      method: 'PUT',
      url: '/v1/platforms/slack/users',
      payload: { users: [{ user_id: 'U01', display_name: 'Ada (pushed)' }] },
    });
    expect((await authors(a, 'C1'))[0]?.display_name).toBe('Ada (pushed)');
  });

  it('names authors for a tenant without a token, and for any platform name', async () => {
    await ingest(b, 'C1', [{ message_id: 'm1', ts: at(1), text: 'hello', author: { id: 'U01' } }]);
    await ctx.app.services.userResolver.settle();
    expect(await authors(b, 'C1')).toEqual([{ user_id: 'U01', display_name: 'U01', is_bot: false }]);
    const pushed = await b.inject({
      method: 'PUT',
      url: '/v1/platforms/slack/users',
      payload: { users: [{ user_id: 'U01', display_name: 'Bea', is_bot: false }] },
    });
    expect(pushed.statusCode).toBe(200);
    expect(await authors(b, 'C1')).toEqual([{ user_id: 'U01', display_name: 'Bea', is_bot: false }]);
    expect((await authors(a, 'C1'))[0]?.display_name).toBe('Ada (pushed)');
    const irc = await b.inject({
      method: 'PUT',
      url: '/v1/platforms/irc/users',
      payload: { users: [{ user_id: 'nick1', display_name: 'Nick One' }] },
    });
    expect(irc.statusCode).toBe(200);
  });

  it('keeps tenants apart', async () => {
    expect((await b.inject({ url: '/v1/platforms/slack/users/U02' })).statusCode).toBe(404);
    expect(errorOf(await b.inject({ url: '/v1/platforms/slack/users/U02' })).code).toBe(
      'platform_user.not_found',
    );
    expect((await a.inject({ url: '/v1/platforms/slack/users/U404' })).statusCode).toBe(404);
  });

  it('refuses bad input with the field path', async () => {
    const put = (payload: unknown, platform = 'slack') =>
      a.inject({ method: 'PUT', url: `/v1/platforms/${platform}/users`, payload: payload as object });
    const many = Array.from({ length: 1001 }, (_, i) => ({ user_id: `U${i}`, display_name: 'x' }));
    const cases: [unknown, string, string, string?][] = [
      [{ users: [] }, 'request.invalid', 'body.users'],
      [{ users: many }, 'request.invalid', 'body.users'],
      [{ users: [{ user_id: 'U1', display_name: '' }] }, 'request.invalid', 'body.users.0.display_name'],
      [
        { users: [{ user_id: 'U1', display_name: 'a\u0000b' }] },
        'request.invalid',
        'body.users.0.display_name',
      ],
      [{ users: [{ user_id: 'U1' }] }, 'request.invalid', 'body.users.0.display_name'],
      [
        {
          users: [
            { user_id: 'U1', display_name: 'a' },
            { user_id: 'U1', display_name: 'b' },
          ],
        },
        'platform.users_duplicate',
        'body.users.1.user_id',
      ],
      [
        { users: [{ user_id: 'U1', display_name: 'a' }] },
        'request.invalid',
        'params.platform',
        'Not A Platform',
      ],
    ];
    for (const [payload, code, path, platform] of cases) {
      const response = await put(payload, platform ? encodeURIComponent(platform) : 'slack');
      expect(response.statusCode, response.body).toBe(400);
      expect(errorOf(response).code).toBe(code);
      expect(JSON.stringify(errorOf(response).details)).toContain(path);
    }
  });

  it('never echoes or logs a token', () => {
    expect(lines.some((l) => l.includes('/v1/platforms/slack/credentials'))).toBe(true);
    // The rate-limited lookup above was logged, without the token.
    expect(lines.some((l) => l.includes('author name lookup failed') && l.includes('rate_limited'))).toBe(
      true,
    );
    for (const token of [slack.token, discord.token]) {
      expect(replies.join('\n')).not.toContain(token);
      expect(lines.join('\n')).not.toContain(token);
    }
  });
});
