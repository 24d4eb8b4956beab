// What the example bot needs to know about Slack's Events API: the envelope, which events are a
// user asking the bot something, and the request signature (v0) that proves a POST came from Slack.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** An Events API envelope (`type: "event_callback"`), or the `url_verification` handshake. */
export interface SlackEnvelope {
  type: string;
  event_id?: string;
  challenge?: string;
  authorizations?: { user_id?: string; is_bot?: boolean }[];
  event?: SlackEvent;
}

export interface SlackEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
}

/** A user message that mentions the bot: the turn the bot answers. */
export interface Mention {
  channel: string;
  /** `dm`, `group` or `channel`: the session's chat type. */
  chatType: string;
  user: string;
  ts: string;
  /** The thread to answer in: the message's thread, or the message itself as a new thread's root. */
  threadTs: string;
  /** The text as the user wrote it, the bot's mention included (contextd stores it as sent). */
  text: string;
}

const CHAT_TYPES: Record<string, string> = { im: 'dm', mpim: 'group', group: 'group', channel: 'channel' };

export function isSlackEnvelope(value: unknown): value is SlackEnvelope {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

/** The bot's own user id: Slack names it in the envelope's `authorizations`. */
export function botUserIdOf(envelope: SlackEnvelope): string | undefined {
  return envelope.authorizations?.find((a) => a.is_bot)?.user_id;
}

/**
 * The mention in this envelope, or null. Slack sends a message that mentions the bot twice, as
 * `app_mention` and as `message` (when the app subscribes to both): either is the mention, and the
 * caller answers each (channel, ts) once. Edits, deletions and bot messages are not questions.
 */
export function mentionIn(envelope: SlackEnvelope, botUserId: string | undefined): Mention | null {
  const event = envelope.event;
  if (envelope.type !== 'event_callback' || !event || !botUserId) return null;
  if (event.type !== 'app_mention' && event.type !== 'message') return null;
  if (event.subtype || event.bot_id || !event.user || event.user === botUserId) return null;
  if (!event.channel || !event.ts || !event.text?.includes(`<@${botUserId}>`)) return null;
  return {
    channel: event.channel,
    // app_mention carries no channel_type; Slack channel ids tell: D… is a DM, G… a private group.
    chatType:
      CHAT_TYPES[event.channel_type ?? ''] ??
      (event.channel.startsWith('D') ? 'dm' : event.channel.startsWith('G') ? 'group' : 'channel'),
    user: event.user,
    ts: event.ts,
    threadTs: event.thread_ts ?? event.ts,
    text: event.text,
  };
}

/** How far Slack's request timestamp may be from our clock (Slack's guidance: five minutes). */
export const SIGNATURE_WINDOW_S = 300;

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the app's signing secret. */
export function slackSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/** Why this request is not Slack's (a stale or missing timestamp, a wrong signature), or null. */
export function signatureProblem(params: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  now: Date;
}): string | null {
  const { secret, timestamp, signature, rawBody, now } = params;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return 'missing or malformed X-Slack-Request-Timestamp';
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_S) return 'stale timestamp';
  if (!signature?.startsWith('v0=')) return 'missing X-Slack-Signature';
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'signature mismatch';
}
