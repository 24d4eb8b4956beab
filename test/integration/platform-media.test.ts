// Media bytes on demand: media refs that name platform files (Slack url_private, Telegram file_id)
// are fetched with the tenant's token when `include.media` needs them, stored as blobs (deduplicated
// by SHA-256) and attached; every failure is a note, and nothing half-written is stored.
import { deflateSync, crc32 } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fake-telegram.js';
import type { FakeFile } from '../helpers/fake-platform-server.js';

/** A valid RGBA PNG of the given size (one colour). */
function png(width: number, height: number, shade = 0x80): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 4, shade)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let ctx: TestContext;
let slack: FakeSlack;
let telegram: FakeTelegram;
let t: TestTenant;
let noToken: TestTenant;
let channelSeq = 0;

beforeAll(async () => {
  [slack, telegram] = await Promise.all([startFakeSlack(), startFakeTelegram()]);
  ctx = await createTestApp({
    env: {
      SLACK_API_URL: slack.apiUrl,
      TELEGRAM_API_URL: telegram.apiUrl,
      PLATFORM_FETCH_ALLOW: '127.0.0.1',
      PLATFORM_TIMEOUT_MS: '2000',
      BLOB_LIMIT_BYTES: String(2 * 1024 * 1024),
    },
  });
  t = await ctx.tenant();
  noToken = await ctx.tenant();
  for (const [platform, token] of [
    ['slack', slack.token],
    ['telegram', telegram.token],
  ] as const) {
    const stored = await t.inject({
      method: 'PUT',
      url: `/v1/platforms/${platform}/credentials`,
      payload: { bot_token: token },
    });
    expect(stored.statusCode).toBe(201);
  }
});
afterAll(async () => {
  await ctx?.close();
  await Promise.all([slack?.close(), telegram?.close()]);
});

async function session(tenant: TestTenant, platform = 'slack') {
  const channelId = `C${++channelSeq}`;
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform, chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId };
}

/** A channel message carrying `media`, then a context call anchored on it with include.media. */
async function askAbout(tenant: TestTenant, media: Record<string, unknown>[], platform = 'slack') {
  const s = await session(tenant, platform);
  if (platform === 'slack') {
    await ingest(tenant, s.channelId, [{ message_id: 'm1', ts: at(1), text: 'look', media }]);
  } else {
    const response = await tenant.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform,
            channel_id: s.channelId,
            message_id: 'm1',
            ts: at(1),
            text: 'look',
            author: { id: '42', name: 'Tess' },
            media,
          },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
  }
  const ask = () =>
    tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/context`,
      payload: {
        message: { content: 'what is it?', source: { platform, channel_id: s.channelId, message_id: 'm1' } },
        include: { media: 'thread' },
        dry_run: true,
      },
    });
  const response = await ask();
  expect(response.statusCode, response.body).toBe(200);
  return { reply: response.json(), ask, session: s };
}

const blobCount = async (tenantId: string) => {
  const rows = (await ctx.deps.database.db.execute(
    sql`select count(*)::int as n from blobs where tenant_id = ${tenantId}`,
  )) as unknown as { rows?: { n: number }[] } & { n: number }[];
  return Number((rows.rows ?? rows)[0]!.n);
};
const slackFile = (name: string, file: Partial<FakeFile> & { bytes: Buffer }) =>
  slack.addFile(name, { contentType: 'image/png', ...file });
/** The notes about media (a context call has others, e.g. on retrieval). */
const mediaNotes = (reply: { notes: string[] }) => reply.notes.filter((n) => n.startsWith('Media '));
const images = (reply: { payload: { messages: { content: { type: string }[] }[] } }) =>
  reply.payload.messages.at(-1)!.content.filter((b) => b.type === 'image');

describe('media fetched with the tenant token', () => {
  it('fetches a Slack url_private image once, stores it, and counts it by its size', async () => {
    const bytes = png(20, 20);
    const url = slackFile('icon.png', { bytes });
    const { reply, ask } = await askAbout(t, [{ url, media_type: 'image/png', filename: 'icon.png' }]);
    expect(mediaNotes(reply)).toEqual([]);
    expect(reply.attachments).toMatchObject([{ disposition: 'attached', media_type: 'image/png' }]);
    // 20×20 px is ⌈400 / 750⌉ = 1 token by the provider's rule, not the 1,600 of an unknown image.
    expect(reply.attachments[0].tokens).toBe(1);
    expect(images(reply)).toHaveLength(1);
    const stored = await t.inject({ url: `/v1/blobs/${reply.attachments[0].artifact_id}` });
    expect(Buffer.from(stored.rawPayload).equals(bytes)).toBe(true);
    // The ref now carries the artifact: the next call does not fetch again.
    const fetches = slack.requests.filter((r) => r.path.startsWith('/files-pri/')).length;
    const again = (await ask()).json();
    expect(again.attachments[0].artifact_id).toBe(reply.attachments[0].artifact_id);
    expect(slack.requests.filter((r) => r.path.startsWith('/files-pri/')).length).toBe(fetches);
    // The same bytes under another URL are the same blob.
    const copy = slackFile('copy.png', { bytes });
    const dedup = (await askAbout(t, [{ url: copy, media_type: 'image/png' }])).reply;
    expect(dedup.attachments[0].artifact_id).toBe(reply.attachments[0].artifact_id);
  });

  it('fetches a Telegram file_id through getFile', async () => {
    const fileId = telegram.addFile({ bytes: png(640, 480, 0x10), contentType: 'image/png' });
    const { reply } = await askAbout(
      t,
      [{ url: `telegram-file:${fileId}`, media_type: 'image/png' }],
      'telegram',
    );
    expect(mediaNotes(reply)).toEqual([]);
    expect(reply.attachments).toMatchObject([{ disposition: 'attached', tokens: 410 }]);
  });
});

describe('a fetch that fails says so and stores nothing', () => {
  const cases: [string, Partial<FakeFile>, RegExp][] = [
    ['a 500', { behaviour: 'error500' }, /HTTP 500/],
    ['garbage instead of the image', { behaviour: 'garbage' }, /refused the stored bot token/],
    [
      'bytes that are not the declared type',
      { bytes: Buffer.from('GIF89a not really a png') },
      /not image\/png/,
    ],
    [
      'a redirect to another host',
      { behaviour: 'redirect', redirectTo: 'http://localhost:9/x.png' },
      /redirected/,
    ],
    ['a 2 GB file', { behaviour: 'huge' }, /larger than the blob limit/],
    ['a 2 GB file without a length', { behaviour: 'huge_chunked' }, /larger than the blob limit/],
    ['no answer', { behaviour: 'hang' }, /did not answer in time/],
  ];
  for (const [what, file, reason] of cases) {
    it(`${what}`, async () => {
      const before = await blobCount(t.tenantId);
      const url = slackFile(`${what}.png`, { bytes: png(4, 4), ...file });
      const { reply } = await askAbout(t, [{ url, media_type: 'image/png', filename: 'chart.png' }]);
      expect(reply.attachments).toEqual([]);
      expect(images(reply)).toHaveLength(0);
      expect(mediaNotes(reply)).toHaveLength(1);
      expect(mediaNotes(reply)[0]).toMatch(/^Media "chart.png" of message m1 could not be fetched: /);
      expect(mediaNotes(reply)[0]).toMatch(reason);
      expect(reply.notes.join(' ')).not.toContain(slack.token);
      expect(await blobCount(t.tenantId)).toBe(before);
    });
  }

  it('garbage JSON from the Bot API (getFile)', async () => {
    const before = await blobCount(t.tenantId);
    const fileId = telegram.addFile({ bytes: png(4, 4), contentType: 'image/png' });
    telegram.mode = 'garbage';
    try {
      const { reply } = await askAbout(
        t,
        [{ url: `telegram-file:${fileId}`, media_type: 'image/png' }],
        'telegram',
      );
      expect(mediaNotes(reply)).toHaveLength(1);
      expect(mediaNotes(reply)[0]).toMatch(/something that is not its API/);
      expect(mediaNotes(reply)[0]).not.toContain(telegram.token);
    } finally {
      telegram.mode = 'ok';
    }
    expect(await blobCount(t.tenantId)).toBe(before);
  });

  it('without a token', async () => {
    const url = slackFile('n.png', { bytes: png(4, 4) });
    const { reply } = await askAbout(noToken, [{ url, media_type: 'image/png', filename: 'n.png' }]);
    expect(mediaNotes(reply)).toEqual([
      'Media "n.png" of message m1 could not be fetched: no slack bot token is stored for this tenant.',
    ]);
  });

  it('a URL on a host the platform does not serve files from (the token is not sent)', async () => {
    const before = slack.requests.length;
    const { reply } = await askAbout(t, [
      { url: 'http://169.254.169.254/latest/meta-data', media_type: 'image/png' },
    ]);
    expect(mediaNotes(reply)[0]).toMatch(/not on a host the platform serves files from/);
    // Nothing was downloaded (the call may still backfill the cold channel or look up names).
    const downloads = slack.requests.slice(before).filter((r) => !/conversations\.|users\.info/.test(r.path));
    expect(downloads).toEqual([]);
  });

  it('a private address unless the operator allows it', async () => {
    const strict = await createTestApp({
      testDb: ctx.testDb,
      env: { SLACK_API_URL: slack.apiUrl, PLATFORM_FETCH_ALLOW: '' },
    });
    try {
      const tenant = await strict.tenant();
      const stored = await tenant.inject({
        method: 'PUT',
        url: '/v1/platforms/slack/credentials',
        payload: { bot_token: slack.token },
      });
      expect(stored.statusCode).toBe(201);
      const url = slackFile('private.png', { bytes: png(4, 4) });
      const s = await (async () => {
        const response = await tenant.inject({
          method: 'POST',
          url: '/v1/sessions',
          payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CP' },
        });
        return response.json().session.id as string;
      })();
      await ingest(tenant, 'CP', [
        { message_id: 'm1', ts: at(1), text: 'look', media: [{ url, media_type: 'image/png' }] },
      ]);
      const reply = await tenant.inject({
        method: 'POST',
        url: `/v1/sessions/${s}/context`,
        payload: {
          message: { content: 'what?', source: { platform: 'slack', channel_id: 'CP', message_id: 'm1' } },
          include: { media: 'thread' },
          dry_run: true,
        },
      });
      expect(mediaNotes(reply.json())[0]).toMatch(/private or reserved and not allowed/);
    } finally {
      await strict.close();
    }
  });
});

describe('the channel_messages tool', () => {
  const tool = (tenant: TestTenant, sessionId: string, input: unknown) =>
    tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/tools/channel_messages`,
      payload: { input },
    });

  it('fetches the platform files of the messages it returns, then serves them by artifact id', async () => {
    const bytes = png(8, 8, 0x33);
    const url = slackFile('tool.png', { bytes });
    const { session: s } = await askAbout(t, [
      { url, media_type: 'image/x-unknown-kind', filename: 'skip.bin' },
    ]);
    // A ref of a type that cannot be attached is not fetched; an image ref on another message is.
    await ingest(t, s.channelId, [
      {
        message_id: 'm2',
        ts: at(2),
        text: 'chart',
        media: [{ url, media_type: 'image/png', filename: 'tool.png' }],
      },
    ]);
    const listed = await tool(t, s.id, { message_ids: ['m1', 'm2'] });
    expect(listed.statusCode, listed.body).toBe(200);
    const result = JSON.parse(listed.json().content[0].text);
    expect(result.media_notes).toBeUndefined();
    expect(result.messages[0].media[0].artifact_id).toBeUndefined();
    const artifactId = result.messages[1].media[0].artifact_id as string;
    expect(artifactId).toMatch(/^[0-9a-f-]{36}$/);
    const image = await tool(t, s.id, { media_artifact_id: artifactId });
    expect(image.statusCode, image.body).toBe(200);
    const block = image.json().content.find((b: { type: string }) => b.type === 'image');
    expect(Buffer.from(block.source.data, 'base64').equals(bytes)).toBe(true);
  });

  it('says in media_notes what it could not fetch', async () => {
    const url = slackFile('broken.png', { bytes: png(4, 4), behaviour: 'error500' });
    const { session: s } = await askAbout(t, [{ url, media_type: 'image/png', filename: 'broken.png' }]);
    const listed = await tool(t, s.id, { message_ids: ['m1'] });
    const result = JSON.parse(listed.json().content[0].text);
    expect(result.media_notes).toEqual([
      'Media "broken.png" of message m1 could not be fetched: the platform answered HTTP 500.',
    ]);
  });
});
