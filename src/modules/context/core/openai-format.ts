// The assembled payload in OpenAI chat-completions form (docs/design.md §6.6 "OpenAI chat as an option").
// Same content and order; cache_control markers are dropped (OpenAI caches prefixes on its own),
// tool_use becomes tool_calls and each tool_result a `tool` message; thinking blocks and server
// tools have no OpenAI form and are left out.
import type Anthropic from '@anthropic-ai/sdk';

type OpenAIContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: OpenAIContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIChatPayload {
  model: string;
  max_tokens: number;
  messages: OpenAIMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: unknown } }[];
}

type Block = Anthropic.ContentBlockParam;

function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'document':
      return block.source.type === 'text'
        ? block.source.data
        : `[document${block.title ? `: ${block.title}` : ''}]`;
    default:
      return `[${block.type}]`;
  }
}

function imagePart(block: Anthropic.ImageBlockParam): OpenAIContentPart {
  const source = block.source;
  if (source.type === 'base64')
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  if (source.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
  return { type: 'text', text: '[image]' };
}

function resultText(block: Anthropic.ToolResultBlockParam): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((b) => blockText(b as Block)).join('\n');
}

export function toOpenAIChat(payload: Anthropic.MessageCreateParamsNonStreaming): OpenAIChatPayload {
  const messages: OpenAIMessage[] = [];
  const system =
    typeof payload.system === 'string'
      ? payload.system
      : (payload.system ?? []).map((b) => b.text).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const message of payload.messages) {
    const blocks: Block[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content as Block[]);
    if (message.role === 'assistant') {
      const text = blocks
        .filter((b) => b.type === 'text')
        .map(blockText)
        .join('\n');
      const calls = blocks
        .filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use')
        .map((b) => ({
          id: b.id,
          type: 'function' as const,
          function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
        }));
      messages.push({
        role: 'assistant',
        content: text || null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    // Tool results first (OpenAI wants them right after the assistant's calls), then the rest.
    for (const block of blocks) {
      if (block.type === 'tool_result') {
        messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: resultText(block) });
      }
    }
    const parts: OpenAIContentPart[] = blocks
      .filter((b) => b.type !== 'tool_result')
      .map((b) => (b.type === 'image' ? imagePart(b) : { type: 'text' as const, text: blockText(b) }));
    if (parts.length > 0) messages.push({ role: 'user', content: parts });
  }
  // Server tools (web search, code execution, …) run at Anthropic: OpenAI has no equivalent.
  const clientTools = (payload.tools ?? []).filter((t): t is Anthropic.Tool => 'input_schema' in t);
  const tools = clientTools.map((tool) => {
    return {
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    };
  });
  return {
    model: payload.model,
    max_tokens: payload.max_tokens,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
  };
}
