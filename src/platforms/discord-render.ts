// Discord message → the text a person in the channel sees: content, then forwarded messages
// (`message_snapshots`), embeds (author, title, description, fields, footer), polls, stickers and
// attachment names, each labelled. Deterministic: same message, same text (docs/channels.md).
import { isRecord, str } from './types.js';

type Json = Record<string, unknown>;

const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const nameOf = (value: unknown) => (isRecord(value) ? str(value.name) : undefined);

function embedText(embed: Json): string {
  const lines: string[] = [];
  const push = (value: string | undefined) => {
    if (value && value.trim() && !lines.includes(value)) lines.push(value);
  };
  push(nameOf(embed.author));
  push(str(embed.title));
  push(str(embed.description));
  for (const field of records(embed.fields)) {
    const [name, value] = [str(field.name), str(field.value)];
    push(name && value ? `${name}: ${value}` : (name ?? value));
  }
  push(isRecord(embed.footer) ? str(embed.footer.text) : undefined);
  if (lines.length === 0) return '';
  const provider = nameOf(embed.provider);
  const label =
    embed.type === 'rich' || !str(embed.url) ? '[embed]' : `[link preview${provider ? `: ${provider}` : ''}]`;
  return [label, ...lines].join('\n');
}

function pollText(poll: unknown): string {
  if (!isRecord(poll)) return '';
  const question = isRecord(poll.question) ? str(poll.question.text) : undefined;
  const answers = records(poll.answers).map(
    (a) => `- ${(isRecord(a.poll_media) && str(a.poll_media.text)) || ''}`,
  );
  return [`[poll] ${question ?? ''}`, ...answers].join('\n');
}

/** Content, embeds, poll, stickers and attachment names of one message object. */
function messageParts(d: Json): string[] {
  const parts: string[] = [];
  if (typeof d.content === 'string' && d.content.trim()) parts.push(d.content);
  for (const embed of records(d.embeds)) parts.push(embedText(embed));
  if (d.poll) parts.push(pollText(d.poll));
  for (const sticker of records(d.sticker_items)) parts.push(`[sticker: ${str(sticker.name) ?? ''}]`);
  for (const a of records(d.attachments)) {
    const name = str(a.title) ?? str(a.filename);
    if (name) parts.push(`[attachment: ${name}]${str(a.description) ? ` ${str(a.description)}` : ''}`);
  }
  return parts.filter((p) => p.trim());
}

/** The whole visible text of a Discord message, parts separated by blank lines. */
export function renderDiscordMessage(d: Json): string {
  const parts = messageParts(d);
  for (const snapshot of records(d.message_snapshots)) {
    const forwarded = isRecord(snapshot.message) ? messageParts(snapshot.message) : [];
    if (forwarded.length > 0) parts.push(['[forwarded message]', ...forwarded].join('\n'));
  }
  return parts.join('\n\n');
}
