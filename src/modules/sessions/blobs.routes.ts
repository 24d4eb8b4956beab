// /v1/blobs: raw-body uploads (deduplicated by SHA-256) and reads with HTTP Range or text slices.
// The raw-body parser is registered inside this plugin only, so JSON routes elsewhere are untouched.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { idempotencyKeyHeaders } from '../../http/idempotency-header.js';
import { replyIdempotentRecorded } from '../../http/idempotency/idempotent-reply.js';
import { blobView } from './blobs.service.js';
import type { Services } from '../services.js';
import { blobBytesSchema, blobSchema, blobTextSliceSchema } from './blobs.schemas.js';

const TAGS = ['blobs'];
export function blobsRoutes(services: Services, deps: AppDeps): FastifyPluginAsyncZod {
  const bodyLimit = deps.config.BLOB_LIMIT_BYTES;
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
      done(null, body),
    );

    app.post(
      '/blobs',
      {
        bodyLimit,
        schema: {
          operationId: 'uploadBlob',
          tags: TAGS,
          summary:
            'Upload bytes (raw body, Content-Type names the media type); same bytes → same artifact_id',
          querystring: z.object({
            filename: z.string().min(1).max(255).optional(),
            session_id: z.uuid().optional().describe('owning session: deleted with it'),
          }),
          headers: idempotencyKeyHeaders.extend({ 'x-filename': z.string().min(1).max(255).optional() }),
          response: { 200: blobSchema, 201: blobSchema },
        },
      },
      async (request, reply) => {
        const { tenantId } = request;
        const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const upload = {
          contentType: request.headers['content-type'],
          filename: request.query.filename ?? request.headers['x-filename'],
          sessionId: request.query.session_id,
        };
        // Content-addressed already; the key makes a retry replay the first reply (201, not 200).
        return replyIdempotentRecorded<z.infer<typeof blobSchema>>(
          services.idempotency,
          request,
          reply,
          {
            scope: 'blobs.upload',
            request: { ...upload, sha256: createHash('sha256').update(bytes).digest('hex') },
          },
          async (record) => {
            const { blob, created } = await services.blobs.upload({ tenantId, bytes, ...upload });
            const out = {
              statusCode: created ? 201 : 200,
              body: { ...blobView(blob), deduplicated: !created },
            };
            await record(out);
            return out;
          },
        );
      },
    );

    app.get(
      '/blobs/:artifactId',
      {
        schema: {
          operationId: 'getBlob',
          tags: TAGS,
          summary: 'The bytes (HTTP Range supported), or a UTF-8 text slice with ?offset=&limit=',
          description:
            'Without a query the bytes, in their own Content-Type, with Accept-Ranges, ETag and a year-long private cache. A `Range: bytes=start-end` header (one range) gives 206 with Content-Range; a range past the end is 416 `blob.range_not_satisfiable` with `Content-Range: bytes */size`. With `?offset=&limit=` a text blob is read as a JSON UTF-8 slice instead (422 `blob.not_text` for other types).',
          params: z.object({ artifactId: z.string().min(1).max(64) }),
          querystring: z.object({
            offset: z.coerce.number().int().nonnegative().optional().describe('text slice: start byte'),
            limit: z.coerce
              .number()
              .int()
              .min(1)
              .max(65_536)
              .optional()
              .describe('text slice: bytes (default 4096)'),
          }),
          response: {
            200: {
              content: {
                'application/json': { schema: blobTextSliceSchema },
                '*/*': { schema: blobBytesSchema },
              },
            },
            206: { content: { '*/*': { schema: blobBytesSchema } } },
          },
        },
      },
      async (request, reply) => {
        const { tenantId } = request;
        const { artifactId } = request.params;
        const { offset, limit } = request.query;
        if (offset !== undefined || limit !== undefined) {
          return services.blobs.readText({ tenantId, artifactId, offset: offset ?? 0, limit: limit ?? 4096 });
        }
        const range = typeof request.headers.range === 'string' ? request.headers.range : undefined;
        const { meta, bytes, partial } = await services.blobs.read({ tenantId, artifactId, range });
        void reply
          .header('content-type', meta.mediaType)
          .header('accept-ranges', 'bytes')
          .header('etag', `"${meta.sha256}"`)
          .header('cache-control', 'private, max-age=31536000, immutable');
        if (meta.filename) {
          void reply.header(
            'content-disposition',
            `inline; filename*=UTF-8''${encodeURIComponent(meta.filename)}`,
          );
        }
        if (partial) {
          void reply
            .code(206)
            .header('content-range', `bytes ${partial.start}-${partial.end}/${meta.byteLength}`);
        }
        return reply.send(bytes);
      },
    );
  };
}
