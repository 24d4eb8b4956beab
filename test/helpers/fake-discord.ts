// A local fake of Discord's REST API (v10) and attachment CDN for tests: `Authorization: Bot …`
// (401 `{message:"401: Unauthorized", code:0}` otherwise), GET /users/{id}, GET
// /guilds/{g}/members/{u} (Unknown Guild 10004 / Unknown Member 10007), GET
// /channels/{id}/messages with limit 1–100 and one of before/after/around (50035 Invalid Form Body
// otherwise; Unknown Channel 10003), newest first; CDN attachment URLs signed with ex/is/hm (an
// unsigned or tampered URL is refused, as the real CDN does since 2023); 429 with retry_after.
import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { json, serveFile, startFakeServer, type FakeFile, type FakeServer } from './fake-platform-server.js';

export interface FakeDiscordUser {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
}

export interface FakeDiscordMessage {
  id: string;
  content: string;
  timestamp: string;
  author: FakeDiscordUser;
  attachments?: { id: string; filename: string; content_type: string; size: number; url: string }[];
}

export interface FakeDiscord extends FakeServer {
  /** The REST base (DISCORD_API_URL). */
  apiUrl: string;
  token: string;
  users: Map<string, FakeDiscordUser>;
  /** guild id → user id → nick. */
  guilds: Map<string, Map<string, { nick?: string | null }>>;
  channels: Map<string, FakeDiscordMessage[]>;
  /** Stores an attachment and returns its signed CDN URL. */
  addAttachment(channelId: string, filename: string, file: FakeFile): string;
  rateLimitNext(count: number, seconds: number): void;
  mode: 'ok' | 'error500' | 'garbage';
}

const invalidForm = (field: string, code: string, message: string) => ({
  code: 50035,
  message: 'Invalid Form Body',
  errors: { [field]: { _errors: [{ code, message }] } },
});

export async function startFakeDiscord(options: { token?: string } = {}): Promise<FakeDiscord> {
  const token = options.token ?? 'MTA5ODc2NTQzMjEwOTg3NjU0Mw.GfAkEd.fakediscordtokenAbCdEfGhIjKlMnOp';
  const signingKey = 'fake-cdn-key';
  const users = new Map<string, FakeDiscordUser>();
  const guilds = new Map<string, Map<string, { nick?: string | null }>>();
  const channels = new Map<string, FakeDiscordMessage[]>();
  const attachments = new Map<string, FakeFile>();
  let limited = { count: 0, seconds: 0 };
  let attachmentCounter = 0;
  const sign = (path: string, ex: string) =>
    createHmac('sha256', signingKey).update(`${path}|${ex}`).digest('hex');
  const bySnowflake = (a: { id: string }, b: { id: string }) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);

  const userView = (u: FakeDiscordUser) => ({
    id: u.id,
    username: u.username,
    global_name: u.global_name ?? null,
    discriminator: '0',
    avatar: null,
    ...(u.bot ? { bot: true } : {}),
  });

  const messages = (res: ServerResponse, channelId: string, q: URLSearchParams) => {
    const list = channels.get(channelId);
    if (!list) return json(res, 404, { message: 'Unknown Channel', code: 10003 });
    const rawLimit = q.get('limit');
    const limit = rawLimit === null ? 50 : Number(rawLimit);
    if (!Number.isInteger(limit))
      return json(res, 400, invalidForm('limit', 'NUMBER_TYPE_COERCE', `Value "${rawLimit}" is not int.`));
    if (limit > 100)
      return json(
        res,
        400,
        invalidForm('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.'),
      );
    if (limit < 1)
      return json(
        res,
        400,
        invalidForm('limit', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.'),
      );
    const anchors = ['before', 'after', 'around'].filter((k) => q.has(k));
    for (const k of anchors) {
      if (!/^\d{1,20}$/.test(q.get(k)!))
        return json(res, 400, invalidForm(k, 'NUMBER_TYPE_COERCE', `Value "${q.get(k)}" is not snowflake.`));
    }
    if (anchors.length > 1)
      return json(
        res,
        400,
        invalidForm(anchors[1]!, 'BASE_TYPE_BAD', 'Only one of around, before, after may be given.'),
      );
    const sorted = [...list].sort(bySnowflake);
    let page: FakeDiscordMessage[];
    if (q.has('after')) {
      const after = BigInt(q.get('after')!);
      page = sorted.filter((m) => BigInt(m.id) > after).slice(0, limit);
    } else if (q.has('around')) {
      const around = BigInt(q.get('around')!);
      const idx = sorted.findIndex((m) => BigInt(m.id) >= around);
      const start = Math.max(0, (idx < 0 ? sorted.length : idx) - Math.floor(limit / 2));
      page = sorted.slice(start, start + limit);
    } else {
      const before = q.has('before') ? BigInt(q.get('before')!) : null;
      const older = before === null ? sorted : sorted.filter((m) => BigInt(m.id) < before);
      page = older.slice(Math.max(0, older.length - limit));
    }
    json(
      res,
      200,
      page.reverse().map((m) => ({
        id: m.id,
        type: 0,
        channel_id: channelId,
        content: m.content,
        timestamp: m.timestamp,
        edited_timestamp: null,
        author: userView(m.author),
        attachments: m.attachments ?? [],
        embeds: [],
        mentions: [],
        pinned: false,
        tts: false,
      })),
    );
  };

  const server = await startFakeServer((req, res, _body, url) => {
    if (url.pathname.startsWith('/attachments/')) {
      const ex = url.searchParams.get('ex') ?? '';
      const valid =
        url.searchParams.get('hm') === sign(url.pathname, ex) && Number.parseInt(ex, 16) * 1000 > Date.now();
      const file = attachments.get(url.pathname);
      if (!valid || !file) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('This content is no longer available.');
      }
      return serveFile(server, res, file);
    }
    const path = url.pathname.replace(/^\/api\/v10/, '');
    if (limited.count > 0) {
      limited.count -= 1;
      return json(
        res,
        429,
        { message: 'You are being rate limited.', retry_after: limited.seconds, global: false },
        { 'retry-after': String(Math.ceil(limited.seconds)), 'x-ratelimit-scope': 'user' },
      );
    }
    if (fake.mode === 'error500') return json(res, 500, { message: 'Internal Server Error', code: 0 });
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('<html>502 Bad Gateway</html>');
    }
    if (req.headers.authorization !== `Bot ${token}`)
      return json(res, 401, { message: '401: Unauthorized', code: 0 });
    let m: RegExpExecArray | null;
    if ((m = /^\/users\/(\d+)$/.exec(path))) {
      const user = users.get(m[1]!);
      return user ? json(res, 200, userView(user)) : json(res, 404, { message: 'Unknown User', code: 10013 });
    }
    if ((m = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(path))) {
      const guild = guilds.get(m[1]!);
      if (!guild) return json(res, 404, { message: 'Unknown Guild', code: 10004 });
      const member = guild.get(m[2]!);
      const user = users.get(m[2]!);
      if (!member || !user) return json(res, 404, { message: 'Unknown Member', code: 10007 });
      return json(res, 200, {
        user: userView(user),
        nick: member.nick ?? null,
        roles: [],
        joined_at: '2025-01-01T00:00:00.000000+00:00',
      });
    }
    if ((m = /^\/channels\/(\d+)\/messages$/.exec(path)) && req.method === 'GET') {
      return messages(res, m[1]!, url.searchParams);
    }
    json(res, 404, { message: '404: Not Found', code: 0 });
  });

  const fake: FakeDiscord = Object.assign(server, {
    apiUrl: `${server.origin}/api/v10`,
    token,
    users,
    guilds,
    channels,
    mode: 'ok' as FakeDiscord['mode'],
    addAttachment(channelId: string, filename: string, file: FakeFile) {
      attachmentCounter += 1;
      const path = `/attachments/${channelId}/${1_200_000_000_000_000_000n + BigInt(attachmentCounter)}/${encodeURIComponent(filename)}`;
      attachments.set(path, file);
      const ex = Math.floor(Date.now() / 1000 + 86_400).toString(16);
      return `${server.origin}${path}?ex=${ex}&is=${ex}&hm=${sign(path, ex)}&`;
    },
    rateLimitNext(count: number, seconds: number) {
      limited = { count, seconds };
    },
  });
  return fake;
}
