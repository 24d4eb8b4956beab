// The platform API clients over real HTTP against local fakes of Slack, Discord and Telegram:
// typed errors for every way a platform or a media URL can misbehave, the address guard, the gate,
// and the token kept out of every error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformApis } from '../../src/platforms/api/platform-api.js';
import type {
  PlatformCallGate,
  PlatformCallKey,
  PlatformCredential,
} from '../../src/platforms/api/platform-call.js';
import { PlatformApiError } from '../../src/platforms/api/platform-errors.js';
import { testConfig } from '../helpers/app.js';
import { TWO_GB } from '../helpers/fake-platform-server.js';
import { startFakeDiscord, type FakeDiscord } from '../helpers/fake-discord.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.js';

let slack: FakeSlack;
let discord: FakeDiscord;
let telegram: FakeTelegram;
const gateCalls: PlatformCallKey[] = [];
const limitedCalls: { key: PlatformCallKey; retryAfterMs: number | undefined }[] = [];
const recordingGate: PlatformCallGate = {
  acquire: async (key) => void gateCalls.push(key),
  onRateLimited: (key, retryAfterMs) => void limitedCalls.push({ key, retryAfterMs }),
};

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const apis = (env: Record<string, string> = {}, gate: PlatformCallGate = recordingGate) =>
  createPlatformApis(
    testConfig({
      SLACK_API_URL: slack.apiUrl,
      DISCORD_API_URL: discord.apiUrl,
      TELEGRAM_API_URL: telegram.apiUrl,
      PLATFORM_FETCH_ALLOW: '127.0.0.1',
      PLATFORM_TIMEOUT_MS: '1500',
      BLOB_LIMIT_BYTES: String(1024 * 1024),
      ...env,
    }),
    gate,
  );

const cred = (
  platform: PlatformCredential['platform'],
  token: string,
  workspaceId: string | null = null,
) => ({
  tenantId: 't_api',
  platform,
  token,
  workspaceId,
});

/** The PlatformApiError a call fails with (and a check that its message never carries the token). */
async function failure(promise: Promise<unknown>, token: string): Promise<PlatformApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformApiError);
  expect(String((error as Error).message)).not.toContain(token);
  expect(JSON.stringify(error)).not.toContain(token);
  return error as PlatformApiError;
}

beforeAll(async () => {
  [slack, discord, telegram] = await Promise.all([startFakeSlack(), startFakeDiscord(), startFakeTelegram()]);
  slack.users.set('U01', { id: 'U01', name: 'ada', real_name: 'Ada Lovelace', display_name: 'ada.l' });
  discord.users.set('300000000000000001', {
    id: '300000000000000001',
    username: 'grace',
    global_name: 'Grace H',
  });
  discord.guilds.set('400000000000000001', new Map([['300000000000000001', { nick: 'Admiral' }]]));
});
afterAll(async () => {
  await Promise.all([slack?.close(), discord?.close(), telegram?.close()]);
});

describe('slack', () => {
  it('resolves a user with the bearer token, through the gate', async () => {
    gateCalls.length = 0;
    const user = await apis().slack.usersInfo(cred('slack', slack.token, 'T0FAKE01'), 'U01');
    expect(user).toMatchObject({ id: 'U01', real_name: 'Ada Lovelace', profile: { display_name: 'ada.l' } });
    expect(gateCalls).toEqual([{ tenantId: 't_api', platform: 'slack', workspaceId: 'T0FAKE01' }]);
    expect(slack.requests.at(-1)).toMatchObject({
      path: '/api/users.info',
      authorization: `Bearer ${slack.token}`,
    });
  });

  it('names what Slack refused: a wrong token, an unknown user', async () => {
    const wrong = 'xoxb-9999999999-wrongtokenwrongtoken';
    expect((await failure(apis().slack.usersInfo(cred('slack', wrong), 'U01'), wrong)).kind).toBe(
      'unauthorized',
    );
    const missing = await failure(apis().slack.usersInfo(cred('slack', slack.token), 'U404'), slack.token);
    expect(missing).toMatchObject({ kind: 'not_found', details: { platformError: 'user_not_found' } });
  });

  it('turns a 429 into rate_limited with the delay, and tells the gate', async () => {
    limitedCalls.length = 0;
    slack.rateLimitNext(1, 7);
    const error = await failure(apis().slack.usersInfo(cred('slack', slack.token), 'U01'), slack.token);
    expect(error).toMatchObject({ kind: 'rate_limited', details: { status: 429, retryAfterMs: 7000 } });
    expect(limitedCalls).toEqual([
      { key: expect.objectContaining({ platform: 'slack' }), retryAfterMs: 7000 },
    ]);
  });

  it('turns a 500 and garbage JSON into typed errors', async () => {
    slack.mode = 'error500';
    expect((await failure(apis().slack.usersInfo(cred('slack', slack.token), 'U01'), slack.token)).kind).toBe(
      'http_status',
    );
    slack.mode = 'garbage';
    expect((await failure(apis().slack.usersInfo(cred('slack', slack.token), 'U01'), slack.token)).kind).toBe(
      'bad_json',
    );
    slack.mode = 'ok';
  });

  it('pages conversations.history newest first with cursors, and replies oldest first', async () => {
    const messages = Array.from({ length: 5 }, (_, i) => ({
      ts: `170000000${i}.000100`,
      user: 'U01',
      text: `m${i}`,
    }));
    slack.channels.set('C01', [
      ...messages,
      { ts: '1700000001.000200', user: 'U01', text: 'reply', thread_ts: '1700000001.000100' },
    ]);
    const api = apis().slack;
    const first = await api.conversationsHistory(cred('slack', slack.token), { channel: 'C01', limit: 2 });
    expect(first.messages.map((m) => m.text)).toEqual(['m4', 'm3']);
    expect(first.nextCursor).not.toBe('');
    const second = await api.conversationsHistory(cred('slack', slack.token), {
      channel: 'C01',
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.messages.map((m) => m.text)).toEqual(['m2', 'm1']);
    const thread = await api.conversationsReplies(cred('slack', slack.token), {
      channel: 'C01',
      ts: '1700000001.000100',
    });
    expect(thread.messages.map((m) => m.text)).toEqual(['m1', 'reply']);
    expect(thread.messages[0]).toMatchObject({ reply_count: 1 });
    const bad = await failure(
      api.conversationsHistory(cred('slack', slack.token), { channel: 'C01', cursor: 'bm90IGEgY3Vyc29y' }),
      slack.token,
    );
    expect(bad.details.platformError).toBe('invalid_cursor');
    const unknown = await failure(
      api.conversationsHistory(cred('slack', slack.token), { channel: 'C404' }),
      slack.token,
    );
    expect(unknown).toMatchObject({ kind: 'not_found', details: { platformError: 'channel_not_found' } });
  });

  it('downloads a url_private file with the token; without it Slack’s sign-in page is a refusal', async () => {
    const url = slack.addFile('dot.png', { bytes: PNG, contentType: 'image/png' });
    const media = await apis().slack.downloadFile(cred('slack', slack.token), url);
    expect(media.bytes.equals(PNG)).toBe(true);
    expect(media.mediaType).toBe('image/png');
    const wrong = 'xoxb-9999999999-wrongtokenwrongtoken';
    expect((await failure(apis().slack.downloadFile(cred('slack', wrong), url), wrong)).kind).toBe(
      'unauthorized',
    );
  });

  it('refuses a file URL on a host Slack does not serve files from (the token is never sent there)', async () => {
    const before = slack.requests.length;
    const error = await failure(
      apis().slack.downloadFile(cred('slack', slack.token), 'https://evil.example/files-pri/x.png'),
      slack.token,
    );
    expect(error.kind).toBe('host_refused');
    expect(slack.requests.length).toBe(before);
  });

  it('stops a 2 GB file early, with or without a declared length, and never buffers it', async () => {
    for (const behaviour of ['huge', 'huge_chunked'] as const) {
      const url = slack.addFile(`${behaviour}.bin`, {
        bytes: Buffer.alloc(0),
        contentType: 'application/zip',
        behaviour,
      });
      const before = slack.hugeBytesSent;
      const error = await failure(apis().slack.downloadFile(cred('slack', slack.token), url), slack.token);
      expect(error.kind).toBe('too_large');
      expect(slack.hugeBytesSent - before).toBeLessThan(TWO_GB / 100);
    }
  });

  it('follows a redirect on the same host, refuses one to another host', async () => {
    const target = slack.addFile('target.png', { bytes: PNG, contentType: 'image/png' });
    const same = slack.addFile('same.png', {
      bytes: PNG,
      contentType: 'image/png',
      behaviour: 'redirect',
      redirectTo: target,
    });
    expect((await apis().slack.downloadFile(cred('slack', slack.token), same)).bytes.equals(PNG)).toBe(true);
    const elsewhere = slack.addFile('elsewhere.png', {
      bytes: PNG,
      contentType: 'image/png',
      behaviour: 'redirect',
      redirectTo: `${discord.origin}/anything.png`,
    });
    const error = await failure(
      apis().slack.downloadFile(cred('slack', slack.token), elsewhere),
      slack.token,
    );
    expect(error.kind).toBe('redirect_refused');
  });

  it('gives up on a platform that does not answer', async () => {
    const url = slack.addFile('hang.png', { bytes: PNG, contentType: 'image/png', behaviour: 'hang' });
    const error = await failure(
      apis({ PLATFORM_TIMEOUT_MS: '300' }).slack.downloadFile(cred('slack', slack.token), url),
      slack.token,
    );
    expect(error.kind).toBe('timeout');
  });

  it('refuses loopback unless the operator allows it, by literal address and by name', async () => {
    const strict = apis({ PLATFORM_FETCH_ALLOW: '' });
    const byAddress = await failure(strict.slack.usersInfo(cred('slack', slack.token), 'U01'), slack.token);
    expect(byAddress.kind).toBe('address_refused');
    const byName = createPlatformApis(
      testConfig({ SLACK_API_URL: slack.apiUrl.replace('127.0.0.1', 'localhost') }),
    );
    const named = await failure(byName.slack.usersInfo(cred('slack', slack.token), 'U01'), slack.token);
    expect(named.kind).toBe('address_refused');
  });
});

describe('discord', () => {
  it('reads a guild member and a user with the Bot token', async () => {
    const api = apis().discord;
    const member = await api.guildMember(
      cred('discord', discord.token),
      '400000000000000001',
      '300000000000000001',
    );
    expect(member).toMatchObject({ nick: 'Admiral', user: { username: 'grace', global_name: 'Grace H' } });
    expect(discord.requests.at(-1)?.authorization).toBe(`Bot ${discord.token}`);
    const missing = await failure(
      api.guildMember(cred('discord', discord.token), '400000000000000001', '399'),
      discord.token,
    );
    expect(missing).toMatchObject({ kind: 'not_found', details: { status: 404 } });
    const wrong = 'MTAwMDAwMDAwMDAwMDAwMDAw.AbCdEf.wrongwrongwrongwrongwrongwrong';
    expect((await failure(api.user(cred('discord', wrong), '300000000000000001'), wrong)).kind).toBe(
      'unauthorized',
    );
  });

  it('pages channel messages newest first with before/after, limit clamped to 100', async () => {
    const author = { id: '300000000000000001', username: 'grace' };
    discord.channels.set(
      '500000000000000001',
      Array.from({ length: 5 }, (_, i) => ({
        id: String(600000000000000000n + BigInt(i)),
        content: `d${i}`,
        timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
        author,
      })),
    );
    const api = apis().discord;
    const latest = await api.channelMessages(cred('discord', discord.token), {
      channelId: '500000000000000001',
      limit: 2,
    });
    expect(latest.map((m) => m.content)).toEqual(['d4', 'd3']);
    const older = await api.channelMessages(cred('discord', discord.token), {
      channelId: '500000000000000001',
      before: latest.at(-1)!.id,
      limit: 500,
    });
    expect(older.map((m) => m.content)).toEqual(['d2', 'd1', 'd0']);
    const after = await api.channelMessages(cred('discord', discord.token), {
      channelId: '500000000000000001',
      after: '600000000000000002',
    });
    expect(after.map((m) => m.content)).toEqual(['d4', 'd3']);
  });

  it('the fake refuses what Discord refuses: limit over 100, two anchors', async () => {
    const ask = (query: string) =>
      fetch(`${discord.apiUrl}/channels/500000000000000001/messages?${query}`, {
        headers: { authorization: `Bot ${discord.token}` },
      });
    const over = await ask('limit=101');
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({ code: 50035 });
    expect((await ask('before=1&after=2')).status).toBe(400);
  });

  it('downloads a signed CDN attachment without sending the token; a tampered URL is not found', async () => {
    const url = discord.addAttachment('500000000000000001', 'dot.png', {
      bytes: PNG,
      contentType: 'image/png',
    });
    const media = await apis().discord.downloadAttachment(cred('discord', discord.token), url);
    expect(media.bytes.equals(PNG)).toBe(true);
    expect(discord.requests.at(-1)?.authorization).toBeUndefined();
    const tampered = url.replace(/hm=[0-9a-f]+/, 'hm=00');
    const error = await failure(
      apis().discord.downloadAttachment(cred('discord', discord.token), tampered),
      discord.token,
    );
    expect(error.kind).toBe('not_found');
  });

  it('carries Discord’s 429 delay', async () => {
    discord.rateLimitNext(1, 2.5);
    const error = await failure(
      apis().discord.user(cred('discord', discord.token), '300000000000000001'),
      discord.token,
    );
    expect(error).toMatchObject({ kind: 'rate_limited', details: { retryAfterMs: 3000 } });
  });
});

describe('telegram', () => {
  it('getFile then the bytes; the token (in every URL) is in no error', async () => {
    const fileId = telegram.addFile({ bytes: PNG, contentType: 'image/png' });
    const media = await apis().telegram.downloadFile(cred('telegram', telegram.token), fileId);
    expect(media.bytes.equals(PNG)).toBe(true);
    expect(media.source).not.toContain(telegram.token);
    const invalid = await failure(
      apis().telegram.downloadFile(cred('telegram', telegram.token), 'nope'),
      telegram.token,
    );
    expect(invalid).toMatchObject({
      kind: 'platform_error',
      details: { platformError: 'Bad Request: invalid file_id' },
    });
    const wrong = '987654321:AAwrongwrongwrongwrongwrongwrongwrong';
    expect((await failure(apis().telegram.getFile(cred('telegram', wrong), fileId), wrong)).kind).toBe(
      'unauthorized',
    );
  });

  it('reports Telegram’s 20 MB limit, a 500 and garbage', async () => {
    const big = telegram.addFile({ bytes: PNG, contentType: 'image/png' }, 30 * 1024 * 1024);
    const error = await failure(
      apis().telegram.downloadFile(cred('telegram', telegram.token), big),
      telegram.token,
    );
    expect(error.details.platformError).toBe('Bad Request: file is too big');
    telegram.mode = 'error500';
    expect(
      (await failure(apis().telegram.getFile(cred('telegram', telegram.token), big), telegram.token)).kind,
    ).toBe('http_status');
    telegram.mode = 'garbage';
    expect(
      (await failure(apis().telegram.getFile(cred('telegram', telegram.token), big), telegram.token)).kind,
    ).toBe('bad_json');
    telegram.mode = 'ok';
  });

  it('a refused address names no token even though the URL carries it', async () => {
    const strict = apis({ PLATFORM_FETCH_ALLOW: '' });
    const error = await failure(
      strict.telegram.getFile(cred('telegram', telegram.token), 'x'),
      telegram.token,
    );
    expect(error.kind).toBe('address_refused');
    expect(error.message).toContain('[redacted]');
  });
});
