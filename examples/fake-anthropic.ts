// A local fake of the Anthropic Messages API (POST /v1/messages), for the tests that use the real
// @anthropic-ai/sdk client and for the example bot when no ANTHROPIC_API_KEY is set. Strict where
// the real API is: an API key (x-api-key, or a bearer token as the current SDK sends it) and the
// anthropic-version header, model, a positive integer max_tokens, non-empty messages starting with
// a user turn, known content-block types, at most 4 cache_control breakpoints (tools, system and
// message blocks together), client tools with a name matching ^[a-zA-Z0-9_-]{1,64}$ and an object
// input_schema, server tools of a known `type`, unique tool names, every tool_result answering a
// tool_use of the assistant turn before it. With `thinking` enabled: budget_tokens ≥ 1024 and
// below max_tokens, no forced tool use, replies start with a signed thinking block, and a tool-
// loop continuation must send the first assistant message of the open turn starting with its
// thinking blocks, each exactly as this fake issued it (signature / encrypted data checked).
// With tool_choice none a reply carries no tool_use. Errors have the API's shape; modes make it
// overloaded (529), hang, answer garbage or fail.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | 'overloaded' | 'hang' | 'garbage' | 'error500';

export interface FakeRequest {
  model: string;
  max_tokens: number;
  system?: unknown;
  messages: { role: string; content: unknown }[];
  [key: string]: unknown;
}

export type FakeReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface FakeAnthropic {
  baseURL: string;
  /** Every request body received (valid or not), in order. */
  requests: FakeRequest[];
  /** Why each rejected request was rejected (400 messages), in order. */
  rejections: string[];
  mode: FakeMode;
  /**
   * A successful reply: its text, or its blocks (default: a summary in five sections echoing
   * identifiers). With thinking enabled the fake puts its own signed thinking block first.
   */
  respond: (request: FakeRequest) => string | FakeReplyBlock[];
  /** With thinking enabled, also reply with a redacted_thinking block after the thinking block. */
  redactedThinking: boolean;
  close(): Promise<void>;
}

/** The thinking blocks a fake issued: what a request may send back unmodified. */
export interface ThinkingLedger {
  sign(thinking: string): string;
  redacted: Set<string>;
}

export function thinkingLedger(): ThinkingLedger {
  const secret = randomBytes(32);
  return {
    sign: (thinking) => createHmac('sha256', secret).update(thinking).digest('base64'),
    redacted: new Set(),
  };
}

const BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'search_result',
]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Server tool types the API knows (a sample of the SDK's ToolUnion). */
const SERVER_TOOL_TYPES = new Set([
  'bash_20250124',
  'code_execution_20250522',
  'code_execution_20250825',
  'memory_20250818',
  'text_editor_20250124',
  'text_editor_20250429',
  'text_editor_20250728',
  'web_search_20250305',
  'web_fetch_20250910',
  'tool_search_tool_bm25_20251119',
  'tool_search_tool_regex_20251119',
]);
const THINKING_TYPES = new Set(['thinking', 'redacted_thinking']);

type AnyBlock = Record<string, unknown> & { type?: unknown };
const blocksOf = (content: unknown): AnyBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];

/**
 * Index of the first assistant message of the open tool loop (the last message is a user message
 * with tool_result blocks; the turn reaches back to the last user message without one), or -1.
 */
export function openLoopAssistant(messages: readonly { role?: unknown; content?: unknown }[]): number {
  const hasResult = (m: { content?: unknown }) => blocksOf(m.content).some((b) => b.type === 'tool_result');
  const last = messages.at(-1);
  if (!last || last.role !== 'user' || !hasResult(last)) return -1;
  let first = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i]!;
    if (m.role === 'assistant') first = i;
    else if (!hasResult(m)) break;
  }
  return first;
}

function invalidTool(tool: AnyBlock, index: number): string | null {
  const path = `tools.${index}`;
  if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
    return SERVER_TOOL_TYPES.has(String(tool.type))
      ? null
      : `${path}.type: unknown tool type ${String(tool.type)}`;
  }
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
    return `${path}.name: invalid name ${String(tool.name)}`;
  const schema = tool.input_schema as { type?: unknown } | undefined;
  if (!schema || schema.type !== 'object') return `${path}.input_schema.type: Input should be 'object'`;
  return null;
}

function invalidThinking(b: Record<string, unknown>, ledger: ThinkingLedger | undefined): string | null {
  const thinking = b.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (!thinking || thinking.type !== 'enabled') return null;
  const budget = thinking.budget_tokens;
  if (!Number.isInteger(budget) || (budget as number) < 1024)
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if ((budget as number) >= (b.max_tokens as number))
    return '`max_tokens` must be greater than `thinking.budget_tokens`';
  const choice = (b.tool_choice as { type?: unknown } | undefined)?.type;
  if (choice === 'any' || choice === 'tool')
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  const messages = b.messages as { role?: unknown; content?: unknown }[];
  const first = openLoopAssistant(messages);
  if (first !== -1) {
    const head = blocksOf(messages[first]!.content)[0];
    if (!head || !THINKING_TYPES.has(String(head.type))) {
      return `messages.${first}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(head?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
    }
  }
  if (!ledger) return null;
  for (const [i, m] of messages.entries()) {
    for (const [j, block] of blocksOf(m.content).entries()) {
      if (block.type === 'thinking' && block.signature !== ledger.sign(String(block.thinking))) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (block.type === 'redacted_thinking' && !ledger.redacted.has(String(block.data))) {
        return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  return null;
}

/**
 * Why the real API would reject this body (400 invalid_request_error), or null. With a ledger,
 * thinking blocks sent back must be ones it issued, unmodified.
 */
export function invalidReason(body: unknown, ledger?: ThinkingLedger): string | null {
  if (!body || typeof body !== 'object') return 'body: expected an object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return 'model: Field required';
  if (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1)
    return 'max_tokens: must be a positive integer';
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    return 'messages: at least one message is required';
  let breakpoints = 0;
  const count = (value: unknown) => {
    if (value && typeof value === 'object' && (value as { cache_control?: unknown }).cache_control)
      breakpoints += 1;
  };
  if (Array.isArray(b.system)) b.system.forEach(count);
  if (Array.isArray(b.tools)) {
    const names = new Set<string>();
    for (const [index, tool] of (b.tools as AnyBlock[]).entries()) {
      count(tool);
      const invalid = invalidTool(tool, index);
      if (invalid) return invalid;
      if (typeof tool.name === 'string') {
        if (names.has(tool.name)) return `tools: Tool names must be unique (${tool.name})`;
        names.add(tool.name);
      }
    }
  }
  const messages = b.messages as { role?: unknown; content?: unknown }[];
  if (messages[0]!.role !== 'user') return 'messages: first message must use the "user" role';
  let previousUses = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'user' && m.role !== 'assistant') return `messages.${i}.role: must be user or assistant`;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}.content: must be non-empty`;
    const uses = new Set<string>();
    for (const block of blocks as { type?: unknown; id?: unknown; tool_use_id?: unknown; text?: unknown }[]) {
      if (typeof block.type !== 'string' || !BLOCK_TYPES.has(block.type)) {
        return `messages.${i}.content: unknown block type ${String(block.type)}`;
      }
      if (THINKING_TYPES.has(block.type) && m.role !== 'assistant') {
        return `messages.${i}.content: ${block.type} blocks are only allowed in assistant messages`;
      }
      if (block.type === 'thinking' && typeof (block as AnyBlock).signature !== 'string') {
        return `messages.${i}.content: thinking.signature: Field required`;
      }
      if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) {
        return `messages.${i}.content: text blocks must be non-empty`;
      }
      count(block);
      if (block.type === 'tool_use') uses.add(String(block.id));
      if (
        block.type === 'tool_result' &&
        (m.role !== 'user' || !previousUses.has(String(block.tool_use_id)))
      ) {
        return `messages.${i}: tool_result ${String(block.tool_use_id)} has no tool_use in the previous message`;
      }
    }
    previousUses = m.role === 'assistant' ? uses : new Set();
  }
  if (breakpoints > 4)
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  return invalidThinking(b, ledger);
}

/**
 * The default reply: an analysis, then a summary in contextd's seven sections listing the
 * identifiers it was sent (at most 200).
 */
export const summaryEchoingIdentifiers = (request: FakeRequest) => {
  const text = JSON.stringify(request.messages);
  const ids = [...new Set(text.match(/\b[A-Z]{2,}-\d+\b|\/[\w./-]+|\b\d{3,}\b/g) ?? [])].slice(0, 200);
  return [
    '<analysis>The excerpt names identifiers; they are listed as facts.</analysis>',
    '<summary>',
    '## Participants',
    '- (none)',
    '## Requests and open questions',
    '- Keep the service healthy.',
    '## Decisions and commitments',
    '- (none)',
    '## Facts',
    ...ids.map((id) => `- ${id}`),
    '## Outcomes',
    '- (none)',
    '## Current work and next step',
    '- (none)',
    '## Names, numbers and dates',
    '- (none)',
    '</summary>',
  ].join('\n');
};

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

const apiError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const hanging = new Set<ServerResponse>();
  const ledger = thinkingLedger();
  let counter = 0;
  const fake: FakeAnthropic = {
    baseURL: '',
    requests: [],
    rejections: [],
    mode: 'ok',
    respond: summaryEchoingIdentifiers,
    redactedThinking: false,
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        return send(res, 404, apiError('not_found_error', `no route ${req.method} ${req.url}`));
      }
      // The current SDK sends the key as a bearer token; older clients as x-api-key.
      if (!req.headers['x-api-key'] && !/^Bearer \S+$/.test(req.headers.authorization ?? '')) {
        return send(
          res,
          401,
          apiError('authentication_error', 'an API key is required (x-api-key or Authorization)'),
        );
      }
      if (!req.headers['anthropic-version']) {
        return send(res, 400, apiError('invalid_request_error', 'anthropic-version header is required'));
      }
      let body: FakeRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest;
      } catch {
        return send(res, 400, apiError('invalid_request_error', 'body is not valid JSON'));
      }
      fake.requests.push(body);
      const invalid = invalidReason(body, ledger);
      if (invalid) {
        fake.rejections.push(invalid);
        return send(res, 400, apiError('invalid_request_error', invalid));
      }
      switch (fake.mode) {
        case 'overloaded':
          return send(res, 529, apiError('overloaded_error', 'Overloaded'));
        case 'error500':
          return send(res, 500, apiError('api_error', 'Internal server error'));
        case 'hang':
          hanging.add(res);
          return;
        case 'garbage':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"this is": not json');
        default: {
          const reply = fake.respond(body);
          let blocks: Record<string, unknown>[] =
            typeof reply === 'string' ? [{ type: 'text', text: reply }] : [...reply];
          // tool_choice none: the model cannot call a tool, so a scripted tool_use is not sent.
          if ((body.tool_choice as { type?: unknown } | undefined)?.type === 'none') {
            blocks = blocks.filter((b) => b.type !== 'tool_use');
            if (blocks.length === 0) blocks = [{ type: 'text', text: 'I cannot use tools now.' }];
          }
          counter += 1;
          // Thinking comes at the start of an assistant turn, not when a tool loop continues
          // (interleaved thinking is a beta this fake does not model).
          const thinking = body.thinking as { type?: string } | undefined;
          if (thinking?.type === 'enabled' && openLoopAssistant(body.messages) === -1) {
            const text = `Reasoning ${counter}: what does the user need, and which tool gives it?`;
            const extra: Record<string, unknown>[] = [];
            if (fake.redactedThinking) {
              const data = randomBytes(48).toString('base64');
              ledger.redacted.add(data);
              extra.push({ type: 'redacted_thinking', data });
            }
            blocks.unshift({ type: 'thinking', thinking: text, signature: ledger.sign(text) }, ...extra);
          }
          const input = Math.ceil(JSON.stringify(body.messages).length / 4);
          return send(res, 200, {
            id: `msg_fake_${counter}`,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: blocks,
            stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
            stop_sequence: null,
            usage: {
              input_tokens: input,
              output_tokens: Math.ceil(JSON.stringify(blocks).length / 4),
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
            },
          });
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
