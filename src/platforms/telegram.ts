// Telegram Bot API Update → normalized events: message / channel_post (created), edited_message /
// edited_channel_post (edited), message_reaction (reaction diffs). Forum topics become threads
// (`message_thread_id` with `is_topic_message`); `reply_to_message` becomes the reply link.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { ChannelEvent } from '../shared/channel-events.js';
import { renderTelegramMessage, telegramMedia } from './telegram-render.js';
import { ignored, isRecord, iso, num, str, type AdapterResult } from './types.js';

const CHAT_KINDS: Record<string, 'dm' | 'group' | 'channel'> = {
  private: 'dm',
  group: 'group',
  supergroup: 'group',
  channel: 'channel',
};

function author(message: Record<string, unknown>) {
  const from = isRecord(message.from) ? message.from : undefined;
  if (from && str(from.id)) {
    const name = [str(from.first_name), str(from.last_name)].filter(Boolean).join(' ') || str(from.username);
    return { id: str(from.id)!, is_bot: from.is_bot === true, ...(name ? { name } : {}) };
  }
  const senderChat = isRecord(message.sender_chat)
    ? message.sender_chat
    : isRecord(message.chat)
      ? message.chat
      : {};
  const title = str(senderChat.title);
  return { id: str(senderChat.id) ?? 'unknown', is_bot: false, ...(title ? { name: title } : {}) };
}

function placement(message: Record<string, unknown>) {
  const out: { thread_id?: string; topic_id?: string; reply_to_id?: string } = {};
  const threadId = str(message.message_thread_id);
  // message_thread_id is also set for reply threads in supergroups; only forum topics are lanes.
  if (threadId && message.is_topic_message === true) {
    out.thread_id = threadId;
    out.topic_id = threadId;
  }
  const replyTo = isRecord(message.reply_to_message) ? str(message.reply_to_message.message_id) : undefined;
  if (replyTo) out.reply_to_id = replyTo;
  return out;
}

function reactionKeys(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).flatMap((r) => {
    const key =
      r.type === 'emoji' ? str(r.emoji) : r.type === 'custom_emoji' ? str(r.custom_emoji_id) : undefined;
    return key ? [key] : [];
  });
}

/**
 * One message as events: its create (or edit, or a copy of it seen inside another message; a
 * copy that was edited also brings that edit). None when the message shows nothing.
 */
function messageEvents(
  message: Record<string, unknown>,
  chatId: string,
  as: 'created' | 'edited' | 'copy',
): ChannelEvent[] {
  const messageId = str(message.message_id);
  const date = num(message.date);
  if (!messageId || date === undefined) return [];
  const text = renderTelegramMessage(message);
  const files = telegramMedia(message);
  if (!text && files.length === 0) return [];
  const common = {
    platform: 'telegram',
    channel_id: chatId,
    message_id: messageId,
    author: author(message),
    text,
    ...placement(message),
    ...(files.length > 0 ? { media: files } : {}),
  };
  const editDate = num(message.edit_date);
  const edited = (at: number): ChannelEvent => ({
    type: 'message.edited',
    ...common,
    ts: iso(at * 1000),
    message_ts: iso(date * 1000),
  });
  if (as === 'edited') return [edited(editDate ?? date)];
  const create: ChannelEvent = {
    type: 'message.created',
    ...common,
    ts: iso(date * 1000),
    ...(as === 'copy' ? { is_copy: true } : {}),
  };
  return as === 'copy' && editDate !== undefined ? [create, edited(editDate)] : [create];
}

export function telegramUpdateToEvents(payload: unknown): AdapterResult {
  if (!isRecord(payload)) return ignored('not a Telegram Update');
  const updateId = str(payload.update_id);
  const created = payload.message ?? payload.channel_post;
  const edited = payload.edited_message ?? payload.edited_channel_post;
  const message = isRecord(created) ? created : isRecord(edited) ? edited : undefined;

  if (message) {
    const chat = isRecord(message.chat) ? message.chat : undefined;
    const chatId = chat ? str(chat.id) : undefined;
    const messageId = str(message.message_id);
    const date = num(message.date);
    if (!chat || !chatId || !messageId || date === undefined)
      return ignored('Telegram message without chat, id or date');
    const kind = CHAT_KINDS[str(chat.type) ?? ''];
    const title = str(chat.title);
    const channel =
      kind || title ? { channel: { ...(kind ? { kind } : {}), ...(title ? { name: title } : {}) } } : {};
    const own = messageEvents(message, chatId, isRecord(created) ? 'created' : 'edited');
    if (own.length === 0) return ignored('Telegram service message (no text or media)');
    const [first, ...rest] = own;
    const events: ChannelEvent[] = [{ ...first!, ...channel }, ...rest];
    // Two edits in the same second are told apart by the update id.
    if (first!.type === 'message.edited' && updateId)
      events[0] = { ...events[0]!, event_id: `update:${updateId}` };
    // The replied-to message comes whole: a copy fills its row until its own create arrives
    // (a thread root the bot never saw, a forum topic's creation).
    const replied = isRecord(message.reply_to_message) ? message.reply_to_message : undefined;
    if (replied) events.push(...messageEvents(replied, chatId, 'copy'));
    return { kind: 'events', events };
  }

  if (isRecord(payload.message_reaction)) {
    const r = payload.message_reaction;
    const chatId = isRecord(r.chat) ? str(r.chat.id) : undefined;
    const messageId = str(r.message_id);
    const date = num(r.date);
    if (!chatId || !messageId || date === undefined)
      return ignored('message_reaction without chat, message or date');
    const user = isRecord(r.user)
      ? str(r.user.id)
      : isRecord(r.actor_chat)
        ? str(r.actor_chat.id)
        : undefined;
    const before = new Set(reactionKeys(r.old_reaction));
    const after = new Set(reactionKeys(r.new_reaction));
    const base = {
      platform: 'telegram',
      channel_id: chatId,
      message_id: messageId,
      ts: iso(date * 1000),
      ...(user ? { user_id: user } : {}),
    };
    const events: ChannelEvent[] = [
      ...[...after]
        .filter((k) => !before.has(k))
        .map((reaction) => ({ type: 'reaction.added' as const, ...base, reaction })),
      ...[...before]
        .filter((k) => !after.has(k))
        .map((reaction) => ({ type: 'reaction.removed' as const, ...base, reaction })),
    ];
    return events.length > 0 ? { kind: 'events', events } : ignored('message_reaction without a change');
  }

  const kinds = Object.keys(payload).filter((k) => k !== 'update_id');
  return ignored(`unsupported Telegram update ${JSON.stringify(kinds[0] ?? null)}`);
}

/** Constant-time check of X-Telegram-Bot-Api-Secret-Token (hashed first so lengths match). */
export function verifyTelegramSecret(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
