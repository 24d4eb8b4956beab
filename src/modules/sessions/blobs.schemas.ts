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
