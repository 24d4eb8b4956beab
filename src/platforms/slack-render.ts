// Slack message → the text a person in the channel sees: `text`, then what lives only in blocks
// (section, fields, context, header, buttons; rich_text only when `text` is empty, since it mirrors
// it), attachments (forwarded and shared messages, app notifications, link previews) and files.
// Quoted or forwarded parts are labelled. Deterministic: same payload, same text (docs/channels.md).
import { isRecord, str } from './types.js';

type Json = Record<string, unknown>;

const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A text object (`{type: mrkdwn|plain_text, text}`) or a plain string. */
const textOf = (value: unknown): string | undefined => (isRecord(value) ? str(value.text) : str(value));

/** One rich_text element (text, link, user, channel, emoji, broadcast, date …) in mrkdwn form. */
function richInline(e: Json): string {
  switch (e.type) {
    case 'text':
      return typeof e.text === 'string' ? e.text : '';
    case 'link': {
      const url = str(e.url) ?? '';
      const label = str(e.text);
      return label && label !== url ? `<${url}|${label}>` : `<${url}>`;
    }
    case 'user':
      return `<@${str(e.user_id) ?? ''}>`;
    case 'channel':
      return `<#${str(e.channel_id) ?? ''}>`;
    case 'usergroup':
      return `<!subteam^${str(e.usergroup_id) ?? ''}>`;
    case 'broadcast':
      return `<!${str(e.range) ?? 'here'}>`;
    case 'emoji':
      return `:${str(e.name) ?? ''}:`;
    case 'date':
      return str(e.fallback) ?? str(e.timestamp) ?? '';
    default:
      return str(e.text) ?? str(e.fallback) ?? '';
  }
}

const richSection = (e: Json) => records(e.elements).map(richInline).join('');

/** rich_text: sections, lists ("- " or "1. ", indented), quotes ("> ") and preformatted (fenced). */
function richText(block: Json): string {
  const out: string[] = [];
  for (const part of records(block.elements)) {
    switch (part.type) {
      case 'rich_text_list': {
        const indent = '  '.repeat(Math.max(0, Math.min(8, Number(part.indent) || 0)));
        const offset = Number(part.offset) || 0;
        records(part.elements).forEach((item, i) => {
          const marker = part.style === 'ordered' ? `${offset + i + 1}.` : '-';
          out.push(`${indent}${marker} ${richSection(item)}`);
        });
        break;
      }
      case 'rich_text_quote':
        out.push(
          richSection(part)
            .split('\n')
            .map((line) => `> ${line}`)
            .join('\n'),
        );
        break;
      case 'rich_text_preformatted':
        out.push('```\n' + richSection(part) + '\n```');
        break;
      default:
        out.push(richSection(part));
    }
  }
  return out.join('\n').replace(/\n+$/, '');
}

/** Labels of buttons, selects and overflow menus (what a person can read on them). */
function controlLabels(elements: Json[]): string[] {
  return elements.flatMap((e) => {
    const label = textOf(e.text) ?? textOf(e.placeholder);
    return label ? [label] : [];
  });
}

/** One block's visible text; rich_text only when `includeRichText` (it mirrors `text`). */
function blockText(block: Json, includeRichText: boolean): string {
  switch (block.type) {
    case 'rich_text':
      return includeRichText ? richText(block) : '';
    case 'header':
      return textOf(block.text) ?? '';
    case 'section': {
      const lines = [textOf(block.text), ...records(block.fields).map(textOf)];
      const accessory = isRecord(block.accessory) ? block.accessory : undefined;
      if (accessory) {
        const labels = controlLabels([accessory]);
        if (labels.length > 0) lines.push(`[button: ${labels.join(' | ')}]`);
        else if (str(accessory.alt_text)) lines.push(`[image: ${str(accessory.alt_text)}]`);
      }
      return lines.filter(Boolean).join('\n');
    }
    case 'context':
      return records(block.elements)
        .map((e) => (e.type === 'image' ? undefined : textOf(e)))
        .filter(Boolean)
        .join(' ');
    case 'actions': {
      const labels = controlLabels(records(block.elements));
      return labels.length > 0 ? `[button: ${labels.join(' | ')}]` : '';
    }
    case 'image': {
      const title = textOf(block.title) ?? str(block.alt_text);
      return title ? `[image: ${title}]` : '';
    }
    case 'video':
      return [textOf(block.title), textOf(block.description)].filter(Boolean).join('\n');
    case 'markdown':
      return str(block.text) ?? '';
    default:
      return '';
  }
}

/**
 * Renders blocks, skipping a block whose text is already in `seen` (bots repeat the blocks'
 * text as the message's fallback `text`).
 */
function blocksText(blocks: unknown, includeRichText: boolean, seen: string): string[] {
  const out: string[] = [];
  let known = squash(seen);
  for (const block of records(blocks)) {
    const text = blockText(block, includeRichText);
    if (!text.trim() || known.includes(squash(text))) continue;
    out.push(text);
    known += ` ${squash(text)}`;
  }
  return out;
}

/** Blocks of a shared message (`message_blocks[].message.blocks`). */
const sharedBlocks = (attachment: Json) =>
  records(attachment.message_blocks).flatMap((mb) =>
    isRecord(mb.message) ? records(mb.message.blocks) : [],
  );

/** One attachment: a forwarded or shared message, a link preview or an app notification. */
function attachmentText(a: Json, messageText: string): string {
  const author = str(a.author_name) ?? str(a.author_subname);
  const channel = str(a.channel_name);
  const where = channel ? ` in #${channel}` : '';
  const label =
    a.is_share === true
      ? `[forwarded message${author ? ` from ${author}` : ''}${where}]`
      : a.is_msg_unfurl === true
        ? `[shared message${author ? ` from ${author}` : ''}${where}]`
        : str(a.from_url) || str(a.original_url)
          ? `[link preview${str(a.service_name) ? `: ${str(a.service_name)}` : ''}]`
          : '[attachment]';
  const isMessage = a.is_share === true || a.is_msg_unfurl === true;
  const lines: string[] = [];
  const push = (value: string | undefined) => {
    if (value && value.trim() && !lines.includes(value)) lines.push(value);
  };
  push(str(a.pretext));
  if (!isMessage) push(author);
  const title = str(a.title);
  push(title);
  const body = str(a.text);
  push(body);
  // A shared message's text may exist only as blocks.
  for (const text of blocksText([...sharedBlocks(a), ...records(a.blocks)], !body, lines.join('\n')))
    push(text);
  for (const field of records(a.fields)) {
    const [name, value] = [str(field.title), str(field.value)];
    push(name && value ? `${name}: ${value}` : (name ?? value));
  }
  const buttons = controlLabels(records(a.actions));
  if (buttons.length > 0) push(`[button: ${buttons.join(' | ')}]`);
  push(str(a.footer));
  // The fallback is a plain summary of the rest: only when nothing else is visible.
  if (lines.length === 0) push(str(a.fallback));
  if (lines.length === 0 || squash(messageText).includes(squash(lines.join(' ')))) return '';
  return [label, ...lines].join('\n');
}

/** A file's visible words: its title (or name) and a preview of its text. */
function fileText(f: Json): string {
  const name = str(f.title) ?? str(f.name);
  const preview = str(f.preview) ?? str(f.plain_text);
  if (!name && !preview) return f.file_access === 'check_file_info' ? `[file ${str(f.id) ?? ''}]` : '';
  return [`[file${name ? `: ${name}` : ''}]`, ...(preview ? [preview] : [])].join('\n');
}

/** The whole visible text of a Slack message object, parts separated by blank lines. */
export function renderSlackMessage(message: Json): string {
  const text = typeof message.text === 'string' ? message.text : '';
  const parts = [text];
  parts.push(...blocksText(message.blocks, !text.trim(), text));
  for (const attachment of records(message.attachments)) parts.push(attachmentText(attachment, text));
  for (const file of records(message.files)) parts.push(fileText(file));
  return parts.filter((p) => p.trim()).join('\n\n');
}
