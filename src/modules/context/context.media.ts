// Media of the current thread for the context call (docs/design.md §6.11): the anchor's and its
// thread's images and PDFs stored as blobs of the tenant, as content blocks, with the session's
// manifest (which decides attach or reference). Refs that name a platform file not fetched yet are
// fetched with the tenant's token first (a bounded number per call); a fetch that fails is a note.
import type { MediaCandidate } from './core/assemble.js';
import type { MediaRefInput } from '../../shared/channel-events.js';
import type { ThreadContext } from '../channels/core/thread-budget.js';
import type { ChannelMessageView, ChannelsService } from '../channels/channels.service.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { SessionRow } from '../sessions/sessions.repository.js';
import type { PlatformMediaService } from '../platforms/platform-media.service.js';
import { imageDimensions } from '../../shared/media.js';
import { imageTokens } from '../../shared/tokens.js';

/** Media larger than this is referenced, not attached (the provider's per-image limit is 5 MB). */
const MEDIA_MAX_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export type PlatformMediaFetcher = Pick<PlatformMediaService, 'fetchMissing'>;

export function createThreadMediaLoader(deps: {
  blobs: Pick<BlobsRepository, 'findMeta' | 'readBytes'>;
  channels: Pick<ChannelsService, 'getChannelMessages'>;
  manifest: Pick<ManifestService, 'list'>;
  platformMedia?: PlatformMediaFetcher;
}) {
  /**
   * Current-thread media (§6.11) as content blocks: images and PDFs stored as blobs of this
   * tenant, referenced by the anchor or its thread. Other media types and missing blobs are skipped.
   */
  async function loadThreadMedia(tenantId: string, refs: MediaRefInput[], sources: (string | null)[][]) {
    const out: MediaCandidate[] = [];
    const seen = new Set<string>();
    for (const [index, ref] of refs.entries()) {
      const artifactId = ref.artifact_id;
      if (!artifactId || seen.has(artifactId) || !UUID.test(artifactId)) continue;
      seen.add(artifactId);
      const meta = await deps.blobs.findMeta({ tenantId, artifactId });
      if (!meta || meta.byteLength > MEDIA_MAX_BYTES) continue;
      const isImage = IMAGE_TYPES.has(meta.mediaType);
      if (!isImage && meta.mediaType !== 'application/pdf') continue;
      const bytes = await deps.blobs.readBytes({ tenantId, artifactId, start: 0, length: meta.byteLength });
      if (!bytes) continue;
      const data = Buffer.from(bytes).toString('base64');
      const [messageId, threadId] = sources[index] ?? [null, null];
      // An image counts by the provider's size rule (a 20×20 icon is a handful of tokens).
      const dims = isImage ? imageDimensions(bytes) : null;
      out.push({
        artifact_id: artifactId,
        sha256: meta.sha256,
        media_type: meta.mediaType,
        filename: meta.filename ?? ref.filename ?? null,
        source_message_id: messageId ?? null,
        source_thread_id: threadId ?? null,
        ...(dims ? { tokens: imageTokens(dims.width, dims.height) } : {}),
        block: isImage
          ? {
              type: 'image',
              source: { type: 'base64', media_type: meta.mediaType as 'image/png', data },
            }
          : { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } },
      });
    }
    return out;
  }

  /** The anchor's and its thread's media, the session's manifest, and notes on media not fetched. */
  return async function loadTurnMedia(params: {
    tenantId: string;
    sessionId: string;
    session: SessionRow;
    anchor: ChannelMessageView;
    /** The thread when the channel context already loaded it. */
    thread: ThreadContext | null;
  }) {
    const { tenantId, sessionId, session, anchor } = params;
    const threadId = anchor.thread_id ?? (anchor.reply_count > 0 ? anchor.message_id : null);
    const thread =
      params.thread ??
      (threadId
        ? ((
            await deps.channels.getChannelMessages({
              tenantId,
              platform: session.platform!,
              channelId: session.channelId!,
              threadId,
            })
          ).thread ?? null)
        : null);
    const refs: MediaRefInput[] = [];
    const sources: (string | null)[][] = [];
    const add = (items: MediaRefInput[], messageId: string) => {
      for (const item of items) {
        refs.push(item);
        sources.push([messageId, threadId]);
      }
    };
    if (thread) {
      add(thread.root.media, thread.root.message_id);
      for (const reply of thread.replies) add(reply.media, reply.message_id);
    }
    add(anchor.media, anchor.message_id);
    const mediaNotes = deps.platformMedia
      ? await deps.platformMedia.fetchMissing(
          { tenantId, platform: session.platform!, channelId: session.channelId! },
          refs.map((ref, index) => ({
            ref,
            messageId: sources[index]?.[0] ?? null,
            replace: (fetched: MediaRefInput) => (refs[index] = fetched),
          })),
        )
      : [];
    const [media, manifestRows] = await Promise.all([
      loadThreadMedia(tenantId, refs, sources),
      deps.manifest.list({ tenantId, sessionId }),
    ]);
    return { media, manifestRows, mediaNotes };
  };
}
