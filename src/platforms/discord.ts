// Discord gateway dispatches → normalized events: MESSAGE_CREATE/UPDATE/DELETE(_BULK) and
// MESSAGE_REACTION_ADD/REMOVE. A message in a thread has the thread as its channel_id and the
// gateway does not name the parent; when the bot adds `parent_channel_id` (discord.js knows it as
// `channel.parentId`), the message is stored in the parent channel with the thread as its topic.
import type { ChannelEvent, MediaRefInput } from '../shared/channel-events.js';
import { renderDiscordMessage } from './discord-render.js';
import { ignored, isRecord, iso, num, str, type AdapterContext, type AdapterResult } from './types.js';

const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** Creation time of a snowflake id. */
export function snowflakeTime(id: string): string | undefined {
  if (!/^\d{1,20}$/.test(id)) return undefined;
  return iso(Number((BigInt(id) >> 22n) + BigInt(DISCORD_EPOCH_MS)));
}

const normalizeTime = (value: unknown) => {
  const s = str(value);
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? iso(t) : undefined;
};

/** Message types that are conversation: DEFAULT, REPLY, CHAT_INPUT_COMMAND, CONTEXT_MENU_COMMAND. */
const CONVERSATION_TYPES = new Set([0, 19, 20, 23]);

function attachments(d: Record<string, unknown>): MediaRefInput[] {
  if (!Array.isArray(d.attachments)) return [];
  return d.attachments.filter(isRecord).map((a) => ({
    ...(str(a.url) ? { url: str(a.url) } : {}),
    ...(str(a.content_type) ? { media_type: str(a.content_type) } : {}),
    ...(str(a.filename) ? { filename: str(a.filename) } : {}),
    ...(num(a.size) !== undefined ? { byte_length: num(a.size) } : {}),
    ...(num(a.width) !== undefined ? { width: num(a.width) } : {}),
    ...(num(a.height) !== undefined ? { height: num(a.height) } : {}),
    ...(str(a.description) ? { caption: str(a.description) } : {}),
  }));
}

function author(d: Record<string, unknown>) {
  const a = isRecord(d.author) ? d.author : {};
  const member = isRecord(d.member) ? d.member : {};
  const name = str(member.nick) ?? str(a.global_name) ?? str(a.username);
  return {
    id: str(a.id) ?? 'unknown',
    is_bot: a.bot === true || Boolean(d.webhook_id),
    ...(name ? { name } : {}),
  };
}

function where(envelope: Record<string, unknown>, d: Record<string, unknown>) {
  const channelId = str(d.channel_id);
  const parent = str(envelope.parent_channel_id) ?? str(d.parent_channel_id);
  if (!channelId) return undefined;
  if (parent && parent !== channelId) {
    return { channel_id: parent, thread_id: channelId, topic_id: channelId };
  }
  return { channel_id: channelId };
}

/**
 * A reply carries the message it replies to (`referenced_message`): a copy fills that message's
 * row until its own create arrives (docs/channels.md, copies); an edited one brings its edit.
 */
function referencedCopy(
  d: Record<string, unknown>,
  place: { channel_id: string; thread_id?: string; topic_id?: string },
  replyTo: string,
): ChannelEvent[] {
  const ref = isRecord(d.referenced_message) ? d.referenced_message : undefined;
  if (!ref || str(ref.id) !== replyTo || !isRecord(ref.author) || !str(ref.author.id)) return [];
  const ts = normalizeTime(ref.timestamp) ?? snowflakeTime(replyTo);
  if (!ts) return [];
  const text = renderDiscordMessage(ref);
  const files = attachments(ref);
  if (!text && files.length === 0) return [];
  const common = {
    platform: 'discord',
    channel_id: place.channel_id,
    message_id: replyTo,
    author: author(ref),
    text,
    ...(files.length > 0 ? { media: files } : {}),
  };
  const events: ChannelEvent[] = [{ type: 'message.created', ...common, ts, is_copy: true }];
  const editedAt = normalizeTime(ref.edited_timestamp);
  // Built as MESSAGE_UPDATE builds the same edit, so the two are one edit whichever comes first.
  if (editedAt)
    events.push({
      type: 'message.edited',
      ...common,
      ts: editedAt,
      message_ts: ts,
      ...(Array.isArray(ref.attachments) ? { media: files } : {}),
    });
  return events;
}

/** Where a dispatch's message is stored (the parent channel of a thread) and when it was received. */
interface Dispatch {
  t: string;
  d: Record<string, unknown>;
  place: { channel_id: string; thread_id?: string; topic_id?: string };
  received: string;
}

export function discordDispatchToEvents(payload: unknown, context: AdapterContext): AdapterResult {
  if (!isRecord(payload) || !str(payload.t) || !isRecord(payload.d)) {
    return ignored('not a Discord gateway dispatch ({ t, d })');
  }
  if (payload.op !== undefined && payload.op !== 0)
    return ignored(`Discord gateway opcode ${String(payload.op)}`);
  const t = str(payload.t)!;
  const place = where(payload, payload.d);
  if (!place) return ignored(`${t} without channel_id`);
  const dispatch: Dispatch = { t, d: payload.d, place, received: iso(context.receivedAt.getTime()) };
  switch (t) {
    case 'MESSAGE_CREATE':
      return messageCreate(dispatch);
    case 'MESSAGE_UPDATE':
      return messageUpdate(dispatch);
    case 'MESSAGE_DELETE':
    case 'MESSAGE_DELETE_BULK':
      return messageDelete(dispatch);
    case 'MESSAGE_REACTION_ADD':
    case 'MESSAGE_REACTION_REMOVE':
      return reaction(dispatch);
    default:
      return ignored(`unsupported Discord dispatch ${t}`);
  }
}

function messageCreate({ d, place }: Dispatch): AdapterResult {
  const id = str(d.id);
  const ts = normalizeTime(d.timestamp) ?? (id ? snowflakeTime(id) : undefined);
  if (!id || !ts) return ignored('MESSAGE_CREATE without id or timestamp');
  if (
    !isRecord(d.author) ||
    !str(d.author.id) ||
    (d.content !== undefined && typeof d.content !== 'string')
  ) {
    return ignored('MESSAGE_CREATE without an author or with non-text content');
  }
  const type = num(d.type) ?? 0;
  if (!CONVERSATION_TYPES.has(type)) return ignored(`Discord system message type ${type}`);
  const ref = isRecord(d.message_reference) ? d.message_reference : undefined;
  // Reference type 1 is a forward (of any channel's message): not a reply.
  const replyTo =
    ref &&
    (ref.type === undefined || ref.type === 0) &&
    str(ref.message_id) &&
    (!str(ref.channel_id) || str(ref.channel_id) === str(d.channel_id))
      ? str(ref.message_id)
      : undefined;
  const files = attachments(d);
  const event: ChannelEvent = {
    type: 'message.created',
    platform: 'discord',
    ...place,
    message_id: id,
    ts,
    author: author(d),
    text: renderDiscordMessage(d),
    ...(replyTo ? { reply_to_id: replyTo } : {}),
    ...(files.length > 0 ? { media: files } : {}),
    ...(str(d.guild_id) ? {} : { channel: { kind: 'dm' as const } }),
  };
  return { kind: 'events', events: [event, ...(replyTo ? referencedCopy(d, place, replyTo) : [])] };
}

function messageUpdate({ d, place, received }: Dispatch): AdapterResult {
  const id = str(d.id);
  if (!id) return ignored('MESSAGE_UPDATE without id');
  // Embed resolution also sends MESSAGE_UPDATE, without content or edited_timestamp.
  if (typeof d.content !== 'string' || !str(d.edited_timestamp)) {
    return ignored('MESSAGE_UPDATE without an edit (embed or flag update)');
  }
  const ts = normalizeTime(d.edited_timestamp) ?? received;
  const messageTs = normalizeTime(d.timestamp) ?? snowflakeTime(id);
  const files = attachments(d);
  const event: ChannelEvent = {
    type: 'message.edited',
    platform: 'discord',
    ...place,
    message_id: id,
    ts,
    ...(messageTs ? { message_ts: messageTs } : {}),
    ...(isRecord(d.author) ? { author: author(d) } : {}),
    text: renderDiscordMessage(d),
    ...(Array.isArray(d.attachments) ? { media: files } : {}),
  };
  return { kind: 'events', events: [event] };
}

/** MESSAGE_DELETE (one id) or MESSAGE_DELETE_BULK (`ids`). */
function messageDelete({ t, d, place, received }: Dispatch): AdapterResult {
  const ids = t === 'MESSAGE_DELETE' ? [str(d.id)] : Array.isArray(d.ids) ? d.ids.map(str) : [];
  const events: ChannelEvent[] = ids
    .filter((id): id is string => Boolean(id))
    .map((id) => {
      const messageTs = snowflakeTime(id);
      return {
        type: 'message.deleted' as const,
        platform: 'discord',
        ...place,
        message_id: id,
        ts: received,
        ...(messageTs ? { message_ts: messageTs } : {}),
      };
    });
  return events.length > 0 ? { kind: 'events', events } : ignored(`${t} without ids`);
}

/** MESSAGE_REACTION_ADD or MESSAGE_REACTION_REMOVE. */
function reaction({ t, d, place, received }: Dispatch): AdapterResult {
  const id = str(d.message_id);
  const emoji = isRecord(d.emoji) ? d.emoji : {};
  // Unicode emoji have only a name (the character itself). Custom emoji are keyed by id, the
  // name kept for display: two guilds' :LUL: stay apart, and a deleted emoji (name null)
  // lands on the same key.
  const customId = str(emoji.id);
  const reactionKey = customId ?? str(emoji.name);
  const reactionName = customId ? str(emoji.name) : undefined;
  if (!id || !reactionKey) return ignored(`${t} without message_id or emoji`);
  const messageTs = snowflakeTime(id);
  const user = str(d.user_id);
  const event: ChannelEvent = {
    type: t === 'MESSAGE_REACTION_ADD' ? 'reaction.added' : 'reaction.removed',
    platform: 'discord',
    ...place,
    message_id: id,
    ts: received,
    ...(messageTs ? { message_ts: messageTs } : {}),
    reaction: reactionKey,
    ...(reactionName ? { reaction_name: reactionName } : {}),
    ...(user ? { user_id: user } : {}),
  };
  return { kind: 'events', events: [event] };
}
