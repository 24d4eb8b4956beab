// Telegram Bot API calls made with a tenant's bot token: getFile, then the file's bytes. The token
// is part of every URL here, so it is cut out of every error message.
import { z } from 'zod';
import {
  gated,
  mediaFrom,
  sendForJson,
  type FetchedMedia,
  type PlatformClientDeps,
  type PlatformCredential,
} from './platform-call.js';
import { PlatformApiError } from './platform-errors.js';

const telegramFile = z.looseObject({
  file_id: z.string(),
  file_unique_id: z.string().optional(),
  file_size: z.number().optional(),
  file_path: z.string().optional(),
});
type TelegramFile = z.infer<typeof telegramFile>;

export function createTelegramApi(deps: PlatformClientDeps) {
  async function method<T>(
    credential: PlatformCredential,
    name: string,
    params: Record<string, string>,
    schema: z.ZodType<T>,
  ): Promise<T> {
    return gated(deps.gate, credential, async () => {
      const label = `telegram ${name}`;
      const response = await sendForJson(deps, credential, label, {
        url: `${deps.baseUrl}/bot${credential.token}/${name}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
      });
      const { body } = response;
      const reply = z
        .looseObject({ ok: z.boolean(), result: z.unknown().optional(), description: z.string().optional() })
        .safeParse(body);
      if (!reply.success)
        throw new PlatformApiError('bad_json', `${label}: the reply is not a Bot API reply`);
      if (!reply.data.ok) {
        const description = reply.data.description ?? `HTTP ${response.status}`;
        const kind =
          response.status === 401 ? 'unauthorized' : response.status === 404 ? 'not_found' : 'platform_error';
        throw new PlatformApiError(kind, `${label}: ${description}`, {
          status: response.status,
          platformError: description,
        });
      }
      const result = schema.safeParse(reply.data.result);
      if (!result.success) throw new PlatformApiError('bad_json', `${label}: unexpected reply shape`);
      return result.data;
    });
  }

  return {
    async getFile(credential: PlatformCredential, fileId: string): Promise<TelegramFile> {
      return method(credential, 'getFile', { file_id: fileId }, telegramFile);
    },

    /** getFile, then the bytes (Telegram serves bots files up to 20 MB). */
    async downloadFile(
      credential: PlatformCredential,
      fileId: string,
      options: { maxBytes?: number } = {},
    ): Promise<FetchedMedia & { file: TelegramFile }> {
      const file = await this.getFile(credential, fileId);
      if (!file.file_path)
        throw new PlatformApiError('not_found', 'telegram getFile: no file_path in the reply');
      const maxBytes = options.maxBytes ?? deps.mediaLimitBytes;
      const path = file.file_path.split('/').map(encodeURIComponent).join('/');
      const media = await gated(deps.gate, credential, async () => {
        const response = await deps.http.send({
          url: `${deps.baseUrl}/file/bot${credential.token}/${path}`,
          redirectHosts: deps.hosts,
          maxBytes,
          secrets: [credential.token],
        });
        return mediaFrom(response, `telegram file ${file.file_path}`, [credential.token]);
      });
      return { ...media, file };
    },
  };
}

export type TelegramApi = ReturnType<typeof createTelegramApi>;
