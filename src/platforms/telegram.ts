// Telegram Bot API Update → normalized events: message / channel_post (created), edited_message /
// edited_channel_post (edited), message_reaction (reaction diffs). Forum topics become threads
// (`message_thread_id` with `is_topic_message`); `reply_to_message` becomes the reply link.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { ChannelEvent, MediaRefInput } from '../modules/channels/core/channel-events.js';
import { ignored, isRecord, iso, num, str, type AdapterResult } from './types.js';

const CHAT_KINDS: Record<string, 'dm' | 'group' | 'channel'> = {
  private: 'dm',
  group: 'group',
  supergroup: 'group',
  channel: 'channel',
};

/** Telegram has no URLs for files; the file_id is kept in a `telegram-file:` pseudo-URL. */
const fileUrl = (fileId: string) => `telegram-file:${fileId}`;

function media(message: Record<string, unknown>): MediaRefInput[] {
  const out: MediaRefInput[] = [];
  const caption = str(message.caption);
  if (Array.isArray(message.photo) && message.photo.length > 0) {
    // Sizes come smallest first; the largest is the photo.
    const sizes = message.photo.filter(isRecord);
    const largest = sizes[sizes.length - 1];
    const fileId = largest ? str(largest.file_id) : undefined;
    if (largest && fileId) {
      out.push({
        url: fileUrl(fileId),
        media_type: 'image/jpeg',
        ...(num(largest.file_size) !== undefined ? { byte_length: num(largest.file_size) } : {}),
        ...(num(largest.width) !== undefined ? { width: num(largest.width) } : {}),
        ...(num(largest.height) !== undefined ? { height: num(largest.height) } : {}),
        ...(caption ? { caption } : {}),
      });
    }
  }
  for (const field of ['document', 'video', 'audio', 'voice', 'animation'] as const) {
    const file = message[field];
    if (!isRecord(file)) continue;
    const fileId = str(file.file_id);
    if (!fileId) continue;
    out.push({
      url: fileUrl(fileId),
      ...(str(file.mime_type) ? { media_type: str(file.mime_type) } : {}),
      ...(str(file.file_name) ? { filename: str(file.file_name) } : {}),
      ...(num(file.file_size) !== undefined ? { byte_length: num(file.file_size) } : {}),
      ...(num(file.width) !== undefined ? { width: num(file.width) } : {}),
      ...(num(file.height) !== undefined ? { height: num(file.height) } : {}),
      ...(caption && out.length === 0 ? { caption } : {}),
    });
  }
  return out;
}

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
    const text = str(message.text) ?? str(message.caption) ?? '';
    const files = media(message);
    if (!text && files.length === 0) return ignored('Telegram service message (no text or media)');
    const common = {
      platform: 'telegram',
      channel_id: chatId,
      message_id: messageId,
      author: author(message),
      text,
      ...placement(message),
      ...(files.length > 0 ? { media: files } : {}),
      ...channel,
    };
    if (isRecord(created)) {
      const event: ChannelEvent = { type: 'message.created', ...common, ts: iso(date * 1000) };
      return { kind: 'events', events: [event] };
    }
    const editDate = num(message.edit_date) ?? date;
    const event: ChannelEvent = {
      type: 'message.edited',
      ...common,
      ts: iso(editDate * 1000),
      message_ts: iso(date * 1000),
      // Two edits in the same second are told apart by the update id.
      ...(updateId ? { event_id: `update:${updateId}` } : {}),
    };
    return { kind: 'events', events: [event] };
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
