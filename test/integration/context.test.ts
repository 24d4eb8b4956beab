// POST /v1/sessions/{id}/context and GET /context-log against a real database: bad input, tenant
// isolation, structured channel context attached once per lane, determinism, the audit row, and a
// 100-turn session whose payloads keep repeating their previous prefix.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;
let channelSeq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => {
  await ctx.close();
});

async function session(tenant: TestTenant = t, channelId = `C${++channelSeq}`) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId };
}

const contextCall = (sessionId: string, payload: Record<string, unknown>, tenant: TestTenant = t) =>
  tenant.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/context`, payload });

async function transcript(sessionId: string) {
  const response = await t.inject({ url: `/v1/sessions/${sessionId}/transcript?limit=500` });
  expect(response.statusCode).toBe(200);
  return response.json().entries as { seq: number; role: string; content: unknown }[];
}

const stripCache = (value: unknown) =>
  JSON.parse(
    JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v)),
  ) as unknown;

describe('POST /v1/sessions/{id}/context: bad input', () => {
  it("another tenant's session is a 404 on every endpoint, and nothing is written", async () => {
    const s = await session();
    const body = { message: { content: 'hello' } };
    for (const response of [
      await contextCall(s.id, body, other),
      await other.inject({ url: `/v1/sessions/${s.id}/context-log` }),
      await other.inject({ url: `/v1/sessions/${s.id}/tools` }),
      await other.inject({
        method: 'POST',
        url: `/v1/sessions/${s.id}/tools/memory_search`,
        payload: { input: { query: 'x' } },
      }),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(errorOf(response).code).toBe('session.not_found');
    }
    expect(await transcript(s.id)).toEqual([]);
  });

  it('invalid tool names and schemas are 400 with the field path', async () => {
    const s = await session();
    const cases: [unknown, string][] = [
      [[{ name: 'has.dot', input_schema: { type: 'object' }, source: 'mcp' }], 'body.tools.0.name'],
      [[{ name: 'ok', input_schema: { type: 'string' }, source: 'mcp' }], 'body.tools.0.input_schema.type'],
      [[{ name: 'ok', input_schema: { type: 'object' }, source: 'remote' }], 'body.tools.0.source'],
      [
        [
          { name: 'dup', input_schema: { type: 'object' }, source: 'mcp' },
          { name: 'dup', input_schema: { type: 'object' }, source: 'skill' },
        ],
        'body.tools.1.name',
      ],
      [[{ name: 'memory_search', input_schema: { type: 'object' }, source: 'mcp' }], 'body.tools.0.name'],
    ];
    for (const [tools, path] of cases) {
      const response = await contextCall(s.id, { message: { content: 'hi' }, tools });
      expect(response.statusCode).toBe(400);
      const error = errorOf(response);
      expect(error.code).toBe('request.invalid');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
    const budget = await contextCall(s.id, {
      message: { content: 'hi' },
      budget: { total: 1000, max_output_tokens: 1000 },
    });
    expect(budget.statusCode).toBe(400);
    expect(await transcript(s.id)).toEqual([]);
  });

  it('a message breaking role or tool pairing is a 422 naming the rule', async () => {
    const s = await session();
    const orphan = await contextCall(s.id, {
      message: { content: [{ type: 'tool_result', tool_use_id: 'tu_x', content: 'x' }] },
    });
    expect(orphan.statusCode).toBe(422);
    expect(errorOf(orphan).code).toBe('turns.tool_result_without_use');

    const turns = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'run it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'shell', input: {} }] },
        ],
      },
    });
    expect(turns.statusCode).toBeLessThan(300);
    const unanswered = await contextCall(s.id, { message: { content: 'and now?' } });
    expect(unanswered.statusCode).toBe(422);
    expect(errorOf(unanswered).code).toBe('turns.tool_use_unanswered');
    const wrongRole = await contextCall(s.id, {
      message: { content: [{ type: 'tool_use', id: 'tu_2', name: 'shell', input: {} }] },
    });
    expect(wrongRole.statusCode).toBe(422);
    expect(errorOf(wrongRole).code).toBe('turns.block_not_allowed_for_role');
    expect(await transcript(s.id)).toHaveLength(2);
  });

  it('a budget that cannot hold system, tools and the message is a 422 with the numbers', async () => {
    const s = await session();
    const response = await contextCall(s.id, {
      message: { content: 'hello' },
      system: [{ name: 'policy', text: 'Be helpful. '.repeat(200) }],
      budget: { total: 1500, max_output_tokens: 500 },
    });
    expect(response.statusCode).toBe(422);
    const error = errorOf(response);
    expect(error.code).toBe('budget.too_small');
    expect(error.details).toMatchObject({ effective_window: 1000, safety_margin: 1.2 });
    expect((error.details as { required: { system: number } }).required.system).toBeGreaterThan(400);
    expect(await transcript(s.id)).toEqual([]);
  });

  it('a source message of another channel is refused', async () => {
    const s = await session();
    const response = await contextCall(s.id, {
      message: { content: 'hi', source: { platform: 'slack', channel_id: 'ELSEWHERE', message_id: 'm1' } },
    });
    expect(response.statusCode).toBe(422);
    expect(errorOf(response).code).toBe('context.message_outside_session_channel');
  });

  it('compaction "never": a conversation over the budget is a 413 with the numbers', async () => {
    const s = await session();
    for (let i = 0; i < 6; i += 1) {
      const r = await contextCall(s.id, { message: { content: `question ${i} ${'words '.repeat(400)}` } });
      expect(r.statusCode).toBe(200);
    }
    const response = await contextCall(s.id, {
      message: { content: 'last one' },
      budget: { total: 4000, max_output_tokens: 500 },
      compaction: 'never',
      dry_run: true,
    });
    expect(response.statusCode).toBe(413);
    const error = errorOf(response);
    expect(error.code).toBe('context_overflow');
    expect(error.details).toMatchObject({ effective_window: 3500 });
    const auto = await contextCall(s.id, {
      message: { content: 'last one' },
      budget: { total: 4000, max_output_tokens: 500 },
      dry_run: true,
    });
    expect(auto.statusCode).toBe(200);
    expect(auto.json().compaction.action).toBe('truncated');
    expect(auto.json().notes.join(' ')).toMatch(/left out to fit the budget/);
  });
});

describe('POST /v1/sessions/{id}/context: assembly', () => {
  it('attaches snapshot and thread once per lane, with the guide, and logs the call', async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'm1', ts: at(1), text: 'The rollout is planned for Friday' },
      { message_id: 'm2', ts: at(2), text: 'Rollout checklist is in the wiki' },
      { message_id: 'r1', ts: at(3), text: 'Friday works for QA', thread_id: 'm1' },
      { message_id: 'q1', ts: at(5), text: 'When is the rollout?', thread_id: 'm1' },
      { message_id: 'q2', ts: at(6), text: 'And who owns it?', thread_id: 'm1' },
    ]);
    const first = await contextCall(s.id, {
      message: {
        content: 'When is the rollout?',
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'q1' },
      },
    });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.context).toMatchObject({
      snapshot: 'attached',
      thread: 'attached',
      lane: { lane_key: expect.stringContaining('m1') },
    });
    const system = JSON.stringify(body.payload.system);
    expect(system).toContain('CHANNEL CONTEXT');
    const last = body.payload.messages.at(-1);
    expect(last.content[0].text).toBe('When is the rollout?');
    expect(last.content[1].text).toMatch(/^<channel_snapshot trust="untrusted">/);
    expect(last.content[2].text).toMatch(/^<thread_context trust="untrusted">/);
    expect(body.turn_seq).toBe(1);
    // The payload hash is of the bytes returned, and the audit row has it.
    expect(createHash('sha256').update(JSON.stringify(body.payload)).digest('hex')).toBe(body.payload_sha256);
    const log = await t.inject({ url: `/v1/sessions/${s.id}/context-log` });
    expect(log.statusCode).toBe(200);
    expect(log.json().entries).toMatchObject([
      { turn_seq: 1, payload_sha256: body.payload_sha256, lane_version: 0, budget: { state: 'ok' } },
    ]);
    // What was sent stays sent: the stored turn is the sent one.
    const entries = await transcript(s.id);
    expect(entries[0]!.content).toEqual(stripCache(last.content));

    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'Friday.' }] },
    });
    expect(reply.statusCode).toBeLessThan(300);
    const second = await contextCall(s.id, {
      message: {
        content: 'And who owns it?',
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'q2' },
      },
    });
    expect(second.statusCode).toBe(200);
    expect(second.json().context.snapshot).toBe('none');
    const messages = second.json().payload.messages;
    expect(JSON.stringify(messages.at(-1))).not.toContain('channel_snapshot');
    // The earlier turn, with its snapshot, is repeated byte for byte.
    expect(JSON.stringify(stripCache(messages[0].content))).toBe(JSON.stringify(stripCache(last.content)));
  });

  it('media of the current thread: attached once, then referenced through the manifest', async () => {
    const s = await session();
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const upload = await t.inject({
      method: 'POST',
      url: '/v1/blobs',
      payload: png,
      headers: { 'content-type': 'image/png', 'x-filename': 'chart.png' },
    });
    expect(upload.statusCode).toBe(201);
    const artifactId = upload.json().artifact_id as string;
    await ingest(t, s.channelId, [
      {
        message_id: 'p1',
        ts: at(1),
        text: 'see the chart',
        media: [{ artifact_id: artifactId, media_type: 'image/png' }],
      },
      { message_id: 'p2', ts: at(2), text: 'what does it show?', thread_id: 'p1' },
      { message_id: 'p3', ts: at(3), text: 'and the trend?', thread_id: 'p1' },
    ]);
    const ask = (messageId: string, text: string) =>
      contextCall(s.id, {
        message: {
          content: text,
          source: { platform: 'slack', channel_id: s.channelId, message_id: messageId },
        },
        include: { media: 'thread' },
      });
    const first = await ask('p2', 'what does it show?');
    expect(first.statusCode).toBe(200);
    expect(first.json().attachments).toMatchObject([{ artifact_id: artifactId, disposition: 'attached' }]);
    const blocks = first.json().payload.messages.at(-1).content as { type: string }[];
    expect(blocks.filter((b) => b.type === 'image')).toHaveLength(1);
    const manifest = await t.inject({ url: `/v1/sessions/${s.id}/attachments` });
    expect(manifest.statusCode).toBe(200);
    expect(JSON.stringify(manifest.json())).toContain(artifactId);
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'A rising line.' }] },
    });
    const second = await ask('p3', 'and the trend?');
    expect(second.statusCode).toBe(200);
    expect(second.json().attachments).toMatchObject([{ artifact_id: artifactId, disposition: 'referenced' }]);
    const last = second.json().payload.messages.at(-1).content as { type: string; text?: string }[];
    expect(last.filter((b) => b.type === 'image')).toHaveLength(0);
    expect(last.some((b) => b.text?.startsWith('[Media already in this conversation: "chart.png"'))).toBe(
      true,
    );
  });

  it('same state and request give the same bytes (dry runs write nothing)', async () => {
    const s = await session();
    await ingest(t, s.channelId, [{ message_id: 'a1', ts: at(1), text: 'deploy the api on monday' }]);
    const request = {
      message: {
        content: 'deploy status?',
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'a1' },
      },
      system: [{ name: 'policy', text: 'You are the ops bot.' }],
      tools: [
        { name: 'shell', description: 'run a command', input_schema: { type: 'object' }, source: 'builtin' },
      ],
      dry_run: true,
    };
    const a = await contextCall(s.id, request);
    ctx.clock.advance(60_000);
    const b = await contextCall(s.id, request);
    expect(a.statusCode).toBe(200);
    expect(a.body).toBe(b.body);
    expect(a.json().turn_seq).toBeNull();
    expect(await transcript(s.id)).toEqual([]);
    expect((await t.inject({ url: `/v1/sessions/${s.id}/context-log` })).json().entries).toEqual([]);
  });

  it('OpenAI chat format on request', async () => {
    const s = await session();
    const response = await contextCall(s.id, {
      message: { content: 'hello' },
      format: 'openai',
      dry_run: true,
    });
    expect(response.statusCode).toBe(200);
    const payload = response.json().payload;
    expect(payload.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: 'hello' }],
    });
    expect(payload.tools[0].type).toBe('function');
  });

  it('a 100-turn session: each payload repeats the previous payload up to the previous turn', async () => {
    const s = await session();
    let previous: string | null = null;
    let reused = 0;
    let checked = 0;
    for (let turn = 0; turn < 100; turn += 1) {
      const response = await contextCall(s.id, {
        message: { content: `turn ${turn}: ${'tell me more about the plan '.repeat((turn % 5) + 1)}` },
        system: [{ name: 'policy', text: 'You are a planning assistant.' }],
        include: { memories: false, channel_search: false },
      });
      expect(response.statusCode).toBe(200);
      const payload = response.json().payload;
      // cache_control moves with the turn (the provider's prefix match ignores it); the previous
      // payload's last message is still open (this turn's blocks follow it when it was a user message).
      const body = JSON.stringify(
        stripCache({ tools: payload.tools, system: payload.system, messages: payload.messages }),
      );
      if (previous !== null) {
        const prefix = previous.slice(0, previous.length - ']}]}'.length);
        expect(body.startsWith(prefix)).toBe(true);
        reused += prefix.length;
        checked += body.length;
      }
      previous = body;
      if (turn % 4 !== 3) {
        const reply = await t.inject({
          method: 'POST',
          url: `/v1/sessions/${s.id}/turns`,
          payload: { turns: [{ role: 'assistant', content: `answer ${turn}` }] },
        });
        expect(reply.statusCode).toBeLessThan(300);
      }
    }
    expect(reused / checked).toBeGreaterThan(0.9);
    expect(
      (await t.inject({ url: `/v1/sessions/${s.id}/context-log?limit=500` })).json().entries,
    ).toHaveLength(100);
  });
});
