// Blob uploads and reads: SHA-256 dedupe per tenant, a size limit, media types checked against the
// bytes, HTTP byte ranges and UTF-8-safe text slices.
import { createHash } from 'node:crypto';
import type { IdGenerator } from '../../shared/clock.js';
import type { Config } from '../../config.js';
import { parseRange, sliceUtf8 } from './core/byte-ranges.js';
import { baseMediaType, IMAGE_MEDIA_TYPES, isSniffedMediaType, sniffMediaType } from '../../shared/media.js';
import { AppError, badRequest, tooLarge, unprocessable } from '../../shared/errors.js';
import type { BlobMeta, BlobsRepository } from './blobs.repository.js';
import type { SessionsRepository } from './sessions.repository.js';
import { blobNotFound, sessionNotFound } from './sessions.errors.js';

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
/** Text slices (`?offset=&limit=`) are served for these; bytes for everything. */
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-ndjson|yaml|javascript)\b)/;
export const isTextMediaType = (mediaType: string) => TEXT_TYPES.test(mediaType);
const TEXT_SLICE_MAX = 65_536;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createBlobsService(deps: {
  blobs: BlobsRepository;
  sessions: SessionsRepository;
  ids: IdGenerator;
  config: Pick<Config, 'BLOB_LIMIT_BYTES'>;
}) {
  const { blobs } = deps;

  const findMeta = async (tenantId: string, artifactId: string): Promise<BlobMeta> => {
    const meta = UUID.test(artifactId) ? await blobs.findMeta({ tenantId, artifactId }) : null;
    if (!meta) throw blobNotFound(artifactId);
    return meta;
  };

  return {
    /** Stores an upload; the same bytes again (same tenant) return the first artifact. */
    async upload(params: {
      tenantId: string;
      bytes: Buffer;
      contentType: string | undefined;
      filename?: string;
      sessionId?: string;
    }) {
      const { tenantId, bytes } = params;
      if (bytes.length === 0) throw badRequest('blob.empty', 'the request body is empty', { path: 'body' });
      if (bytes.length > deps.config.BLOB_LIMIT_BYTES) {
        throw tooLarge(
          'blob.too_large',
          `blob is ${bytes.length} bytes; the limit is ${deps.config.BLOB_LIMIT_BYTES}`,
          {
            byte_length: bytes.length,
            limit: deps.config.BLOB_LIMIT_BYTES,
          },
        );
      }
      const mediaType = baseMediaType(params.contentType ?? '');
      if (!MEDIA_TYPE.test(mediaType)) {
        throw new AppError(
          415,
          'blob.unsupported_media_type',
          'a Content-Type naming the media type is required',
          {
            path: 'headers.content-type',
          },
        );
      }
      if (mediaType.startsWith('image/') && !(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
        throw new AppError(
          415,
          'blob.unsupported_media_type',
          `images must be one of ${IMAGE_MEDIA_TYPES.join(', ')}`,
          {
            path: 'headers.content-type',
            media_type: mediaType,
          },
        );
      }
      if (isSniffedMediaType(mediaType)) {
        const actual = sniffMediaType(bytes);
        if (actual !== mediaType) {
          throw unprocessable(
            'blob.media_type_mismatch',
            `Content-Type says ${mediaType} but the bytes are ${actual ?? 'not a recognised format'}`,
            { path: 'headers.content-type', declared: mediaType, actual },
          );
        }
      }
      if (params.sessionId) {
        const session = UUID.test(params.sessionId)
          ? await deps.sessions.findById({ tenantId, id: params.sessionId })
          : null;
        if (!session) throw sessionNotFound(params.sessionId);
      }
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const { blob, created } = await blobs.insertDeduped({
        tenantId,
        artifactId: deps.ids.next(),
        sha256,
        mediaType: params.contentType?.trim().toLowerCase().startsWith('text/')
          ? params.contentType.trim()
          : mediaType,
        filename: params.filename ?? null,
        byteLength: bytes.length,
        kind: 'media',
        content: bytes,
        sessionId: params.sessionId ?? null,
      });
      return { blob, created };
    },

    findMeta: ({ tenantId, artifactId }: { tenantId: string; artifactId: string }) =>
      findMeta(tenantId, artifactId),

    /** The bytes for a GET, honouring one HTTP Range. */
    async read(params: { tenantId: string; artifactId: string; range?: string }) {
      const meta = await findMeta(params.tenantId, params.artifactId);
      const range = parseRange(params.range, meta.byteLength);
      if (range.kind === 'unsatisfiable') {
        throw new AppError(
          416,
          'blob.range_not_satisfiable',
          `range ${params.range} is outside the ${meta.byteLength} bytes of the blob`,
          { byte_length: meta.byteLength },
          { 'content-range': `bytes */${meta.byteLength}` },
        );
      }
      const start = range.kind === 'partial' ? range.start : 0;
      const end = range.kind === 'partial' ? range.end : meta.byteLength - 1;
      const bytes =
        (await deps.blobs.readBytes({
          tenantId: params.tenantId,
          artifactId: params.artifactId,
          start,
          length: end - start + 1,
        })) ?? Buffer.alloc(0);
      return { meta, bytes, partial: range.kind === 'partial' ? { start, end } : null };
    },

    /** A UTF-8-safe text slice by byte offset (for text blobs and offloaded results). */
    async readText(params: { tenantId: string; artifactId: string; offset: number; limit: number }) {
      const meta = await findMeta(params.tenantId, params.artifactId);
      if (!isTextMediaType(meta.mediaType)) {
        throw unprocessable(
          'blob.not_text',
          `blob ${meta.artifactId} is ${meta.mediaType}; text slices need a text type`,
          {
            media_type: meta.mediaType,
          },
        );
      }
      const limit = Math.min(params.limit, TEXT_SLICE_MAX);
      const window =
        (await deps.blobs.readBytes({
          tenantId: params.tenantId,
          artifactId: params.artifactId,
          start: params.offset,
          length: limit + 4,
        })) ?? Buffer.alloc(0);
      const slice = sliceUtf8(window, 0, limit);
      const end = params.offset + slice.end;
      return {
        artifact_id: meta.artifactId,
        media_type: meta.mediaType,
        offset: Math.min(params.offset + slice.offset, meta.byteLength),
        limit,
        total_bytes: meta.byteLength,
        text: slice.text,
        next_offset: end >= meta.byteLength ? null : end,
      };
    },
  };
}

export type BlobsService = ReturnType<typeof createBlobsService>;

export function blobView(meta: BlobMeta) {
  return {
    artifact_id: meta.artifactId,
    sha256: meta.sha256,
    byte_length: meta.byteLength,
    media_type: meta.mediaType,
    filename: meta.filename,
    kind: meta.kind,
    session_id: meta.sessionId,
    created_at: meta.createdAt.toISOString(),
  };
}
