// The bot loop through @contextd/client over real HTTP (the app listening on a port), with the real
// Anthropic SDK against the strict fake of the Messages API: events in, the session, the context of
// a turn spread into messages.create, the model's turns appended as they came back, contextd's
// tool run for its tool_use block. Then what the client makes of failures: another tenant's
// session, a bad body, a retried write, a reply that is not contextd's.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContextdError,
  createContextdClient,
  FORMAT_MISMATCH,
  UNEXPECTED_REPLY,
  type ContextdClient,
} from '@contextd/client';
import { createTestApp, type TestContext } from '../helpers/app.js';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../../examples/fake-anthropic.js';

let ctx: TestContext;
let fake: FakeAnthropic;
let anthropic: Anthropic;
let baseUrl: string;
let contextd: ContextdClient;
let stranger: ContextdClient;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  anthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.baseURL, maxRetries: 0, timeout: 5_000 });
  ctx = await createTestApp();
  baseUrl = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  contextd = createContextdClient({ baseUrl, apiKey: (await ctx.tenant()).key });
  stranger = createContextdClient({ baseUrl, apiKey: (await ctx.tenant()).key });
});
afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

let seq = 0;
const slackMessage = (channel: string, id: string, minute: number, text: string) => ({
  type: 'message.created' as const,
  platform: 'slack',
  channel_id: channel,
  message_id: id,
  ts: new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString(),
  author: { id: 'U1', name: 'ana' },
  text,
});

/** Asks contextd's channel_context tool once per question, then answers with what it returned. */
function releaseBot(request: FakeRequest) {
  const last = request.messages.at(-1)!;
  const blocks = Array.isArray(last.content) ? (last.content as { type: string; content?: unknown }[]) : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result)
    return `From the channel: ${JSON.stringify(result.content).includes('DB migration') ? 'the DB migration' : 'nothing'}`;
  const input = { intent: 'what blocks the rollout' };
  return [{ type: 'tool_use' as const, id: `toolu_${fake.requests.length}`, name: 'channel_context', input }];
}

async function channelSession(client: ContextdClient) {
  const channel = `C${++seq}`;
  const { session } = await client.session({
    agent_id: 'release-bot',
    platform: 'slack',
    chat_type: 'channel',
    channel_id: channel,
  });
  return { channel, id: session.id };
}

async function rejection(call: Promise<unknown>): Promise<ContextdError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ContextdError);
  return error as ContextdError;
}

describe('the bot loop through @contextd/client', () => {
  it('ingest → session → context → messages.create → appendTurns → runTool → context → appendTurns', async () => {
    fake.respond = releaseBot;
    const channel = `C${++seq}`;
    const ingested = await contextd.ingest([
      slackMessage(channel, '1700000000.000100', 1, 'Rollout of v2 is blocked on the DB migration'),
      {
        ...slackMessage(channel, '1700000000.000200', 2, 'migration 0042 fails on the orders table'),
        thread_id: '1700000000.000100',
      },
    ]);
    expect(ingested.results.map((r) => [r.outcome, r.lane_key])).toEqual([
      ['created', `root:${channel}`],
      ['created', `thread:${channel}:1700000000.000100`],
    ]);

    const params = { agent_id: 'release-bot', platform: 'slack', chat_type: 'channel', channel_id: channel };
    const created = await contextd.session(params);
    expect([created.created, created.reason]).toEqual([true, 'new']);
    const again = await contextd.session(params);
    expect([again.session.id, again.created, again.reason]).toEqual([created.session.id, false, 'existing']);
    const id = created.session.id;

    const question = { content: '@release-bot what is blocking the rollout?' };
    const reply = await contextd.context(id, { message: question, budget: { max_output_tokens: 4096 } });
    expect(reply.format).toBe('anthropic');
    expect(reply.payload.tools?.map((t) => t.name)).toContain('channel_context');
    const call = await anthropic.messages.create({ ...reply.payload });
    expect(call.stop_reason).toBe('tool_use');
    await contextd.appendTurns(id, [
      { role: 'assistant', content: call.content, usage: call.usage, model: call.model },
    ]);

    const toolUse = call.content.find((b) => b.type === 'tool_use')!;
    const result = await contextd.runTool(id, toolUse.name, toolUse.input);
    expect(result.is_error).toBe(false);
    expect(JSON.stringify(result.content)).toContain('blocked on the DB migration');

    const loop = await contextd.context(id, {
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: toolUse.id,
            content: result.content,
            is_error: result.is_error,
          },
        ],
      },
      budget: { max_output_tokens: 4096 },
    });
    const answer = await anthropic.messages.create({ ...loop.payload });
    expect(answer.content).toEqual([{ type: 'text', text: 'From the channel: the DB migration' }]);
    const appended = await contextd.appendTurns(id, [
      { role: 'assistant', content: answer.content, usage: answer.usage },
    ]);
    expect(appended.session_id).toBe(id);
    expect(fake.rejections).toEqual([]);

    // user question, assistant tool_use, user tool_result, assistant answer — usage of both calls counted.
    const session = await contextd.getSession(id);
    expect(session.turn_count).toBe(4);
    expect(session.pending_tool_use_ids).toEqual([]);
    expect(session.calibration[call.model]?.calls).toBe(2);
  });

  it('takes usage as the SDK types it (null counts), and asks for the OpenAI format', async () => {
    const { id } = await channelSession(contextd);
    await contextd.context(id, { message: { content: 'hello' } });
    const usage = {
      input_tokens: 900,
      output_tokens: 12,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    };
    await contextd.appendTurns(id, [{ role: 'assistant', content: 'hi', usage, model: 'claude-sonnet-5-5' }]);
    expect((await contextd.getSession(id)).calibration['claude-sonnet-5-5']).toMatchObject({ calls: 1 });

    const openai = await contextd.context(id, { message: { content: 'and now?' }, format: 'openai' });
    expect(openai.format).toBe('openai');
    expect(openai.payload.messages.at(-1)).toMatchObject({ role: 'user' });
  });

  it('replays a write retried with the same Idempotency-Key instead of doing it twice', async () => {
    const { id } = await channelSession(contextd);
    await contextd.context(id, { message: { content: 'hello' } });
    const turns = [{ role: 'assistant' as const, content: 'hi there' }];
    const first = await contextd.appendTurns(id, turns, { idempotencyKey: `turn-${id}` });
    const retried = await contextd.appendTurns(id, turns, { idempotencyKey: `turn-${id}` });
    expect(retried).toEqual(first);
    expect((await contextd.getSession(id)).turn_count).toBe(2);

    const reused = await rejection(
      contextd.appendTurns(id, [{ role: 'assistant', content: 'other' }], { idempotencyKey: `turn-${id}` }),
    );
    expect([reused.status, reused.code]).toEqual([409, 'idempotency.key_reused']);
  });
});

describe('failures as ContextdError', () => {
  it("another tenant's session is a 404 session.not_found on every call", async () => {
    const { id } = await channelSession(contextd);
    // Started one at a time: a rejection nobody awaits yet would be unhandled.
    const calls = [
      () => stranger.getSession(id),
      () => stranger.context(id, { message: { content: 'hi' } }),
      () => stranger.appendTurns(id, [{ role: 'user', content: 'hi' }]),
      () => stranger.runTool(id, 'memory_search', { query: 'rollout' }),
      () => stranger.eraseTranscriptEntry(id, 1),
    ];
    for (const call of calls) {
      const error = await rejection(call());
      expect([error.status, error.code]).toEqual([404, 'session.not_found']);
      expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('erases a transcript entry, and answers the same erase again', async () => {
    const { id } = await channelSession(contextd);
    const [entry] = (
      await contextd.appendTurns(id, [{ role: 'user', content: 'a turn the client will erase now' }])
    ).entries;
    const first = await contextd.eraseTranscriptEntry(id, entry!.seq);
    expect(first.already_erased).toBe(false);
    expect(first.erasure.target).toEqual({ kind: 'transcript_entry', session_id: id, seq: entry!.seq });
    expect(await contextd.eraseTranscriptEntry(id, entry!.seq)).toEqual({ ...first, already_erased: true });
    const unknown = await rejection(
      contextd.eraseChannelMessage({ platform: 'slack', channelId: 'C-none', messageId: '1.2' }),
    );
    expect([unknown.status, unknown.code]).toEqual([404, 'channel_message.not_found']);
  });

  it('a bad body is a 400 with its code and the field path in details', async () => {
    const { id } = await channelSession(contextd);
    const badTool = await rejection(contextd.runTool(id, 'channel_context', {}));
    expect([badTool.status, badTool.code]).toEqual([400, 'tools.invalid_input']);
    expect(badTool.details).toEqual([expect.objectContaining({ path: 'body.input.intent' })]);

    const notObject = await rejection(contextd.runTool(id, 'memory_search', 'rollout'));
    expect([notObject.status, notObject.code]).toEqual([400, 'request.invalid']);
    expect(notObject.details).toEqual([expect.objectContaining({ path: 'body.input' })]);

    const badTurn = await rejection(
      contextd.appendTurns(id, [{ role: 'assistant', content: [{ type: 'text' }] }]),
    );
    expect([badTurn.status, badTurn.code]).toEqual([400, 'request.invalid']);
    expect(badTurn.details).toEqual([expect.objectContaining({ path: 'body.turns.0.content.0.text' })]);

    const badEvent = await rejection(
      contextd.ingest([{ ...slackMessage('C1', 'm1', 1, 'hi'), ts: 'yesterday' }]),
    );
    expect([badEvent.status, badEvent.code]).toEqual([400, 'request.invalid']);
    expect(badEvent.details).toEqual([expect.objectContaining({ path: 'body.events.0.ts' })]);
  });

  it("a wrong key is a 401; a reply that is not contextd's (a proxy page) is client.unexpected_reply", async () => {
    const wrongKey = createContextdClient({ baseUrl, apiKey: 'not-a-key' });
    const unauthorized = await rejection(wrongKey.session({ session_key: 'k' }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.code).toMatch(/^auth\./);

    const proxy = createContextdClient({
      baseUrl,
      apiKey: 'key',
      fetch: async () =>
        new Response('<html>502 Bad Gateway</html>', {
          status: 502,
          headers: { 'content-type': 'text/html' },
        }),
    });
    const gateway = await rejection(proxy.session({ session_key: 'k' }));
    expect([gateway.status, gateway.code]).toEqual([502, UNEXPECTED_REPLY]);
    expect(gateway.message).toContain('502 Bad Gateway');
  });

  it('sends through the given fetch, and refuses a reply in another format than asked', async () => {
    const { id } = await channelSession(contextd);
    const key = (await ctx.tenant()).key;
    const seen: string[] = [];
    // A fetch that records each request and asks contextd for the OpenAI format behind the client's back.
    const sly = createContextdClient({
      baseUrl,
      apiKey: key,
      fetch: async (request) => {
        seen.push(
          `${request.method} ${new URL(request.url).pathname} ${request.headers.get('idempotency-key')}`,
        );
        if (!request.url.endsWith('/context')) return fetch(request);
        const body = { ...((await request.json()) as object), format: 'openai' };
        return fetch(new Request(request, { body: JSON.stringify(body) }));
      },
    });
    const { session } = await sly.session({ session_key: `sly-${id}` }, { idempotencyKey: 'create-1' });
    const mismatch = await rejection(sly.context(session.id, { message: { content: 'hi' } }));
    expect(mismatch.code).toBe(FORMAT_MISMATCH);
    expect(seen).toEqual([`POST /v1/sessions create-1`, `POST /v1/sessions/${session.id}/context null`]);
  });
});
