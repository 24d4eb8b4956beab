// contextd's payloads sent with the real @anthropic-ai/sdk to the strict fake of the Messages API:
// a tool loop with extended thinking (the thinking block of the assistant turn that called the
// tool goes back unmodified while the loop is open, and is not sent once it is over), and a
// standard `tools` array — client tools without `source`, server tools, cache_control on a tool.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../../examples/fake-anthropic.js';

let fake: FakeAnthropic;
let client: Anthropic;
let ctx: TestContext;
let t: TestTenant;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  client = new Anthropic({ apiKey: 'test-key', baseURL: fake.baseURL, maxRetries: 0, timeout: 5_000 });
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.rejections.length = 0;
  fake.redactedThinking = false;
  fake.respond = weatherBot;
});

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };
const THINKING = { type: 'enabled', budget_tokens: 2048 } as const;

/** Calls get_weather once per user question, then answers from the tool result. */
function weatherBot(request: FakeRequest) {
  const last = request.messages.at(-1)!;
  const blocks = Array.isArray(last.content) ? (last.content as { type: string }[]) : [];
  if (blocks.some((b) => b.type === 'tool_result')) return 'It is sunny in Paris.';
  return [
    { type: 'text' as const, text: 'Let me check.' },
    {
      type: 'tool_use' as const,
      id: `toolu_${fake.requests.length}`,
      name: 'get_weather',
      input: { city: 'Paris' },
    },
  ];
}

let counter = 0;
async function newSession(): Promise<string> {
  counter += 1;
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'api', chat_type: 'dm', user_id: `U${counter}` },
  });
  expect(response.statusCode).toBe(201);
  return response.json().session.id;
}

async function context(sessionId: string, body: Record<string, unknown>) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/context`,
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    payload: Anthropic.MessageCreateParamsNonStreaming;
    budget: { components: { conversation: number } };
    cache: { breakpoints: { position: string; index: number }[] };
  };
}

async function appendAssistant(sessionId: string, content: Anthropic.ContentBlock[]) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    payload: { turns: [{ role: 'assistant', content }] },
  });
  expect(response.statusCode, response.body).toBe(201);
}

const send = (payload: Anthropic.MessageCreateParamsNonStreaming) =>
  client.messages.create({ ...payload, thinking: THINKING });

const thinkingBlocks = (payload: Anthropic.MessageCreateParamsNonStreaming) =>
  payload.messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
      : [],
  );

describe('a tool loop with extended thinking through contextd', () => {
  it.each([
    ['thinking', false],
    ['thinking and redacted_thinking', true],
  ])('sends the %s blocks back unmodified while the loop is open, and not after', async (_, redacted) => {
    fake.redactedThinking = redacted;
    const id = await newSession();
    const tools = [weatherTool];
    const budget = { max_output_tokens: 4096 };

    const first = await context(id, { message: { content: 'Weather in Paris?' }, tools, budget });
    const call = await send(first.payload);
    expect(call.stop_reason).toBe('tool_use');
    const issued = call.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
    expect(issued).toHaveLength(redacted ? 2 : 1);
    await appendAssistant(id, call.content);

    const toolUse = call.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    const loop = await context(id, {
      message: { content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'Sunny, 24°C' }] },
      tools,
      budget,
    });
    // The assistant message that called the tool starts with its thinking, exactly as issued.
    const assistant = loop.payload.messages.findLast((m) => m.role === 'assistant')!;
    const content = assistant.content as Anthropic.ContentBlockParam[];
    expect(content.slice(0, issued.length)).toEqual(issued);
    const answer = await send(loop.payload);
    expect(answer.content.at(-1)).toMatchObject({ type: 'text', text: 'It is sunny in Paris.' });
    await appendAssistant(id, answer.content);

    // The loop is over: earlier thinking is not sent (the API would ignore it) and not counted.
    const next = await context(id, { message: { content: 'And tomorrow?' }, tools, budget });
    expect(thinkingBlocks(next.payload)).toEqual([]);
    const again = await send(next.payload);
    expect(again.stop_reason).toBe('tool_use');
  });

  it('a loop of two tool calls: the first call thinking stays in front of both', async () => {
    // Calls the tool until two results came back in this loop, then answers.
    fake.respond = (request) => {
      const results = JSON.stringify(request.messages).split('"tool_result"').length - 1;
      if (results >= 2) return 'Done.';
      return [
        { type: 'tool_use', id: `toolu_step_${results}`, name: 'get_weather', input: { city: 'Paris' } },
      ];
    };
    const id = await newSession();
    const body = { tools: [weatherTool], budget: { max_output_tokens: 4096 } };
    let reply = await context(id, { ...body, message: { content: 'Weather twice?' } });
    let response = await send(reply.payload);
    const issued = response.content.find((b) => b.type === 'thinking')!;
    for (let step = 0; step < 2; step += 1) {
      expect(response.stop_reason).toBe('tool_use');
      await appendAssistant(id, response.content);
      const call = response.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      reply = await context(id, {
        ...body,
        message: { content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny' }] },
      });
      expect(thinkingBlocks(reply.payload)).toEqual([issued]);
      response = await send(reply.payload);
    }
    expect(response.content.at(-1)).toMatchObject({ type: 'text', text: 'Done.' });
    expect(fake.rejections).toEqual([]);
  });

  it('the fake rejects a continuation whose thinking block was dropped or modified', async () => {
    const id = await newSession();
    const first = await context(id, {
      message: { content: 'Weather?' },
      tools: [weatherTool],
      budget: { max_output_tokens: 4096 },
    });
    const call = await send(first.payload);
    const toolUse = call.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    const result = { type: 'tool_result' as const, tool_use_id: toolUse.id, content: 'Sunny' };
    const turn = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageCreateParamsNonStreaming => ({
      ...first.payload,
      messages: [
        ...first.payload.messages,
        { role: 'assistant', content },
        { role: 'user', content: [result] },
      ],
    });
    const withoutThinking = call.content.filter(
      (b) => b.type !== 'thinking',
    ) as Anthropic.ContentBlockParam[];
    await expect(send(turn(withoutThinking))).rejects.toThrow(/Expected `thinking` or `redacted_thinking`/);
    const modified = call.content.map((b) =>
      b.type === 'thinking' ? { ...b, thinking: `${b.thinking} (edited)` } : b,
    ) as Anthropic.ContentBlockParam[];
    await expect(send(turn(modified))).rejects.toThrow(/Invalid `signature`/);
    await expect(send(turn(call.content as Anthropic.ContentBlockParam[]))).resolves.toMatchObject({
      stop_reason: 'end_turn',
    });
  });

  it('refuses a stored thinking block without its signature, at its path', async () => {
    const id = await newSession();
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm' },
              { type: 'text', text: 'Hello' },
            ],
          },
        ],
      },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'body.turns.1.content.0.signature' })]),
    );
  });
});

describe('a standard Anthropic tools array', () => {
  it('takes client tools without source, server tools and cache_control on a tool; the fake accepts it', async () => {
    const id = await newSession();
    const tools = [
      { ...weatherTool, cache_control: { type: 'ephemeral' } },
      webSearch,
      { name: 'lookup', description: 'An MCP lookup.', input_schema: { type: 'object' }, source: 'mcp' },
    ];
    const reply = await context(id, {
      message: { content: 'Weather in Paris?' },
      tools,
      system: [{ name: 'policy', text: 'You are helpful.' }],
    });
    const sent = reply.payload.tools!;
    // Passed through as given; `source` is contextd's and never sent.
    expect(sent.find((tool) => 'name' in tool && tool.name === 'get_weather')).toEqual(tools[0]);
    expect(sent.find((tool) => 'name' in tool && tool.name === 'web_search')).toEqual(webSearch);
    expect(JSON.stringify(sent)).not.toContain('"source"');
    // The caller's breakpoint, then contextd's: system and this turn (no history yet).
    expect(JSON.stringify(reply.payload).match(/"cache_control"/g)).toHaveLength(3);
    expect(reply.cache.breakpoints.map((b) => b.position)).toEqual(['system', 'this_turn']);
    fake.respond = () => 'Sunny.';
    await expect(client.messages.create(reply.payload)).resolves.toMatchObject({ stop_reason: 'end_turn' });
    expect(fake.rejections).toEqual([]);
  });

  it('keeps at most 4 breakpoints when the caller marks several tools', async () => {
    const id = await newSession();
    const tools = ['a', 'b', 'c'].map((n) => ({
      ...weatherTool,
      name: `tool_${n}`,
      cache_control: { type: 'ephemeral' },
    }));
    // A history, so every breakpoint of contextd's is wanted (system, previous turn, this turn).
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Hello!' },
        ],
      },
    });
    const reply = await context(id, {
      message: { content: [{ type: 'text', text: 'Weather?', cache_control: { type: 'ephemeral' } }] },
      tools,
      system: [{ name: 'policy', text: 'You are helpful.' }],
    });
    expect(JSON.stringify(reply.payload).match(/"cache_control"/g)).toHaveLength(4);
    expect(reply.cache.breakpoints.map((b) => b.position)).toEqual(['this_turn']);
    fake.respond = () => 'Sunny.';
    await expect(client.messages.create(reply.payload)).resolves.toMatchObject({ stop_reason: 'end_turn' });
  });

  it.each([
    [{ name: 'bad tool', input_schema: { type: 'object' } }, 'body.tools.0.name'],
    [{ name: 'x', input_schema: { type: 'string' } }, 'body.tools.0.input_schema.type'],
    [{ name: 'x' }, 'body.tools.0.input_schema'],
    [
      { name: 'x', input_schema: { type: 'object' }, cache_control: { type: 'forever' } },
      'body.tools.0.cache_control.type',
    ],
    [{ type: 'web search', name: 'web_search' }, 'body.tools.0.type'],
    [{ type: 'web_search_20250305', name: 'web search' }, 'body.tools.0.name'],
    [{ name: 'x', input_schema: { type: 'object' }, source: 'plugin' }, 'body.tools.0.source'],
  ])('refuses a bad tool definition with its field path (%j)', async (tool, path) => {
    const id = await newSession();
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: { message: { content: 'hi' }, tools: [tool] },
    });
    expect(response.statusCode).toBe(400);
    expect((errorOf(response).details as { path: string }[]).map((d) => d.path)).toContain(path);
  });

  it('refuses a fifth tool breakpoint and a duplicate name', async () => {
    const id = await newSession();
    const marked = Array.from({ length: 5 }, (_, i) => ({
      ...weatherTool,
      name: `tool_${i}`,
      cache_control: { type: 'ephemeral' },
    }));
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: { message: { content: 'hi' }, tools: [...marked, webSearch, { ...webSearch }] },
    });
    expect(response.statusCode).toBe(400);
    const paths = (errorOf(response).details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['body.tools.4.cache_control', 'body.tools.6.name']));
  });
});
