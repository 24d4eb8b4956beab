// Slack Events API envelope → normalized events. Message ids are Slack `ts` strings (unique per
// channel); a reply's thread is its `thread_ts`. Signature checks for the webhook live here too.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelEvent, MediaRefInput } from '../shared/channel-events.js';
import { renderSlackMessage } from './slack-render.js';
import { ignored, isRecord, iso, num, str, type AdapterResult } from './types.js';

/**
 * A Slack `ts` in its usual form "1700000000.000100". Some payloads (the documented app_mention
 * example's `event_ts`) drop the dot: 16 digits are seconds and microseconds.
 */
export function slackTs(value: unknown): string | undefined {
  const ts = str(value);
  if (!ts) return undefined;
  if (/^\d{16}$/.test(ts)) return `${ts.slice(0, 10)}.${ts.slice(10)}`;
  return /^\d{1,12}(\.\d{1,9})?$/.test(ts) ? ts : undefined;
}

/** Slack `ts` ("1700000000.000100") → ISO time. */
function slackTsToIso(ts: string): string | undefined {
  const seconds = Number(slackTs(ts));
  return Number.isFinite(seconds) && seconds > 0 ? iso(Math.floor(seconds * 1000)) : undefined;
}

const CHANNEL_KINDS: Record<string, 'dm' | 'group' | 'channel'> = {
  im: 'dm',
  mpim: 'group',
  group: 'group',
  channel: 'channel',
};

function filesToMedia(files: unknown): MediaRefInput[] {
  if (!Array.isArray(files)) return [];
  return files.filter(isRecord).map((f) => {
    const ref: MediaRefInput = {};
    // A Slack Connect file (`file_access: check_file_info`) comes as its id alone: `files.info`
    // tells the rest, so the id is kept in a `slack-file:` pseudo-URL.
    const url = str(f.url_private) ?? str(f.permalink) ?? (str(f.id) ? `slack-file:${str(f.id)}` : undefined);
    if (url) ref.url = url;
    if (str(f.mimetype)) ref.media_type = str(f.mimetype);
    if (str(f.name)) ref.filename = str(f.name);
    if (num(f.size) !== undefined) ref.byte_length = num(f.size);
    if (num(f.original_w) !== undefined) ref.width = num(f.original_w);
    if (num(f.original_h) !== undefined) ref.height = num(f.original_h);
    if (str(f.title) && f.title !== f.name) ref.caption = str(f.title);
    return ref;
  });
}

function author(message: Record<string, unknown>) {
  const profile = isRecord(message.user_profile) ? message.user_profile : {};
  const bot = isRecord(message.bot_profile) ? message.bot_profile : {};
  const isBot = message.subtype === 'bot_message' || Boolean(message.bot_id);
  const id = str(message.user) ?? str(message.bot_id) ?? 'unknown';
  const name = str(profile.display_name) ?? str(profile.real_name) ?? str(message.username) ?? str(bot.name);
  return { id, is_bot: isBot, ...(name ? { name } : {}) };
}

const MESSAGE_SUBTYPES = new Set([undefined, 'bot_message', 'file_share', 'thread_broadcast', 'me_message']);

/** Fields every event of one envelope carries: its event id (retries repeat it) and platform. */
type EnvelopeFields = { event_id?: string; platform: 'slack' };

const one = (event: ChannelEvent): AdapterResult => ({ kind: 'events', events: [event] });

export function slackEnvelopeToEvents(payload: unknown): AdapterResult {
  if (!isRecord(payload)) return ignored('not a Slack event envelope');
  if (payload.type === 'url_verification') {
    const challenge = str(payload.challenge);
    return challenge ? { kind: 'challenge', challenge } : ignored('url_verification without a challenge');
  }
  if (payload.type !== 'event_callback' || !isRecord(payload.event)) {
    return ignored(`unsupported Slack envelope type ${JSON.stringify(payload.type ?? null)}`);
  }
  const event = payload.event;
  const eventId = str(payload.event_id);
  const envelope: EnvelopeFields = { ...(eventId ? { event_id: eventId } : {}), platform: 'slack' };
  if (event.type === 'reaction_added' || event.type === 'reaction_removed')
    return reactionEvent(event, envelope);
  // app_mention is the message that mentions the bot; Slack sends the `message` event for it too.
  // Both become the same create (same id, same rendering), so either order ends the same.
  if (event.type !== 'message' && event.type !== 'app_mention')
    return ignored(`unsupported Slack event type ${JSON.stringify(event.type ?? null)}`);
  const channel = str(event.channel);
  if (!channel) return ignored('Slack message event without a channel');
  const kind = CHANNEL_KINDS[str(event.channel_type) ?? ''];
  const inChannel: MessageFields = {
    ...envelope,
    channel_id: channel,
    ...(kind ? { channel: { kind } } : {}),
  };
  const subtype = str(event.subtype);
  if (subtype === 'message_deleted') return messageDeleted(event, inChannel);
  if (subtype === 'message_changed') return messageChanged(event, inChannel);
  if (!MESSAGE_SUBTYPES.has(subtype)) return ignored(`Slack message subtype ${subtype} carries no message`);
  return messageCreated(event, inChannel, subtype);
}

function reactionEvent(event: Record<string, unknown>, envelope: EnvelopeFields): AdapterResult {
  const item = isRecord(event.item) ? event.item : {};
  const channel = str(item.channel);
  const messageTs = str(item.ts);
  const at = slackTsToIso(str(event.event_ts) ?? '') ?? (messageTs ? slackTsToIso(messageTs) : undefined);
  const reaction = str(event.reaction);
  if (item.type !== 'message' || !channel || !messageTs || !at || !reaction) {
    return ignored('reaction on something other than a message');
  }
  const messageIso = slackTsToIso(messageTs);
  const user = str(event.user);
  return one({
    type: event.type === 'reaction_added' ? 'reaction.added' : 'reaction.removed',
    ...envelope,
    channel_id: channel,
    message_id: messageTs,
    ts: at,
    ...(messageIso ? { message_ts: messageIso } : {}),
    reaction,
    ...(user ? { user_id: user } : {}),
  });
}

/** Fields every message event of one envelope carries: the envelope's, the channel and its kind. */
type MessageFields = EnvelopeFields & { channel_id: string; channel?: { kind: 'dm' | 'group' | 'channel' } };

function messageDeleted(event: Record<string, unknown>, fields: MessageFields): AdapterResult {
  const deletedTs =
    str(event.deleted_ts) ?? (isRecord(event.previous_message) ? str(event.previous_message.ts) : undefined);
  const at = slackTsToIso(str(event.event_ts) ?? str(event.ts) ?? '');
  if (!deletedTs || !at) return ignored('message_deleted without deleted_ts');
  const messageIso = slackTsToIso(deletedTs);
  return one({
    type: 'message.deleted',
    ...fields,
    message_id: deletedTs,
    ts: at,
    ...(messageIso ? { message_ts: messageIso } : {}),
  });
}

function messageChanged(event: Record<string, unknown>, fields: MessageFields): AdapterResult {
  const message = isRecord(event.message) ? event.message : undefined;
  const previous = isRecord(event.previous_message) ? event.previous_message : undefined;
  // Some message_changed payloads carry the message without its ts: the previous one has it.
  const messageTs = slackTs(message?.ts) ?? slackTs(previous?.ts);
  if (!message || !messageTs) return ignored('message_changed without a message');
  const edited = isRecord(message.edited) ? message.edited : undefined;
  // Slack also sends message_changed for unfurls and reply counters: no text change, no edit.
  if (!edited) return ignored('message_changed without an edit (unfurl or thread metadata)');
  const at = slackTsToIso(str(edited.ts) ?? '') ?? slackTsToIso(str(event.event_ts) ?? '');
  const messageIso = slackTsToIso(messageTs);
  if (!at || !messageIso) return ignored('message_changed without usable timestamps');
  const threadTs = str(message.thread_ts);
  const media = filesToMedia(message.files);
  return one({
    type: 'message.edited',
    ...fields,
    message_id: messageTs,
    ts: at,
    message_ts: messageIso,
    text: renderSlackMessage(message),
    author: author(message),
    ...(threadTs ? { thread_id: threadTs } : {}),
    ...(media.length > 0 ? { media } : {}),
  });
}

function messageCreated(
  event: Record<string, unknown>,
  fields: MessageFields,
  subtype: string | undefined,
): AdapterResult {
  // A message without `ts` (seen in real payloads) is identified by its `event_ts`, the same value.
  const ts = slackTs(event.ts) ?? slackTs(event.event_ts);
  const at = ts ? slackTsToIso(ts) : undefined;
  if (!ts || !at) return ignored('Slack message without ts');
  const threadTs = str(event.thread_ts);
  const media = filesToMedia(event.files);
  return one({
    type: 'message.created',
    ...fields,
    message_id: ts,
    ts: at,
    author: author(event),
    text: renderSlackMessage(event),
    ...(threadTs ? { thread_id: threadTs } : {}),
    ...(media.length > 0 ? { media } : {}),
    ...(subtype ? { metadata: { slack_subtype: subtype } } : {}),
  });
}

/** Allowed distance between Slack's request timestamp and our clock. */
const SLACK_SIGNATURE_WINDOW_S = 300;

/**
 * Slack signature v0: `v0=` + hex HMAC-SHA256(secret, `v0:{timestamp}:{raw body}`), with the
 * timestamp within five minutes of now. Constant-time comparison.
 */
export function verifySlackSignature(params: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  now: Date;
}): { ok: true } | { ok: false; reason: string } {
  const { secret, timestamp, signature, rawBody, now } = params;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: 'missing or malformed timestamp' };
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_S) {
    return { ok: false, reason: 'stale timestamp' };
  }
  if (!signature || !signature.startsWith('v0=')) return { ok: false, reason: 'missing signature' };
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'signature mismatch' };
  }
  return { ok: true };
}

export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`v0:${timestamp}:`);
  mac.update(rawBody);
  return `v0=${mac.digest('hex')}`;
}
