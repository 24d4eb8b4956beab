// Wire shape of a stored blob.
import { z } from 'zod';

export const blobSchema = z.object({
  artifact_id: z.string(),
  sha256: z.string(),
  byte_length: z.number(),
  media_type: z.string(),
  filename: z.string().nullable(),
  kind: z.enum(['media', 'tool_result']),
  session_id: z.string().nullable(),
  created_at: z.string(),
  deduplicated: z.boolean(),
});

/** GET /v1/blobs/{id}?offset=&limit=: a UTF-8 slice of a text blob (never splits a character). */
export const blobTextSliceSchema = z.object({
  artifact_id: z.string(),
  media_type: z.string(),
  offset: z.number().describe('first byte of the slice'),
  limit: z.number().describe('bytes asked for (at most 65,536)'),
  total_bytes: z.number(),
  text: z.string(),
  next_offset: z.number().nullable().describe('where the next slice starts; null at the end'),
});

/** The bytes of a blob, sent in its own media type. */
export const blobBytesSchema = z
  .custom<Uint8Array>((value) => value instanceof Uint8Array)
  .meta({ type: 'string', format: 'binary', description: "the blob's bytes, in its own Content-Type" });
