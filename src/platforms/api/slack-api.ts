// Slack Web API calls made with a tenant's bot token: users.info, conversations.history and
// .replies (cursor pages), and url_private file downloads (which need the same Bearer token).
import { z } from 'zod';
import {
  checkedUrl,
  gated,
  mediaFrom,
  sendForJson,
  type FetchedMedia,
  type PlatformClientDeps,
  type PlatformCredential,
} from './platform-call.js';
import { PlatformApiError } from './platform-errors.js';

const slackUser = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  real_name: z.string().optional(),
  is_bot: z.boolean().optional(),
  deleted: z.boolean().optional(),
  profile: z
    .looseObject({ display_name: z.string().optional(), real_name: z.string().optional() })
    .optional(),
});
export type SlackUser = z.infer<typeof slackUser>;

const slackMessage = z.looseObject({
  ts: z.string(),
  type: z.string().optional(),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  thread_ts: z.string().optional(),
  reply_count: z.number().optional(),
  latest_reply: z.string().optional(),
});
type SlackMessage = z.infer<typeof slackMessage>;

const messagePage = z.looseObject({
  messages: z.array(slackMessage),
  has_more: z.boolean().optional(),
  response_metadata: z.looseObject({ next_cursor: z.string().optional() }).optional(),
});

interface SlackPage {
  messages: SlackMessage[];
  /** Empty when there is no further page. */
  nextCursor: string;
}

interface SlackHistoryParams {
  channel: string;
  cursor?: string;
  /** Slack takes up to 999 for history and 1000 for replies; it clamps larger values. */
  limit?: number;
  oldest?: string;
  latest?: string;
  inclusive?: boolean;
}

export function createSlackApi(deps: PlatformClientDeps) {
  /** POSTs a Web API method (form-encoded) and returns the reply when `ok`, else a typed error. */
  async function call(credential: PlatformCredential, method: string, params: Record<string, string>) {
    return gated(deps.gate, credential, async () => {
      const label = `slack ${method}`;
      const response = await sendForJson(deps, credential, label, {
        url: `${deps.baseUrl}/${method}`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${credential.token}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(params).toString(),
      });
      const { body } = response;
      const reply = z.looseObject({ ok: z.boolean(), error: z.string().optional() }).safeParse(body);
      if (!reply.success) {
        throw new PlatformApiError('bad_json', `${label}: the reply is not a Web API reply`, {
          status: response.status,
        });
      }
      if (!reply.data.ok) {
        const code = reply.data.error ?? 'unknown_error';
        const kind = [
          'not_authed',
          'invalid_auth',
          'account_inactive',
          'token_revoked',
          'token_expired',
        ].includes(code)
          ? 'unauthorized'
          : ['user_not_found', 'channel_not_found', 'thread_not_found'].includes(code)
            ? 'not_found'
            : 'platform_error';
        throw new PlatformApiError(kind, `${label}: ${code}`, {
          status: response.status,
          platformError: code,
        });
      }
      return { body: reply.data as Record<string, unknown>, label };
    });
  }

  const parsed = <T>(schema: z.ZodType<T>, value: unknown, label: string): T => {
    const result = schema.safeParse(value);
    if (!result.success) throw new PlatformApiError('bad_json', `${label}: unexpected reply shape`);
    return result.data;
  };

  const page = (body: Record<string, unknown>, label: string): SlackPage => {
    const data = parsed(messagePage, body, label);
    return { messages: data.messages, nextCursor: data.response_metadata?.next_cursor ?? '' };
  };

  const historyParams = (p: SlackHistoryParams, max: number) => ({
    channel: p.channel,
    limit: String(Math.min(Math.max(p.limit ?? 100, 1), max)),
    ...(p.cursor ? { cursor: p.cursor } : {}),
    ...(p.oldest ? { oldest: p.oldest } : {}),
    ...(p.latest ? { latest: p.latest } : {}),
    ...(p.inclusive ? { inclusive: 'true' } : {}),
  });

  return {
    async usersInfo(credential: PlatformCredential, userId: string): Promise<SlackUser> {
      const { body, label } = await call(credential, 'users.info', { user: userId });
      return parsed(slackUser, body.user, label);
    },

    async conversationsHistory(
      credential: PlatformCredential,
      params: SlackHistoryParams,
    ): Promise<SlackPage> {
      const { body, label } = await call(credential, 'conversations.history', historyParams(params, 999));
      return page(body, label);
    },

    async conversationsReplies(
      credential: PlatformCredential,
      params: SlackHistoryParams & { ts: string },
    ): Promise<SlackPage> {
      const { body, label } = await call(credential, 'conversations.replies', {
        ...historyParams(params, 1000),
        ts: params.ts,
      });
      return page(body, label);
    },

    /**
     * A file's bytes from its url_private. Slack answers a request without a valid token with its
     * HTML sign-in page (HTTP 200), so an HTML reply for a non-HTML file is taken as a refusal.
     */
    async downloadFile(
      credential: PlatformCredential,
      urlPrivate: string,
      options: { maxBytes?: number; expectedType?: string } = {},
    ): Promise<FetchedMedia> {
      const url = checkedUrl(urlPrivate, deps.hosts);
      return gated(deps.gate, credential, async () => {
        const label = `slack file ${url.host}${url.pathname}`;
        const response = await deps.http.send({
          url: url.href,
          headers: { authorization: `Bearer ${credential.token}` },
          redirectHosts: deps.hosts,
          maxBytes: options.maxBytes ?? deps.mediaLimitBytes,
          secrets: [credential.token],
        });
        const media = mediaFrom(response, label, [credential.token]);
        if (media.mediaType === 'text/html' && options.expectedType !== 'text/html') {
          throw new PlatformApiError(
            'unauthorized',
            `${label}: Slack answered with its sign-in page (token refused?)`,
            {
              status: response.status,
            },
          );
        }
        return media;
      });
    },
  };
}

export type SlackApi = ReturnType<typeof createSlackApi>;
