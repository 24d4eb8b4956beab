// The README's newcomer path, as CI runs it: the example Slack bot (examples/slack-bot) replaying
// its recorded events against contextd listening on a port and the strict fake of the Messages API
// (events forwarded, the tool loop run through contextd's tools, every turn appended, no request the
// real API would refuse); its Events API listener (signatures, the handshake); the MCP client of
// examples/mcp-client.ts, whose lines the README quotes, calling channel_context in the bot's
// session; and `npm run example:slack-bot -- --once` itself, contextd embedded, as the README says.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../../examples/fake-anthropic.js';
import { callChannelContext } from '../../examples/mcp-client.js';
import type { BotReply } from '../../examples/slack-bot/bot.js';
import { startSlackListener } from '../../examples/slack-bot/listener.js';
import { loadRecordedEvents, replay, startExample, type Example } from '../../examples/slack-bot/run.js';
import { scriptedSlackModel } from '../../examples/slack-bot/scripted-model.js';
import { slackSignature } from '../../examples/slack-bot/slack.js';
import { createTestApp, usesRealPostgres, type TestContext, type TestTenant } from '../helpers/app.js';

const EVENTS = 'examples/slack-bot/events.json';
const CHANNEL = 'C06RELEASE';

let ctx: TestContext;
let t: TestTenant;
let fake: FakeAnthropic;
let baseUrl: string;
let example: Example;

beforeAll(async () => {
  ctx = await createTestApp();
  baseUrl = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  t = await ctx.tenant();
  fake = await startFakeAnthropic();
  fake.respond = scriptedSlackModel;
  example = await startExample({
    contextd: { url: baseUrl, apiKey: t.key },
    anthropic: { baseURL: fake.baseURL },
    bot: { thinkingBudget: 2048 },
  });
});
afterAll(async () => {
  await example?.close();
  await fake?.close();
  await ctx?.close();
});

type Entry = { kind: string; role: string; content: unknown };
const blockTypes = (content: unknown) =>
  typeof content === 'string' ? ['string'] : (content as { type: string }[]).map((b) => b.type);

let replies: BotReply[];

describe('the example Slack bot, replaying its recorded events', () => {
  beforeAll(async () => {
    replies = await replay(example.bot, await loadRecordedEvents(EVENTS));
  });

  it('forwards every event to contextd: messages, the thread, the reaction', async () => {
    const response = await t.inject({ url: `/v1/channels/slack/${CHANNEL}/messages?limit=50` });
    expect(response.statusCode, response.body).toBe(200);
    const messages = response.json().messages as { message_id: string; text: string; reactions: unknown }[];
    // Four messages (two of them thread replies) and the question, which Slack sent twice (as
    // message and as app_mention): stored once.
    expect(messages).toHaveLength(5);
    const fix = messages.find((m) => m.text.includes('PR #4821'))!;
    expect(fix.reactions).toEqual({ eyes: 1 });
  });

  it('answers the mention once, from what its tool loop found through contextd', () => {
    expect(replies).toHaveLength(1);
    const [reply] = replies as [BotReply];
    expect(reply.mention).toMatchObject({ channel: CHANNEL, user: 'U02MAYA001', chatType: 'channel' });
    expect(reply.toolCalls.map((c) => [c.name, c.isError])).toEqual([
      ['channel_context', false],
      ['channel_messages', false],
    ]);
    expect(reply.modelCalls).toBe(3);
    // The thread replies came only from channel_messages: the loop carried them into the answer.
    expect(reply.text).toContain('Fix is PR #4821');
    expect(reply.text).toContain('Reviewing #4821 now');
  });

  it('sent the Messages API nothing it would refuse, thinking and tool pairing included', () => {
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) {
      expect(request.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    }
    const lastBlocks = fake.requests.map((r) => blockTypes(r.messages.at(-1)!.content));
    expect(lastBlocks[1]).toEqual(['tool_result']);
    expect(lastBlocks[2]).toEqual(['tool_result']);
  });

  it('appended every turn: the question, each tool call and result, the answer', async () => {
    const { sessionId } = replies[0]!;
    const response = await t.inject({ url: `/v1/sessions/${sessionId}/transcript?limit=500` });
    expect(response.statusCode, response.body).toBe(200);
    const turns = (response.json().entries as Entry[]).filter((e) => e.kind === 'message');
    expect(turns.map((e) => [e.role, blockTypes(e.content).filter((b) => b !== 'text')])).toEqual([
      ['user', []],
      ['assistant', ['thinking', 'tool_use']],
      ['user', ['tool_result']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['assistant', []],
    ]);
    const session = (await t.inject({ url: `/v1/sessions/${sessionId}` })).json();
    expect(session).toMatchObject({ turn_count: 6, pending_tool_use_ids: [] });
  });

  it('a second delivery of the same events is not answered again', async () => {
    expect(await replay(example.bot, await loadRecordedEvents(EVENTS))).toEqual([]);
    expect(fake.requests).toHaveLength(3);
  });
});

describe("the README's MCP client (examples/mcp-client.ts)", () => {
  it("calls channel_context in the bot's session over /mcp with the API key", async () => {
    const result = await callChannelContext(baseUrl, t.key, replies[0]!.sessionId, 'billing rollout blocked');
    expect(result.isError).toBe(false);
    const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toContain('billing v2 rollout is paused');
  });

  it("another tenant's key cannot reach the session", async () => {
    const stranger = await ctx.tenant();
    await expect(callChannelContext(baseUrl, stranger.key, replies[0]!.sessionId, 'billing')).rejects.toThrow(
      /404|session\.not_found/,
    );
  });

  it("the README quotes the example's lines word for word", async () => {
    const source = await readFile('examples/mcp-client.ts', 'utf8');
    const region = source.split('// README snippet start\n')[1]!.split('  // README snippet end')[0]!;
    const lines = region
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/^ {2}/, ''));
    const readme = await readFile('README.md', 'utf8');
    expect(readme).toContain(lines.join('\n'));
  });
});

describe("the example's Events API listener", () => {
  const secret = 'example-signing-secret';
  const received: BotReply[] = [];
  const errors: unknown[] = [];
  let url: string;
  let close: () => Promise<void>;
  const now = new Date('2025-11-24T09:30:00Z');
  const seconds = String(Math.floor(now.getTime() / 1000));

  beforeAll(async () => {
    const listener = await startSlackListener({
      bot: example.bot,
      signingSecret: secret,
      port: 0,
      now: () => now,
      onReply: (reply) => received.push(reply),
      onError: (error) => errors.push(error),
    });
    ({ url, close } = listener);
  });
  afterAll(() => close?.());

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const signed = (body: string, timestamp = seconds) => ({
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': slackSignature(secret, timestamp, body),
  });

  it('answers the url_verification handshake with its challenge', async () => {
    const body = JSON.stringify({ type: 'url_verification', token: 'x', challenge: 'ch4ll3nge' });
    const response = await post(body, signed(body));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'ch4ll3nge' });
  });

  it('refuses a request without a signature, with a wrong one, or a stale one (401)', async () => {
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c' });
    expect((await post(body, {})).status).toBe(401);
    const wrong = { ...signed(body), 'x-slack-signature': slackSignature('another secret', seconds, body) };
    expect((await post(body, wrong)).status).toBe(401);
    const stale = String(Number(seconds) - 301);
    expect((await post(body, signed(body, stale))).status).toBe(401);
    expect((await post('{"type":', signed('{"type":'))).status).toBe(400);
  });

  it('acknowledges a signed mention, then answers it through contextd', async () => {
    const [template] = (await loadRecordedEvents(EVENTS)).filter((e) => e.event?.type === 'app_mention');
    const ts = '1763977500.000200';
    const envelope = {
      ...template!,
      event_id: 'Ev07LISTEN01',
      event: {
        ...template!.event!,
        ts,
        event_ts: ts,
        thread_ts: '1763976600.000100',
        text: '<@U07CTXBOT1> who reviews the fix?',
      },
    };
    const body = JSON.stringify(envelope);
    const response = await post(body, signed(body));
    expect(response.status).toBe(200);
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
    expect(received[0]!.mention).toMatchObject({ ts, threadTs: '1763976600.000100' });
    expect(received[0]!.text).toContain('Reviewing #4821 now');
    expect(errors).toEqual([]);
    expect(fake.rejections).toEqual([]);
  });
});

describe('a tool call contextd refuses', () => {
  it('goes back to the model as an is_error tool_result, and the model answers', async () => {
    const [template] = (await loadRecordedEvents(EVENTS)).filter((e) => e.event?.type === 'app_mention');
    const ts = '1763977600.000300';
    const envelope = {
      ...template!,
      event_id: 'Ev07BADTOOL1',
      event: { ...template!.event!, ts, event_ts: ts, text: '<@U07CTXBOT1> anything new?' },
    };
    const before = fake.requests.length;
    // A model that calls channel_context without its required intent, then answers what it read.
    fake.respond = (request) => {
      const last = request.messages.at(-1)!.content;
      const result = Array.isArray(last) ? (last as { type: string; content?: unknown }[])[0] : undefined;
      if (result?.type === 'tool_result') return `The tool said: ${JSON.stringify(result.content)}`;
      return [{ type: 'tool_use', id: 'toolu_missing_intent', name: 'channel_context', input: {} }];
    };
    try {
      const reply = await example.bot.handle(envelope);
      expect(reply!.toolCalls).toEqual([{ name: 'channel_context', input: {}, isError: true }]);
      expect(reply!.text).toContain('tools.invalid_input');
      expect(reply!.text).toContain('intent');
    } finally {
      fake.respond = scriptedSlackModel;
    }
    expect(fake.requests.length - before).toBe(2);
    expect(fake.rejections).toEqual([]);
  });
});

describe('a model that keeps calling tools', () => {
  it('gets tool_choice none on the fifth call, so the question ends in an answer and no tool_use stays open', async () => {
    const [template] = (await loadRecordedEvents(EVENTS)).filter((e) => e.event?.type === 'app_mention');
    const mention = (ts: string, id: string, text: string) => ({
      ...template!,
      event_id: id,
      event: { ...template!.event!, ts, event_ts: ts, text },
    });
    let n = 0;
    fake.respond = () => [
      { type: 'text', text: 'Searching again.' },
      { type: 'tool_use', id: `toolu_again_${++n}`, name: 'channel_context', input: { intent: 'rollout' } },
    ];
    const before = fake.requests.length;
    let reply: BotReply | null;
    try {
      reply = await example.bot.handle(mention('1763977700.000400', 'Ev07LOOP0001', '<@U07CTXBOT1> loop?'));
    } finally {
      fake.respond = scriptedSlackModel;
    }
    expect(reply!.modelCalls).toBe(5);
    expect(reply!.toolCalls).toHaveLength(4);
    expect(reply!.text).toBe('Searching again.');
    const choices = fake.requests.slice(before).map((r) => r.tool_choice ?? null);
    expect(choices).toEqual([null, null, null, null, { type: 'none' }]);
    const session = (await t.inject({ url: `/v1/sessions/${reply!.sessionId}` })).json();
    expect(session.pending_tool_use_ids).toEqual([]);
    // The session takes the next question as usual.
    const next = await example.bot.handle(
      mention('1763977760.000500', 'Ev07LOOP0002', '<@U07CTXBOT1> what is blocking the billing rollout?'),
    );
    expect(next!.toolCalls.map((c) => [c.name, c.isError])).toContainEqual(['channel_context', false]);
    expect(fake.rejections).toEqual([]);
  });
});

// The one command of the README, contextd embedded in the bot's process (so once, on PGlite).
describe.skipIf(usesRealPostgres)('npm run example:slack-bot -- --once', () => {
  it('replays the recorded events against an embedded contextd and the local fake, and exits', async () => {
    const env = { ...process.env };
    for (const name of ['CONTEXTD_URL', 'CONTEXTD_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) {
      delete env[name];
    }
    const child = spawn('npm', ['run', '-s', 'example:slack-bot', '--', '--once', '--contextd-port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, err).toBe(0);
    expect(out).toContain('(embedded in this process, in memory)');
    expect(out).toContain('tool channel_context');
    expect(out).toContain('tool channel_messages');
    expect(out).toContain('Fix is PR #4821');
    expect(out).toMatch(/SESSION_ID=[0-9a-f-]{36} npm run example:mcp-client/);
  });
});
