// Telegram Message → the text and media a person in the chat sees: text or caption, the quoted
// part of the replied message, the forward origin, the channel post's signature, forum topic
// names, polls, contacts and places; photos, files, stickers and video notes as media refs.
// Deterministic: same message, same text (docs/channels.md).
import type { MediaRefInput } from '../shared/channel-events.js';
import { isRecord, num, str } from './types.js';

type Json = Record<string, unknown>;

/** Telegram has no URLs for files; the file_id is kept in a `telegram-file:` pseudo-URL. */
export const telegramFileUrl = (fileId: string) => `telegram-file:${fileId}`;

const STICKER_TYPES = (s: Json) =>
  s.is_video === true ? 'video/webm' : s.is_animated === true ? 'application/x-tgsticker' : 'image/webp';

/** A file object (document, video, sticker …) as a media ref; undefined without a file_id. */
function fileRef(file: Json, extra: MediaRefInput = {}): MediaRefInput | undefined {
  const fileId = str(file.file_id);
  if (!fileId) return undefined;
  const side = num(file.length);
  return {
    url: telegramFileUrl(fileId),
    ...(str(file.mime_type) ? { media_type: str(file.mime_type) } : {}),
    ...(str(file.file_name) ? { filename: str(file.file_name) } : {}),
    ...(num(file.file_size) !== undefined ? { byte_length: num(file.file_size) } : {}),
    ...(num(file.width) !== undefined
      ? { width: num(file.width) }
      : side !== undefined
        ? { width: side }
        : {}),
    ...(num(file.height) !== undefined
      ? { height: num(file.height) }
      : side !== undefined
        ? { height: side }
        : {}),
    ...extra,
  };
}

export function telegramMedia(message: Json): MediaRefInput[] {
  const out: MediaRefInput[] = [];
  const caption = str(message.caption);
  const withCaption = (): MediaRefInput => (caption && out.length === 0 ? { caption } : {});
  if (Array.isArray(message.photo) && message.photo.length > 0) {
    // Sizes come smallest first; the largest is the photo.
    const sizes = message.photo.filter(isRecord);
    const largest = sizes[sizes.length - 1];
    const ref = largest && fileRef(largest, { media_type: 'image/jpeg', ...withCaption() });
    if (ref) out.push(ref);
  }
  for (const field of ['document', 'video', 'audio', 'voice', 'animation', 'video_note'] as const) {
    const file = message[field];
    if (!isRecord(file)) continue;
    const type = field === 'video_note' ? { media_type: 'video/mp4' } : {};
    const ref = fileRef(file, { ...type, ...withCaption() });
    if (ref) out.push(ref);
  }
  if (isRecord(message.sticker)) {
    const ref = fileRef(message.sticker, {
      media_type: STICKER_TYPES(message.sticker),
      ...(str(message.sticker.emoji) ? { caption: str(message.sticker.emoji) } : {}),
    });
    if (ref) out.push(ref);
  }
  return out;
}

const personName = (user: unknown) =>
  isRecord(user)
    ? [str(user.first_name), str(user.last_name)].filter(Boolean).join(' ') ||
      str(user.username) ||
      str(user.title)
    : undefined;

/** Who a forwarded message is from: `forward_origin` (Bot API 7) or the older forward_* fields. */
function forwardedFrom(message: Json): string | undefined {
  const origin = isRecord(message.forward_origin) ? message.forward_origin : undefined;
  if (origin) {
    const name =
      personName(origin.sender_user) ??
      str(origin.sender_user_name) ??
      personName(origin.sender_chat) ??
      personName(origin.chat);
    const signature = str(origin.author_signature);
    return [name, signature ? `(${signature})` : undefined].filter(Boolean).join(' ') || 'unknown';
  }
  const legacy =
    personName(message.forward_from) ??
    str(message.forward_sender_name) ??
    personName(message.forward_from_chat);
  if (!legacy) return undefined;
  const signature = str(message.forward_signature);
  return signature ? `${legacy} (${signature})` : legacy;
}

/** Service messages that name a forum topic: the topic's root and its renames. */
function topicServiceText(message: Json): string | undefined {
  if (isRecord(message.forum_topic_created)) {
    const name = str(message.forum_topic_created.name);
    return name ? `[topic created] ${name}` : undefined;
  }
  if (isRecord(message.forum_topic_edited)) {
    const name = str(message.forum_topic_edited.name);
    return name ? `[topic renamed] ${name}` : undefined;
  }
  return undefined;
}

/** Polls, contacts, venues and locations: their words, or a label. */
function attachedObjectText(message: Json): string | undefined {
  if (isRecord(message.poll)) {
    const options = Array.isArray(message.poll.options)
      ? message.poll.options.filter(isRecord).map((o) => `- ${str(o.text) ?? ''}`)
      : [];
    return [`[poll] ${str(message.poll.question) ?? ''}`, ...options].join('\n');
  }
  if (isRecord(message.contact)) {
    const c = message.contact;
    const name = [str(c.first_name), str(c.last_name)].filter(Boolean).join(' ');
    return `[contact] ${[name, str(c.phone_number)].filter(Boolean).join(', ')}`;
  }
  if (isRecord(message.venue)) {
    return `[venue] ${[str(message.venue.title), str(message.venue.address)].filter(Boolean).join(', ')}`;
  }
  if (isRecord(message.location)) {
    const { latitude, longitude } = message.location;
    return `[location] ${num(latitude) ?? ''}, ${num(longitude) ?? ''}`;
  }
  if (isRecord(message.dice))
    return `[dice] ${str(message.dice.emoji) ?? ''} ${num(message.dice.value) ?? ''}`;
  return undefined;
}

/** The whole visible text of a Telegram message; '' for a message that shows none. */
export function renderTelegramMessage(message: Json): string {
  const parts: string[] = [];
  const from = forwardedFrom(message);
  if (from) parts.push(`[forwarded from ${from}]`);
  const quote = isRecord(message.quote) ? str(message.quote.text) : undefined;
  if (quote) parts.push(`[quote]\n${quote}\n[/quote]`);
  const body = str(message.text) ?? str(message.caption) ?? topicServiceText(message);
  if (body) parts.push(body);
  const attached = attachedObjectText(message);
  if (attached) parts.push(attached);
  if (isRecord(message.sticker))
    parts.push(`[sticker${str(message.sticker.emoji) ? ` ${str(message.sticker.emoji)}` : ''}]`);
  if (isRecord(message.video_note)) parts.push('[video message]');
  if (isRecord(message.document) && str(message.document.file_name))
    parts.push(`[file: ${str(message.document.file_name)}]`);
  if (isRecord(message.audio)) {
    const title = [str(message.audio.performer), str(message.audio.title)].filter(Boolean).join(' – ');
    if (title) parts.push(`[audio: ${title}]`);
  }
  const signature = str(message.author_signature);
  if (signature) parts.push(`— ${signature}`);
  return parts.join('\n');
}
