// Discord REST calls made with a tenant's bot token (`Authorization: Bot …`): guild members,
// users, channel message pages, and attachment bytes from the CDN (signed URLs, no token sent).
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

const discordUser = z.looseObject({
  id: z.string(),
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});
export type DiscordUser = z.infer<typeof discordUser>;

const discordMember = z.looseObject({ user: discordUser.optional(), nick: z.string().nullish() });
export type DiscordMember = z.infer<typeof discordMember>;

const discordMessage = z.looseObject({
  id: z.string(),
  channel_id: z.string(),
  content: z.string(),
  timestamp: z.string(),
  author: discordUser,
});
type DiscordMessage = z.infer<typeof discordMessage>;

interface DiscordMessagesParams {
  channelId: string;
  /** One of before/after (Discord takes one of around/before/after). */
  before?: string;
  after?: string;
  /** 1–100 (Discord refuses anything else). */
  limit?: number;
}

export function createDiscordApi(deps: PlatformClientDeps) {
  async function get<T>(credential: PlatformCredential, path: string, schema: z.ZodType<T>): Promise<T> {
    return gated(deps.gate, credential, async () => {
      const label = `discord GET ${path.split('?')[0]}`;
      const response = await sendForJson(deps, credential, label, {
        url: `${deps.baseUrl}${path}`,
        headers: { authorization: `Bot ${credential.token}` },
      });
      const { body } = response;
      if (response.status >= 400) {
        const error = z.looseObject({ message: z.string(), code: z.number() }).safeParse(body);
        const code = error.success ? `${error.data.code} ${error.data.message}` : `HTTP ${response.status}`;
        const kind =
          response.status === 401 || response.status === 403
            ? 'unauthorized'
            : response.status === 404
              ? 'not_found'
              : 'platform_error';
        throw new PlatformApiError(kind, `${label}: ${code}`, {
          status: response.status,
          platformError: code,
        });
      }
      const data = schema.safeParse(body);
      if (!data.success) throw new PlatformApiError('bad_json', `${label}: unexpected reply shape`);
      return data.data;
    });
  }

  const id = (value: string) => encodeURIComponent(value);

  return {
    async guildMember(
      credential: PlatformCredential,
      guildId: string,
      userId: string,
    ): Promise<DiscordMember> {
      return get(credential, `/guilds/${id(guildId)}/members/${id(userId)}`, discordMember);
    },

    async user(credential: PlatformCredential, userId: string): Promise<DiscordUser> {
      return get(credential, `/users/${id(userId)}`, discordUser);
    },

    /** Newest first, as Discord returns them. */
    async channelMessages(
      credential: PlatformCredential,
      params: DiscordMessagesParams,
    ): Promise<DiscordMessage[]> {
      const query = new URLSearchParams({ limit: String(Math.min(Math.max(params.limit ?? 50, 1), 100)) });
      if (params.before) query.set('before', params.before);
      else if (params.after) query.set('after', params.after);
      return get(credential, `/channels/${id(params.channelId)}/messages?${query}`, z.array(discordMessage));
    },

    /** An attachment's bytes from its CDN URL (the URL's signature authorizes it; no token is sent). */
    async downloadAttachment(
      credential: PlatformCredential,
      cdnUrl: string,
      options: { maxBytes?: number } = {},
    ): Promise<FetchedMedia> {
      const url = checkedUrl(cdnUrl, deps.hosts);
      return gated(deps.gate, credential, async () => {
        const response = await deps.http.send({
          url: url.href,
          redirectHosts: deps.hosts,
          maxBytes: options.maxBytes ?? deps.mediaLimitBytes,
          secrets: [credential.token],
        });
        return mediaFrom(response, `discord attachment ${url.host}${url.pathname}`, [credential.token]);
      });
    },
  };
}

export type DiscordApi = ReturnType<typeof createDiscordApi>;
