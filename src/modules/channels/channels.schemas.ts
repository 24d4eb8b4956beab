// Wire shapes of channel reads: the snapshot, the thread context and the message list.
import { z } from 'zod';
import { mediaRefSchema, platformName } from '../../shared/channel-events.js';

const author = z.object({ user_id: z.string(), display_name: z.string(), is_bot: z.boolean() });
const media = z.array(mediaRefSchema);

/** A channel message as every read shows it; each read adds its own fields. */
const messageCore = z.object({ message_id: z.string(), ts: z.string(), author, text: z.string(), media });

export const channelSnapshotSchema = z.object({
  schema_version: z.literal('1.0'),
  channel: z.object({ id: z.string(), name: z.string(), platform: z.string() }),
  anchor: messageCore.extend({ thread_id: z.string().nullable() }),
  adjacent: z.array(
    z.object({
      message_id: z.string(),
      ts: z.string(),
      author,
      snippet: z.string(),
      thread_activity: z
        .object({
          reply_count: z.number(),
          replies_last_1h: z.number(),
          last_reply_ts: z.string().nullable(),
        })
        .nullable(),
      has_media: z.boolean(),
      reactions: z.array(z.string()),
    }),
  ),
});

export const threadContextSchema = z.object({
  schema_version: z.literal('1.0'),
  thread_id: z.string(),
  root: messageCore,
  replies: z.array(messageCore.extend({ is_truncated: z.boolean() })),
  truncation: z.object({
    total_replies: z.number().int(),
    included_replies: z.number().int(),
    strategy: z.literal('most_recent'),
    omitted_range_ts: z.tuple([z.string(), z.string()]).nullable(),
  }),
  token_estimate: z.number().int(),
});

export const channelMessageSchema = messageCore.extend({
  thread_id: z.string().nullable(),
  reply_to_id: z.string().nullable(),
  lane_key: z.string(),
  reply_count: z.number().int(),
  last_reply_ts: z.string().nullable(),
  reactions: z.record(z.string(), z.number()),
  edited_at: z.string().nullable(),
  token_estimate: z.number().int(),
});

export const channelParams = z.object({ platform: platformName, channelId: z.string().min(1).max(256) });
export const isoTime = z.iso.datetime({ offset: true });

/** Present when the platform could not complete a cold channel or thread: what is shown may be stale. */
export const readNotes = z
  .array(z.string())
  .optional()
  .describe('present when history could not be fetched from the platform: the data may be stale');
