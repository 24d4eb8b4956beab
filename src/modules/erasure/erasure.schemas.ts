// Wire shapes of erasure: the audit record an erase answers with.
import { z } from 'zod';
import { channelParams } from '../channels/channels.schemas.js';

export const channelMessageParams = channelParams.extend({ messageId: z.string().min(1).max(256) });

export const transcriptEntryParams = z.object({
  id: z.uuid(),
  seq: z.coerce.number().int().min(1).max(2_147_483_647),
});

const erasureSchema = z
  .object({
    id: z.string(),
    target: z.union([
      z.object({
        kind: z.literal('channel_message'),
        platform: z.string(),
        channel_id: z.string(),
        message_id: z.string(),
      }),
      z.object({ kind: z.literal('transcript_entry'), session_id: z.string(), seq: z.number().int() }),
    ]),
    actor: z
      .object({ api_key_id: z.string().nullable(), api_key_name: z.string().nullable() })
      .describe('the API key that asked for the erase'),
    erased_at: z.string(),
    touched: z
      .record(z.string(), z.number().int())
      .describe(
        'rows changed per place: transcript_entries, compaction_records (their summaries), payload_parts, context_log, stored_replies, lane_summaries, memories, chunk_lanes',
      ),
  })
  .describe('The audit record of an erase: who erased what and when, and what it touched; never the text');

export const erasureReply = z.object({
  erasure: erasureSchema,
  already_erased: z
    .boolean()
    .describe('true when the target had been erased before: nothing changed, the first erase is answered'),
});
export type ErasureReply = z.infer<typeof erasureReply>;
