// A local fake of the Anthropic Messages API (POST /v1/messages) for tests that use the real
// @anthropic-ai/sdk client. Strict where the real API is: an API key (x-api-key, or a bearer token
// as the current SDK sends it) and the anthropic-version header, model, a positive integer
// max_tokens, non-empty messages starting with a user turn, known content-block types, at most 4
// cache_control breakpoints, tool names matching
// ^[a-zA-Z0-9_-]{1,64}$, every tool_result answering a tool_use of the assistant turn before it.
// Errors have the API's shape; modes make it overloaded (529), hang, answer garbage or fail.
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

export interface FakeAnthropic {
  baseURL: string;
  /** Every request body received (valid or not), in order. */
  requests: FakeRequest[];
  mode: FakeMode;
  /** The text of a successful reply (default: a summary in five sections echoing identifiers). */
  respond: (request: FakeRequest) => string;
  close(): Promise<void>;
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

/** Why the real API would reject this body (400 invalid_request_error), or null. */
export function invalidReason(body: unknown): string | null {
  if (!body || typeof body !== 'object') return 'body: expected an object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return 'model: Field required';
  if (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1)
    return 'max_tokens: must be a positive integer';
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    return 'messages: at least one message is required';
  let breakpoints = 0;
  const count = (value: unknown) => {
    if (value && typeof value === 'object' && 'cache_control' in value) breakpoints += 1;
  };
  if (Array.isArray(b.system)) b.system.forEach(count);
  if (Array.isArray(b.tools)) {
    for (const tool of b.tools as { name?: unknown }[]) {
      count(tool);
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
        return `tools: invalid name ${String(tool.name)}`;
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
  return null;
}

/** The default reply: a summary in the five sections listing the identifiers it was sent. */
export const summaryEchoingIdentifiers = (request: FakeRequest) => {
  const text = JSON.stringify(request.messages);
  const ids = [...new Set(text.match(/\b[A-Z]{2,}-\d+\b|\/[\w./-]+|\b\d{3,}\b/g) ?? [])].slice(0, 200);
  return [
    '## Current goals / open questions',
    '- Keep the service healthy.',
    '## Decisions',
    '- (none)',
    '## Important facts',
    ...ids.map((id) => `- ${id}`),
    '## Recent outcomes',
    '- (none)',
    '## Pending actions',
    '- (none)',
  ].join('\n');
};

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

const apiError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const hanging = new Set<ServerResponse>();
  let counter = 0;
  const fake: FakeAnthropic = {
    baseURL: '',
    requests: [],
    mode: 'ok',
    respond: summaryEchoingIdentifiers,
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
      const invalid = invalidReason(body);
      if (invalid) return send(res, 400, apiError('invalid_request_error', invalid));
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
          const text = fake.respond(body);
          counter += 1;
          const input = Math.ceil(JSON.stringify(body.messages).length / 4);
          return send(res, 200, {
            id: `msg_fake_${counter}`,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: {
              input_tokens: input,
              output_tokens: Math.ceil(text.length / 4),
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
