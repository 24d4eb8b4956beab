// Normalized channel events: the one shape every platform adapter produces and `POST /v1/events`
// accepts. `ts` is always when the event happened; for `message.created` that is the message's time.
import { z } from 'zod';

const PLATFORM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
export const platformName = z
  .string()
  .regex(PLATFORM_NAME, 'a lowercase platform name like slack, discord, telegram');

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

/*
 * The batch check for events that need no copy: what eventBatchSchema accepts of an event without
 * `media` and `metadata`, tested directly (zod builds a copy of every event and its author, which a
 * batch of 100 pays in validation and garbage collection). An event with media or metadata goes
 * through its zod schema (a copy in the schema's key order, which media comparisons read). Anything
 * else this check is not sure of (a missing, extra or odd field) answers undefined: the caller
 * then runs eventBatchSchema, which names every bad field as before.
 */

/** zod's own pattern for `ts` and `message_ts` (z.iso.datetime with offsets). */
const ISO_TIME = (isoTime._zod.def as { pattern: RegExp }).pattern;

const isId = (v: unknown) => typeof v === 'string' && v.length >= 1 && v.length <= 256 && !UNSTORABLE.test(v);
const isTime = (v: unknown) => typeof v === 'string' && ISO_TIME.test(v);
const isReaction = (v: unknown) =>
  typeof v === 'string' && v.length >= 1 && v.length <= 128 && !UNSTORABLE.test(v);
const isStorableString = (v: unknown) => typeof v === 'string' && !UNSTORABLE.test(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function isAuthor(v: unknown): boolean {
  if (!isRecord(v)) return false;
  let id = false;
  for (const key in v) {
    const value = v[key];
    if (key === 'id') {
      if (!isId(value)) return false;
      id = true;
    } else if (key === 'name') {
      if (typeof value !== 'string' || value.length > 256 || UNSTORABLE.test(value)) return false;
    } else if (key === 'is_bot') {
      if (typeof value !== 'boolean') return false;
    } else return false;
  }
  return id;
}

function isChannelFacts(v: unknown): boolean {
  if (!isRecord(v)) return false;
  for (const key in v) {
    const value = v[key];
    if (key === 'name') {
      if (typeof value !== 'string' || value.length > 256) return false;
    } else if (key === 'kind') {
      if (value !== 'dm' && value !== 'group' && value !== 'channel') return false;
    } else return false;
  }
  return true;
}

/** Fields per event type: which keys it may have (the rest make it strict-invalid). */
const CREATED = 1;
const EDITED = 2;
const DELETED = 3;
const REACTION = 4;
/** A Map, not an object literal: a type named like an Object.prototype member must find nothing. */
const KINDS = new Map<unknown, number>([
  ['message.created', CREATED],
  ['message.edited', EDITED],
  ['message.deleted', DELETED],
  ['reaction.added', REACTION],
  ['reaction.removed', REACTION],
]);

/**
 * One event: 1 when it is valid as it is, 2 when it may be valid with media or metadata (zod
 * decides and copies), 0 when not known to be valid.
 */
function checkEvent(event: unknown): 0 | 1 | 2 {
  if (!isRecord(event)) return 0;
  const kind = KINDS.get(event.type);
  if (kind === undefined) return 0;
  let required = 0;
  let copy: 1 | 2 = 1;
  for (const key in event) {
    const value = event[key];
    switch (key) {
      case 'type':
        break;
      case 'platform':
        if (typeof value !== 'string' || !PLATFORM_NAME.test(value)) return 0;
        required += 1;
        break;
      case 'channel_id':
      case 'message_id':
        if (!isId(value)) return 0;
        required += 1;
        break;
      case 'ts':
        if (!isTime(value)) return 0;
        required += 1;
        break;
      case 'event_id':
        if (!isId(value)) return 0;
        break;
      case 'channel':
        if (!isChannelFacts(value)) return 0;
        break;
      case 'thread_id':
      case 'topic_id':
      case 'reply_to_id':
        if (kind > EDITED || (value !== null && !isId(value))) return 0;
        break;
      case 'author':
        if (kind > EDITED || !isAuthor(value)) return 0;
        if (kind === CREATED) required += 1;
        break;
      case 'text':
        if (kind > EDITED || !isStorableString(value)) return 0;
        required += 1;
        break;
      case 'media':
        if (kind > EDITED) return 0;
        copy = 2;
        break;
      case 'metadata':
      case 'is_copy':
        if (kind !== CREATED) return 0;
        if (key === 'metadata') copy = 2;
        else if (typeof value !== 'boolean') return 0;
        break;
      case 'message_ts':
        if (kind === CREATED || !isTime(value)) return 0;
        break;
      case 'reaction':
        if (kind !== REACTION || !isReaction(value)) return 0;
        required += 1;
        break;
      case 'reaction_name':
        if (kind !== REACTION || !isReaction(value)) return 0;
        break;
      case 'user_id':
        if (kind !== REACTION || !isId(value)) return 0;
        break;
      default:
        return 0;
    }
  }
  // platform, channel_id, message_id, ts; and author + text, text, nothing, reaction.
  const wanted = kind === CREATED ? 6 : kind === EDITED ? 5 : kind === DELETED ? 4 : 5;
  return required === wanted ? copy : 0;
}

/**
 * A batch body eventBatchSchema accepts, as it would return it (events with media or metadata as
 * their schema returns them, the others as they came: the same values, fields in the order sent),
 * or undefined when the schema has to decide (and name what is wrong).
 */
export function checkedEventBatch(body: unknown): { events: ChannelEvent[] } | undefined {
  if (!isRecord(body)) return undefined;
  for (const key in body) if (key !== 'events') return undefined;
  const events = body.events;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENTS_PER_BATCH) return undefined;
  const out: ChannelEvent[] = new Array<ChannelEvent>(events.length);
  for (let i = 0; i < events.length; i += 1) {
    const event: unknown = events[i];
    const check = checkEvent(event);
    if (check === 0) return undefined;
    if (check === 1) out[i] = event as ChannelEvent;
    else {
      const parsed = channelEventSchema.safeParse(event);
      if (!parsed.success) return undefined;
      out[i] = parsed.data;
    }
  }
  return { events: out };
}
