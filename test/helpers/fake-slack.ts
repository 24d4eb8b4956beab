// A local fake of the Slack Web API for tests: Bearer-token auth (`not_authed` / `invalid_auth`
// with HTTP 200 and ok:false, as Slack answers), users.info, conversations.history and
// .replies with cursor pagination (limit clamped to 999 / 1000, `invalid_cursor`,
// `channel_not_found`, `thread_not_found`), url_private downloads that need the same token (without
// it Slack serves its HTML sign-in page), 429 + Retry-After on demand, and a 500 / garbage mode.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  json,
  readParams,
  serveFile,
  startFakeServer,
  type FakeFile,
  type FakeServer,
} from './fake-platform-server.js';

export interface FakeSlackUser {
  id: string;
  name: string;
  real_name?: string;
  display_name?: string;
  is_bot?: boolean;
  deleted?: boolean;
}

export interface FakeSlackMessage {
  ts: string;
  user?: string;
  text: string;
  thread_ts?: string;
  files?: { id: string; name: string; mimetype: string; url_private: string; size: number }[];
}

export interface FakeSlack extends FakeServer {
  /** The Web API base (SLACK_API_URL). */
  apiUrl: string;
  token: string;
  teamId: string;
  users: Map<string, FakeSlackUser>;
  /** channel id → messages (any order; the fake sorts by ts). */
  channels: Map<string, FakeSlackMessage[]>;
  /** url path → file. */
  files: Map<string, FakeFile>;
  /** Stores a file and returns its url_private. */
  addFile(name: string, file: FakeFile): string;
  /** The next `count` Web API calls answer 429 with Retry-After: `seconds`. */
  rateLimitNext(count: number, seconds: number): void;
  mode: 'ok' | 'error500' | 'garbage';
}

const HISTORY_MAX = 999;
const REPLIES_MAX = 1000;

export async function startFakeSlack(options: { token?: string; teamId?: string } = {}): Promise<FakeSlack> {
  const token = options.token ?? 'xoxb-1111111111-2222222222-fakeslacktokenAbCdEf';
  let limited = { count: 0, seconds: 0 };
  let fileCounter = 0;
  const state = {
    users: new Map<string, FakeSlackUser>(),
    channels: new Map<string, FakeSlackMessage[]>(),
    files: new Map<string, FakeFile>(),
  };

  const auth = (req: IncomingMessage, params: Record<string, string>): string | null => {
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice(7) : params.token;
    if (!given) return 'not_authed';
    return given === token ? null : 'invalid_auth';
  };

  const cursorOf = (offset: number) => Buffer.from(`next:${offset}`).toString('base64');
  const offsetOf = (cursor: string | undefined): number | null => {
    if (!cursor) return 0;
    const m = /^next:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    return m ? Number(m[1]) : null;
  };
  const limitOf = (raw: string | undefined, max: number, def: number) => {
    const n = raw === undefined ? def : Number.parseInt(raw, 10);
    return Number.isFinite(n) && n > 0 ? Math.min(n, max) : def;
  };
  const byTs = (a: FakeSlackMessage, b: FakeSlackMessage) => Number(a.ts) - Number(b.ts);
  const paged = (
    res: ServerResponse,
    list: FakeSlackMessage[],
    params: Record<string, string>,
    max: number,
    def: number,
  ) => {
    const offset = offsetOf(params.cursor);
    if (offset === null) return json(res, 200, { ok: false, error: 'invalid_cursor' });
    const limit = limitOf(params.limit, max, def);
    const page = list.slice(offset, offset + limit);
    const more = offset + limit < list.length;
    json(res, 200, {
      ok: true,
      messages: page,
      has_more: more,
      response_metadata: { next_cursor: more ? cursorOf(offset + limit) : '' },
    });
  };
  const inRange = (m: FakeSlackMessage, p: Record<string, string>) => {
    const ts = Number(m.ts);
    const inclusive = p.inclusive === 'true' || p.inclusive === '1';
    if (p.oldest && (inclusive ? ts < Number(p.oldest) : ts <= Number(p.oldest))) return false;
    if (p.latest && (inclusive ? ts > Number(p.latest) : ts >= Number(p.latest))) return false;
    return true;
  };

  const methods: Record<string, (res: ServerResponse, p: Record<string, string>) => void> = {
    'auth.test': (res) => json(res, 200, { ok: true, team_id: fake.teamId, user_id: 'UBOT', bot_id: 'BBOT' }),
    'users.info': (res, p) => {
      if (!p.user) return json(res, 200, { ok: false, error: 'invalid_arguments' });
      const user = state.users.get(p.user);
      if (!user) return json(res, 200, { ok: false, error: 'user_not_found' });
      json(res, 200, {
        ok: true,
        user: {
          id: user.id,
          team_id: fake.teamId,
          name: user.name,
          deleted: user.deleted ?? false,
          real_name: user.real_name ?? '',
          is_bot: user.is_bot ?? false,
          profile: {
            display_name: user.display_name ?? '',
            real_name: user.real_name ?? '',
            display_name_normalized: user.display_name ?? '',
            real_name_normalized: user.real_name ?? '',
          },
        },
      });
    },
    'conversations.history': (res, p) => {
      if (!p.channel) return json(res, 200, { ok: false, error: 'invalid_arguments' });
      const all = state.channels.get(p.channel);
      if (!all) return json(res, 200, { ok: false, error: 'channel_not_found' });
      // Top-level messages and thread parents, newest first.
      const list = all
        .filter((m) => !m.thread_ts || m.thread_ts === m.ts)
        .filter((m) => inRange(m, p))
        .sort(byTs)
        .reverse()
        .map((m) => withThreadStats(m, all));
      paged(res, list, p, HISTORY_MAX, 100);
    },
    'conversations.replies': (res, p) => {
      if (!p.channel || !p.ts) return json(res, 200, { ok: false, error: 'invalid_arguments' });
      const all = state.channels.get(p.channel);
      if (!all) return json(res, 200, { ok: false, error: 'channel_not_found' });
      const parent = all.find((m) => m.ts === p.ts);
      if (!parent) return json(res, 200, { ok: false, error: 'thread_not_found' });
      const root = parent.thread_ts ?? parent.ts;
      const list = all
        .filter((m) => m.ts === root || m.thread_ts === root)
        .filter((m) => m.ts === root || inRange(m, p))
        .sort(byTs)
        .map((m) => (m.ts === root ? withThreadStats(m, all) : m));
      paged(res, list, p, REPLIES_MAX, REPLIES_MAX);
    },
  };

  const withThreadStats = (m: FakeSlackMessage, all: FakeSlackMessage[]) => {
    const replies = all.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts).sort(byTs);
    if (replies.length === 0) return m;
    return { ...m, thread_ts: m.ts, reply_count: replies.length, latest_reply: replies.at(-1)!.ts };
  };

  const server = await startFakeServer((req, res, body, url) => {
    if (url.pathname.startsWith('/files-pri/')) {
      const file = state.files.get(url.pathname);
      if (req.headers.authorization !== `Bearer ${token}`) {
        // Slack sends a browser (or a tokenless bot) its sign-in page, with HTTP 200.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end('<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in</body></html>');
      }
      if (!file) return json(res, 404, { ok: false, error: 'file_not_found' });
      return serveFile(server, res, file);
    }
    const method = /^\/api\/([a-zA-Z.]+)$/.exec(url.pathname)?.[1];
    const handler = method ? methods[method] : undefined;
    if (!handler) return json(res, 404, { ok: false, error: 'unknown_method' });
    if (limited.count > 0) {
      limited.count -= 1;
      return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limited.seconds) });
    }
    if (fake.mode === 'error500') return json(res, 500, { ok: false, error: 'internal_error' });
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"ok": tru');
    }
    const params = readParams(req, body, url);
    const authError = auth(req, params);
    if (authError) return json(res, 200, { ok: false, error: authError });
    handler(res, params);
  });

  const fake: FakeSlack = Object.assign(server, {
    apiUrl: `${server.origin}/api`,
    token,
    teamId: options.teamId ?? 'T0FAKE01',
    users: state.users,
    channels: state.channels,
    files: state.files,
    mode: 'ok' as FakeSlack['mode'],
    addFile(name: string, file: FakeFile) {
      fileCounter += 1;
      const path = `/files-pri/${fake.teamId}-F${String(fileCounter).padStart(6, '0')}/${encodeURIComponent(name)}`;
      state.files.set(path, file);
      return `${server.origin}${path}`;
    },
    rateLimitNext(count: number, seconds: number) {
      limited = { count, seconds };
    },
  });
  return fake;
}
