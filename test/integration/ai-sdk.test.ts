// The AI SDK integration (@contextd/client/ai-sdk) over real HTTP (the app on a port): an AI SDK
// app with a tool of its own runs two turns through wrapLanguageModel + contextdMiddleware, with
// the AI SDK's own mock model (what each call's prompt was: contextd's messages, history included,
// though the app sent only the new question) and with @ai-sdk/anthropic against the strict fake of
// the Messages API (every tool_use answered, nothing rejected); streaming records the reply too;
// contextd's 4xx is the AI SDK's APICallError carrying contextd's code.
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { APICallError, generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextdClient, type ContextdClient } from '@contextd/client';
import { contextdMiddleware } from '@contextd/client/ai-sdk';
import { createAssistant, rolloutTools } from '../../examples/ai-sdk-app.js';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../../examples/fake-anthropic.js';
import { createTestApp, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let fake: FakeAnthropic;
let contextd: ContextdClient;
let stranger: ContextdClient;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  ctx = await createTestApp();
  const baseUrl = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  contextd = createContextdClient({ baseUrl, apiKey: (await ctx.tenant()).key });
  stranger = createContextdClient({ baseUrl, apiKey: (await ctx.tenant()).key });
});
afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

let seq = 0;
async function newSession(client = contextd) {
  const { session } = await client.session({
    agent_id: 'ai-sdk-app',
    platform: 'slack',
    chat_type: 'dm',
    user_id: `U${++seq}`,
  });
  return session.id;
}

const tools = rolloutTools;

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};

/** The mock model: asks for the ticket when the prompt ends with a user turn, else answers. */
function mockReply(options: LanguageModelV3CallOptions): LanguageModelV3GenerateResult {
  const last = options.prompt.at(-1)!;
  if (last.role === 'tool') {
    const output = last.content[0]!.type === 'tool-result' ? JSON.stringify(last.content[0]!.output) : '';
    return {
      content: [{ type: 'text', text: `Answer: ${output}` }],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage,
      warnings: [],
    };
  }
  return {
    content: [
      {
        type: 'tool-call',
        toolCallId: `call_${options.prompt.length}`,
        toolName: 'lookup_ticket',
        input: '{"ticket":"T-7"}',
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage,
    warnings: [],
  };
}

const textOf = (prompt: LanguageModelV3CallOptions['prompt']) => JSON.stringify(prompt);

describe('contextdMiddleware with the AI SDK mock model', () => {
  it('runs two turns with a tool: the prompt is contextd’s, the turns are recorded', async () => {
    const sessionId = await newSession();
    const mock = new MockLanguageModelV3({
      modelId: 'claude-sonnet-4-5',
      doGenerate: async (o) => mockReply(o),
    });
    const model = wrapLanguageModel({
      model: mock,
      middleware: contextdMiddleware({ client: contextd, sessionId }),
    });

    const first = await generateText({
      model,
      system: 'You track the rollout.',
      prompt: 'What blocks the rollout?',
      tools,
      stopWhen: stepCountIs(3),
    });
    expect(first.text).toBe('Answer: {"type":"text","value":"T-7 waits for the DB migration"}');
    expect(mock.doGenerateCalls).toHaveLength(2);
    const [ask, answer] = mock.doGenerateCalls;
    expect(
      ask!.prompt
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n'),
    ).toContain('You track the rollout.');
    expect(ask!.tools?.map((t) => t.name)).toEqual(['lookup_ticket']);
    // The second step: contextd sent the open tool loop back (the call, then its result).
    expect(answer!.prompt.slice(-2).map((m) => m.role)).toEqual(['assistant', 'tool']);

    // Turn two: the app sends only the new question; contextd supplies the first turn.
    const second = await generateText({
      model,
      prompt: 'And when is it done?',
      tools,
      stopWhen: stepCountIs(3),
    });
    expect(second.steps).toHaveLength(2);
    const turnTwo = textOf(mock.doGenerateCalls[2]!.prompt);
    expect(turnTwo).toContain('What blocks the rollout?');
    expect(turnTwo).toContain('T-7 waits for the DB migration');
    expect(turnTwo).toContain('And when is it done?');

    const session = await contextd.getSession(sessionId);
    expect(session).toMatchObject({ turn_count: 8 });
  });

  it('records a streamed reply when the stream ends', async () => {
    const sessionId = await newSession();
    const mock = new MockLanguageModelV3({
      modelId: 'claude-sonnet-4-5',
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'response-metadata', modelId: 'claude-sonnet-4-5' },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Streamed ' },
          { type: 'text-delta', id: 't', delta: 'answer.' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage },
        ]),
      }),
    });
    const model = wrapLanguageModel({
      model: mock,
      middleware: contextdMiddleware({ client: contextd, sessionId }),
    });
    const result = streamText({ model, prompt: 'Say something.' });
    expect(await result.text).toBe('Streamed answer.');
    // The next call's prompt carries the streamed answer as contextd recorded it.
    const next = new MockLanguageModelV3({ doGenerate: async (o) => mockReply(o) });
    await generateText({
      model: wrapLanguageModel({
        model: next,
        middleware: contextdMiddleware({ client: contextd, sessionId }),
      }),
      prompt: 'Again?',
    });
    expect(textOf(next.doGenerateCalls[0]!.prompt)).toContain('Streamed answer.');
  });

  it("surfaces contextd's 4xx as APICallError with contextd's code", async () => {
    const foreign = await newSession(stranger);
    const mock = new MockLanguageModelV3({ doGenerate: async (o) => mockReply(o) });
    const model = wrapLanguageModel({
      model: mock,
      middleware: contextdMiddleware({ client: contextd, sessionId: foreign }),
    });
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(404);
    expect(apiError.data).toMatchObject({ code: 'session.not_found' });
    expect(apiError.message).toContain('session.not_found');
    expect(mock.doGenerateCalls).toHaveLength(0);
  });
});

describe('contextdMiddleware with @ai-sdk/anthropic and the strict fake Messages API', () => {
  it('runs two turns with a tool and the fake accepts every request', async () => {
    const sessionId = await newSession();
    fake.respond = (request: FakeRequest) => {
      const last = request.messages.at(-1)!;
      const blocks = Array.isArray(last.content)
        ? (last.content as { type: string; content?: unknown }[])
        : [];
      const result = blocks.find((b) => b.type === 'tool_result');
      if (result) return `Blocked by: ${JSON.stringify(result.content)}`;
      return [
        {
          type: 'tool_use',
          id: `toolu_${fake.requests.length}`,
          name: 'lookup_ticket',
          input: { ticket: 'T-9' },
        },
      ];
    };
    const before = fake.requests.length;
    const anthropic = createAnthropic({ baseURL: `${fake.baseURL}/v1`, apiKey: 'test-key' });
    // The example app (examples/ai-sdk-app.ts), its model the provider against the fake.
    const ask = createAssistant({ client: contextd, sessionId, model: anthropic('claude-sonnet-4-5') });
    expect(await ask('What blocks the rollout?')).toContain('T-9 waits for the DB migration');
    expect(await ask('Which ticket was it?')).toContain('Blocked by');
    expect(fake.rejections).toEqual([]);
    expect(fake.requests.length - before).toBe(4);
    // Turn two's first request carried turn one (question, tool loop, answer) from contextd.
    const turnTwo = JSON.stringify(fake.requests[before + 2]!.messages);
    expect(turnTwo).toContain('What blocks the rollout?');
    expect(turnTwo).toContain('"type":"tool_result"');
  });
});
