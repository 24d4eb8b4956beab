// Tool-result offloading (docs/design.md §6.8): big text results become blobs of the session and the
// transcript keeps a reference; readResult serves the `read_result` agent tool, which reads only
// blobs the session may see.
import { createHash } from 'node:crypto';
import type { IdGenerator } from '../../shared/clock.js';
import type { Config } from '../../config.js';
import { sliceUtf8 } from './core/byte-ranges.js';
import type { ContentBlock } from '../../shared/content-blocks.js';
import { offloadReference, toolResultText } from './core/offload.js';
import type { Executor } from '../../db/client.js';
import type { BlobMeta, BlobsRepository } from './blobs.repository.js';
import type { ChannelMediaRepository } from '../channels/channel-media.repository.js';
import type { SessionRow, SessionsRepository } from './sessions.repository.js';
import type { TranscriptRepository } from './transcript.repository.js';
import { resultNotFound, sessionNotFound } from './sessions.errors.js';

const READ_RESULT_DEFAULT_LIMIT = 4096;
const READ_RESULT_MAX_LIMIT = 65_536;
/** Bytes read past the limit so a character split at the end can be detected and kept whole. */
const UTF8_SLACK = 4;

interface OffloadedResult {
  tool_use_id: string;
  ref_id: string;
  byte_length: number;
}

interface ReadResultReply {
  ref_id: string;
  offset: number;
  limit: number;
  total_bytes: number;
  content: string;
  /** Where the next read starts; null at the end. */
  next_offset: number | null;
}

export function createOffloadService(deps: {
  blobs: BlobsRepository;
  sessions: SessionsRepository;
  transcript: Pick<TranscriptRepository, 'hasOffloadReference'>;
  channelMedia: Pick<ChannelMediaRepository, 'findReferencingMessage'>;
  ids: IdGenerator;
  config: Pick<Config, 'RESULT_OFFLOAD_BYTES'>;
}) {
  const { blobs, ids } = deps;

  /**
   * What a session may read (docs/design.md §1.4: a tool input never reaches another channel): its own
   * blobs, results its transcript references (per-tenant SHA-256 dedupe may have stored the
   * bytes under another session), and media of a live message in its own channel.
   */
  async function isVisibleTo(session: SessionRow, blob: BlobMeta): Promise<boolean> {
    if (blob.sessionId === session.id) return true;
    const { tenantId } = session;
    const refId = blob.artifactId;
    if (await deps.transcript.hasOffloadReference({ tenantId, sessionId: session.id, refId })) return true;
    if (!session.platform || !session.channelId) return false;
    const message = await deps.channelMedia.findReferencingMessage({
      tenantId,
      platform: session.platform,
      channelId: session.channelId,
      artifactId: refId,
    });
    return message !== null;
  }

  return {
    /**
     * Replaces each text tool_result over RESULT_OFFLOAD_BYTES by its reference, storing the text
     * as a `tool_result` blob of the session in `tx`. Results with images or documents stay inline.
     */
    async offloadToolResults(
      params: {
        tenantId: string;
        sessionId: string;
        content: string | ContentBlock[];
        toolNames: Record<string, string>;
      },
      tx: Executor,
    ): Promise<{ content: string | ContentBlock[]; offloaded: OffloadedResult[] }> {
      if (typeof params.content === 'string') return { content: params.content, offloaded: [] };
      const offloaded: OffloadedResult[] = [];
      const content: ContentBlock[] = [];
      for (const block of params.content) {
        const text = block.type === 'tool_result' ? toolResultText(block.content) : null;
        const bytes = text === null ? null : Buffer.from(text, 'utf8');
        if (
          block.type !== 'tool_result' ||
          text === null ||
          !bytes ||
          bytes.length <= deps.config.RESULT_OFFLOAD_BYTES
        ) {
          content.push(block);
          continue;
        }
        const toolName = params.toolNames[block.tool_use_id] ?? 'tool';
        const { blob } = await blobs.insertDeduped(
          {
            tenantId: params.tenantId,
            artifactId: ids.next(),
            sha256: createHash('sha256').update(bytes).digest('hex'),
            mediaType: 'text/plain; charset=utf-8',
            filename: `${toolName}-${block.tool_use_id}.txt`,
            byteLength: bytes.length,
            kind: 'tool_result',
            content: bytes,
            sessionId: params.sessionId,
          },
          tx,
        );
        const reference = offloadReference({
          byteLength: bytes.length,
          toolName,
          text,
          refId: blob.artifactId,
        });
        content.push({ ...block, content: reference });
        offloaded.push({
          tool_use_id: block.tool_use_id,
          ref_id: blob.artifactId,
          byte_length: bytes.length,
        });
      }
      return { content, offloaded };
    },

    /**
     * `limit` bytes of an offloaded result (or a text blob) from byte `offset`, never splitting a
     * character. The session must exist; the ref must be a blob it may see (isVisibleTo), else the
     * same `result.not_found` as an unknown id, so nothing about other sessions leaks.
     */
    async readResult(params: {
      tenantId: string;
      sessionId: string;
      refId: string;
      offset?: number;
      limit?: number;
    }): Promise<ReadResultReply> {
      const { tenantId, refId } = params;
      const offset = Math.max(0, params.offset ?? 0);
      const limit = Math.min(READ_RESULT_MAX_LIMIT, Math.max(1, params.limit ?? READ_RESULT_DEFAULT_LIMIT));
      const session = await deps.sessions.findById({ tenantId, id: params.sessionId });
      if (!session) throw sessionNotFound(params.sessionId);
      const meta = UUID.test(refId) ? await blobs.findMeta({ tenantId, artifactId: refId }) : null;
      if (!meta || !(await isVisibleTo(session, meta))) throw resultNotFound(refId);
      const window =
        (await blobs.readBytes({ tenantId, artifactId: refId, start: offset, length: limit + UTF8_SLACK })) ??
        Buffer.alloc(0);
      const slice = sliceUtf8(window, 0, limit);
      const end = offset + slice.end;
      return {
        ref_id: refId,
        offset: Math.min(offset + slice.offset, meta.byteLength),
        limit,
        total_bytes: meta.byteLength,
        content: slice.text,
        next_offset: end >= meta.byteLength ? null : end,
      };
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type OffloadService = ReturnType<typeof createOffloadService>;
