// The model the local fake of the Messages API plays when no ANTHROPIC_API_KEY is set: for a new
// question it calls contextd's channel_context with the question as its intent; given the tool's
// result it answers with the channel messages the result found. Deterministic, so CI can check
// that the answer came out of the tool loop.
import { createHash } from 'node:crypto';
import type { FakeReplyBlock, FakeRequest } from '../fake-anthropic.js';

type Block = { type?: unknown; text?: unknown; content?: unknown; id?: unknown; name?: unknown };
type Found = {
  message_id: string;
  text: string;
  author?: { user_id?: string; display_name?: string };
  reply_count: number;
};

const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];

/** The channel messages in a tool result (JSON text), in the order given: search results, a thread. */
function messagesIn(content: unknown): Found[] {
  const found: Found[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const v = value as Record<string, unknown>;
    if (typeof v.message_id === 'string' && typeof v.text === 'string') {
      const summary = v.thread_summary as { reply_count?: number } | null | undefined;
      const replies = summary?.reply_count ?? (typeof v.reply_count === 'number' ? v.reply_count : 0);
      found.push({
        message_id: v.message_id,
        text: v.text,
        author: v.author as Found['author'],
        reply_count: replies,
      });
    }
    Object.values(v).forEach(walk);
  };
  for (const block of blocksOf(content)) {
    if (typeof block.text !== 'string') continue;
    try {
      walk(JSON.parse(block.text));
    } catch {
      // Not JSON (an offloaded result's reference): nothing to quote from it.
    }
  }
  return found;
}

const line = (m: Found) => `- ${m.author?.display_name ?? m.author?.user_id ?? 'someone'}: ${m.text}`;
const toolUseId = (request: FakeRequest, salt: string) =>
  `toolu_${createHash('sha256').update(JSON.stringify(request.messages)).update(salt).digest('hex').slice(0, 24)}`;

/**
 * One step of the scripted bot: a new question → channel_context with the question as the intent;
 * its results → channel_messages for the best hit's thread when it has replies; then the answer,
 * quoting the messages found. The same request gives the same reply (ids included).
 */
export function scriptedSlackModel(request: FakeRequest): string | FakeReplyBlock[] {
  const last = blocksOf(request.messages.at(-1)?.content);
  const results = last.filter((b) => b.type === 'tool_result');
  const tools = Array.isArray(request.tools) ? (request.tools as { name?: unknown }[]) : [];
  const has = (name: string) => tools.some((t) => t.name === name);
  if (results.length === 0) {
    const question = String(last.find((b) => b.type === 'text')?.text ?? '')
      .replace(/<@[A-Z0-9]+>/g, '')
      .trim();
    if (!has('channel_context') || question === '') {
      return 'I can only answer from a channel, and I have no channel here.';
    }
    const input = { intent: question };
    return [
      { type: 'text', text: 'Let me look at what the channel said.' },
      { type: 'tool_use', id: toolUseId(request, 'search'), name: 'channel_context', input },
    ];
  }
  // Which tool these results answer: the tool_use blocks of the assistant message before them.
  const calls = blocksOf(request.messages.at(-2)?.content).filter((b) => b.type === 'tool_use');
  const calledSearch = calls.some((b) => b.name === 'channel_context');
  // The question itself is in the channel too; it is not an answer.
  const found = results.flatMap((r) => messagesIn(r.content)).filter((m) => !/<@[A-Z0-9]+>/.test(m.text));
  const best = found[0];
  if (calledSearch && best && best.reply_count > 0 && has('channel_messages')) {
    return [
      { type: 'text', text: 'The best match has a thread; reading it.' },
      {
        type: 'tool_use',
        id: toolUseId(request, 'thread'),
        name: 'channel_messages',
        input: { thread_id: best.message_id },
      },
    ];
  }
  if (!best) return 'I searched the channel and found nothing about that.';
  return ['Here is what the channel says:', ...found.slice(0, 4).map(line)].join('\n');
}
