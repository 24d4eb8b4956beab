// Media bytes on demand: a media ref that names a platform file (Slack url_private,
// Discord CDN URL, Telegram file_id) is fetched with the tenant's token, checked, stored as a blob
// (deduplicated by SHA-256, within BLOB_LIMIT_BYTES) and recorded on the message's ref. Every
// failure is a reason to show, never an exception; nothing is stored unless the whole file came.
import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import type { IdGenerator } from '../../shared/clock.js';
import { imageDimensions, isSniffedMediaType, sniffMediaType } from '../../shared/media.js';
import type { PlatformApis } from '../../platforms/api/platform-api.js';
import type { FetchedMedia, PlatformCredential } from '../../platforms/api/platform-call.js';
import { PlatformApiError } from '../../platforms/api/platform-errors.js';
import { supportedPlatforms, type SupportedPlatform } from '../../platforms/index.js';
import { telegramFileUrl } from '../../platforms/telegram-render.js';
import type { MediaRefInput } from '../../shared/channel-events.js';
import type { ChannelMediaWriter } from '../channels/channel-media.repository.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { PlatformCredentialsService } from './platform-credentials.service.js';

/** Platform fetches one call (a context call, a tool call) may wait for; the rest get a note. */
const FETCHES_PER_CALL = 4;
/** Refs declared larger than this are not fetched (the provider's per-image limit is 5 MB). */
const FETCH_MAX_BYTES = 5 * 1024 * 1024;
const ATTACHABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

/** A ref worth fetching: an image or PDF, or of a type the platform did not say. */
const attachable = (ref: MediaRefInput) => !ref.media_type || ATTACHABLE.has(ref.media_type.toLowerCase());

type MediaFetchResult =
  | { ok: true; artifactId: string; sha256: string; mediaType: string; width?: number; height?: number }
  | { ok: false; reason: string };

const TELEGRAM_PREFIX = telegramFileUrl('');

/** Why a PlatformApiError stopped the fetch, in words for a note (never the token). */
function reasonOf(error: PlatformApiError): string {
  switch (error.kind) {
    case 'address_refused':
      return 'the address is private or reserved and not allowed (PLATFORM_FETCH_ALLOW)';
    case 'host_refused':
      return 'the URL is not on a host the platform serves files from';
    case 'redirect_refused':
      return 'the platform redirected to a host that is not allowed';
    case 'too_large':
      return 'the file is larger than the blob limit';
    case 'timeout':
      return 'the platform did not answer in time';
    case 'rate_limited':
      return `the platform rate-limited the request${error.details.retryAfterMs !== undefined ? ` (retry in ${Math.ceil(error.details.retryAfterMs / 1000)} s)` : ''}`;
    case 'unauthorized':
      return 'the platform refused the stored bot token';
    case 'not_found':
      return 'the platform no longer has the file';
    case 'bad_json':
      return 'the platform answered with something that is not its API';
    case 'http_status':
      return `the platform answered HTTP ${error.details.status ?? 'error'}`;
    default:
      return error.details.platformError
        ? `the platform said ${error.details.platformError}`
        : 'the fetch failed';
  }
}

export function createPlatformMediaService(deps: {
  credentials: Pick<PlatformCredentialsService, 'credentialFor'>;
  apis: PlatformApis;
  blobs: Pick<BlobsRepository, 'insertDeduped'>;
  media: ChannelMediaWriter;
  ids: IdGenerator;
  config: Pick<Config, 'BLOB_LIMIT_BYTES'>;
}) {
  function download(credential: PlatformCredential, url: string): Promise<FetchedMedia> | null {
    switch (credential.platform) {
      case 'telegram':
        return url.startsWith(TELEGRAM_PREFIX)
          ? deps.apis.telegram.downloadFile(credential, url.slice(TELEGRAM_PREFIX.length))
          : null;
      case 'slack':
        return /^https?:\/\//.test(url) ? deps.apis.slack.downloadFile(credential, url) : null;
      case 'discord':
        return /^https?:\/\//.test(url) ? deps.apis.discord.downloadAttachment(credential, url) : null;
    }
  }

  const canFetch = (platform: string, ref: MediaRefInput) =>
    (supportedPlatforms as readonly string[]).includes(platform) && !ref.artifact_id && Boolean(ref.url);

  const service = {
    /**
     * Fetches the platform files among `items` (images, PDFs, untyped; at most FETCHES_PER_CALL),
     * handing each fetched ref, now naming its artifact, to `replace`. Returns a note per media
     * left out and why.
     */
    async fetchMissing(
      scope: { tenantId: string; platform: string; channelId: string },
      items: { ref: MediaRefInput; messageId: string | null; replace(ref: MediaRefInput): void }[],
    ): Promise<string[]> {
      const notes: string[] = [];
      let fetches = 0;
      for (const item of items) {
        const { ref, messageId } = item;
        if (!canFetch(scope.platform, ref) || !attachable(ref) || !messageId) continue;
        const name = `"${ref.filename ?? ref.media_type ?? 'file'}" of message ${messageId}`;
        if (ref.byte_length !== undefined && ref.byte_length > FETCH_MAX_BYTES) {
          notes.push(`Media ${name} was not fetched: it is larger than ${FETCH_MAX_BYTES} bytes.`);
        } else if (fetches >= FETCHES_PER_CALL) {
          notes.push(
            `Media ${name} was not fetched: at most ${FETCHES_PER_CALL} files are fetched per call.`,
          );
        } else {
          fetches += 1;
          const result = await service.fetchRef({ ...scope, messageId, ref });
          if (result.ok) item.replace({ ...ref, artifact_id: result.artifactId, sha256: result.sha256 });
          else notes.push(`Media ${name} could not be fetched: ${result.reason}.`);
        }
      }
      return notes;
    },

    async fetchRef(params: {
      tenantId: string;
      platform: string;
      channelId: string;
      messageId: string;
      ref: MediaRefInput;
    }): Promise<MediaFetchResult> {
      const { tenantId, ref } = params;
      if (!(supportedPlatforms as readonly string[]).includes(params.platform) || !ref.url) {
        return { ok: false, reason: 'it names no platform file' };
      }
      const platform = params.platform as SupportedPlatform;
      const credential = await deps.credentials.credentialFor({ tenantId, platform });
      if (!credential) return { ok: false, reason: `no ${platform} bot token is stored for this tenant` };
      const pending = download(credential, ref.url);
      if (!pending) return { ok: false, reason: `its URL is not a ${platform} file URL` };
      let fetched: FetchedMedia;
      try {
        fetched = await pending;
      } catch (error) {
        if (error instanceof PlatformApiError) return { ok: false, reason: reasonOf(error) };
        throw error;
      }
      const bytes = fetched.bytes;
      if (bytes.length === 0) return { ok: false, reason: 'the platform sent an empty file' };
      if (bytes.length > deps.config.BLOB_LIMIT_BYTES)
        return { ok: false, reason: 'the file is larger than the blob limit' };
      const sniffed = sniffMediaType(bytes);
      const declared = ref.media_type?.toLowerCase() ?? fetched.mediaType;
      if (declared && isSniffedMediaType(declared) && sniffed !== declared) {
        return {
          ok: false,
          reason: `the bytes are not ${declared} (${sniffed ?? 'an unrecognised format'})`,
        };
      }
      const mediaType = sniffed ?? declared ?? 'application/octet-stream';
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const { blob } = await deps.blobs.insertDeduped({
        tenantId,
        artifactId: deps.ids.next(),
        sha256,
        mediaType,
        filename: ref.filename ?? null,
        byteLength: bytes.length,
        kind: 'media',
        content: bytes,
        sessionId: null,
      });
      const dims = mediaType.startsWith('image/') ? imageDimensions(bytes) : null;
      await deps.media.attachArtifact({
        tenantId,
        platform,
        channelId: params.channelId,
        messageId: params.messageId,
        url: ref.url,
        patch: {
          artifact_id: blob.artifactId,
          sha256,
          byte_length: bytes.length,
          media_type: mediaType,
          ...(dims ? { width: dims.width, height: dims.height } : {}),
        },
      });
      return { ok: true, artifactId: blob.artifactId, sha256, mediaType, ...(dims ?? {}) };
    },
  };
  return service;
}

export type PlatformMediaService = ReturnType<typeof createPlatformMediaService>;
