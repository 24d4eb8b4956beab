// Normalized channel events: the one shape every platform adapter produces and `POST /v1/events`
// accepts. `ts` is always when the event happened; for `message.created` that is the message's time.
import { z } from 'zod';

export const platformName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a lowercase platform name like slack, discord, telegram');

/** Postgres text holds any Unicode except NUL and unpaired surrogates (not valid UTF-8). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isStorableText = (value: string) => !UNSTORABLE.test(value);
export const storable = (schema: z.ZodString) =>
  schema.refine(isStorableText, 'contains NUL or an unpaired surrogate, which cannot be stored');
const id = storable(z.string().min(1).max(256));
const isoTime = z.iso.datetime({ offset: true });

export const mediaRefSchema = z.strictObject({
  artifact_id: z.string().max(256).optional(),
  url: z.string().max(4096).optional(),
  media_type: z.string().max(256).optional(),
  filename: z.string().max(1024).optional(),
  sha256: z.string().max(128).optional(),
  byte_length: z.number().int().nonnegative().optional(),
  width: z.number().int().nonnegative().optional(),
  height: z.number().int().nonnegative().optional(),
  caption: z.string().max(4096).optional(),
});

const authorSchema = z.strictObject({
  id: id,
  name: storable(z.string().max(256)).optional(),
  is_bot: z.boolean().optional(),
});

const base = {
  /** Platform event id (Slack event_id …): a second event with the same id is a duplicate. */
  event_id: id.optional(),
  platform: platformName,
  channel_id: id,
  message_id: id,
  ts: isoTime,
  /** Optional channel facts, kept on the channels row. */
  channel: z
    .strictObject({
      name: z.string().max(256).optional(),
      kind: z.enum(['dm', 'group', 'channel']).optional(),
    })
    .optional(),
};

/** Where the message sits: Slack thread, forum topic / Discord thread, reply link. */
const placement = {
  thread_id: id.nullish(),
  topic_id: id.nullish(),
  reply_to_id: id.nullish(),
};

const messageCreatedSchema = z.strictObject({
  type: z.literal('message.created'),
  ...base,
  ...placement,
  author: authorSchema,
  text: storable(z.string()),
  media: z.array(mediaRefSchema).max(100).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /**
   * A copy of the message seen inside another payload (Telegram's `reply_to_message`): it fills a
   * message whose own create has not arrived (shown as a thread root, never listed) and gives way
   * to that create, whichever arrives first.
   */
  is_copy: z.boolean().optional(),
});

const messageEditedSchema = z.strictObject({
  type: z.literal('message.edited'),
  ...base,
  ...placement,
  /** The original message's time, used if the edit arrives before the create. */
  message_ts: isoTime.optional(),
  author: authorSchema.optional(),
  text: storable(z.string()),
  media: z.array(mediaRefSchema).max(100).optional(),
});

const messageDeletedSchema = z.strictObject({
  type: z.literal('message.deleted'),
  ...base,
  message_ts: isoTime.optional(),
});

const reactionFields = {
  ...base,
  message_ts: isoTime.optional(),
  /** Reaction name without colons: `white_check_mark`, `👍`. */
  reaction: storable(z.string().min(1).max(128)),
  /**
   * Display name of a reaction whose `reaction` is an id (Discord custom emoji: the id is the
   * key, so two emoji of one name never merge); the latest event's name is shown.
   */
  reaction_name: storable(z.string().min(1).max(128)).optional(),
  /** Who reacted; with it, add/remove are exact per user and order-independent. */
  user_id: id.optional(),
};

const reactionAddedSchema = z.strictObject({ type: z.literal('reaction.added'), ...reactionFields });
const reactionRemovedSchema = z.strictObject({
  type: z.literal('reaction.removed'),
  ...reactionFields,
});

export const channelEventSchema = z.discriminatedUnion('type', [
  messageCreatedSchema,
  messageEditedSchema,
  messageDeletedSchema,
  reactionAddedSchema,
  reactionRemovedSchema,
]);

export const MAX_EVENTS_PER_BATCH = 500;
export const eventBatchSchema = z
  .strictObject({
    events: z.array(channelEventSchema).min(1).max(MAX_EVENTS_PER_BATCH),
  })
  .meta({
    examples: [
      {
        events: [
          {
            type: 'message.created',
            event_id: 'Ev0PV52K21',
            platform: 'slack',
            channel_id: 'C024BE91L',
            message_id: '1700000123.000200',
            thread_id: '1700000000.000100',
            ts: '2026-11-20T14:05:23Z',
            author: { id: 'U061F7AUR', name: 'maria' },
            text: 'Can we ship the release on Friday?',
          },
          {
            type: 'reaction.added',
            platform: 'slack',
            channel_id: 'C024BE91L',
            message_id: '1700000123.000200',
            ts: '2026-11-20T14:06:01Z',
            reaction: 'eyes',
            user_id: 'U0G9QF9C6',
          },
        ],
      },
    ],
  });

export type ChannelEvent = z.infer<typeof channelEventSchema>;
export type MediaRefInput = z.infer<typeof mediaRefSchema>;

export const ingestOutcomes = ['created', 'updated', 'duplicate', 'ignored'] as const;
export type IngestOutcome = (typeof ingestOutcomes)[number];
