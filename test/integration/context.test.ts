// POST /v1/sessions/{id}/context and GET /context-log against a real database: bad input, tenant
// isolation, structured channel context attached once per lane (and again when truncation drops
// the turn that carried it), determinism, the audit row, a 100-turn session whose payloads keep
// repeating their previous prefix, Idempotency-Key, pending slots (PUT/DELETE
// …/lanes/{lane}/pending-slot) and usage calibration of the budget.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
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

const contextCall = (
  sessionId: string,
  payload: Record<string, unknown>,
  tenant: TestTenant = t,
  idempotencyKey?: string,
) =>
  tenant.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/context`,
    payload,
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });

const slotUrl = (sessionId: string, lane: string) =>
  `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(lane)}/pending-slot`;
const putSlot = (sessionId: string, lane: string, slot: unknown, tenant: TestTenant = t) =>
  tenant.inject({ method: 'PUT', url: slotUrl(sessionId, lane), payload: slot as Record<string, unknown> });

async function contextLog(sessionId: string) {
  const response = await t.inject({ url: `/v1/sessions/${sessionId}/context-log?limit=500` });
  expect(response.statusCode).toBe(200);
  return response.json().entries as { turn_seq: number; lane_version: number }[];
}

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
      await putSlot(s.id, `root:${s.channelId}`, { name: 'day', type: 'date' }, other),
      await other.inject({ method: 'DELETE', url: slotUrl(s.id, `root:${s.channelId}`) }),
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
    // Those bytes are the reply's own: the payload goes in as the text that was hashed.
    expect(first.body.startsWith(`{"payload":${JSON.stringify(body.payload)},"format":"anthropic",`)).toBe(
      true,
    );
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

  it('re-attaches the snapshot when truncation drops the turn that carried it', async () => {
    const s = await session();
    const lane = `root:${s.channelId}`;
    await ingest(
      t,
      s.channelId,
      Array.from({ length: 17 }, (_, i) => ({
        message_id: `n${i}`,
        ts: at(i + 1),
        text: `update ${i}: the migration of service ${i} is ${i % 2 ? 'done' : 'in review'}`,
      })),
    );
    const ask = (i: number, extra: Record<string, unknown> = {}) =>
      contextCall(s.id, {
        message: {
          content: `question ${i}: ${'what is the status of the migration work '.repeat(30)}`,
          source: { platform: 'slack', channel_id: s.channelId, message_id: `n${i}` },
        },
        budget: { max_context_tokens: 2000 },
        include: { memories: false, channel_search: false },
        ...extra,
      });
    const attachedSeq = async () =>
      (
        await queryRows<{ context_attached_seq: number | null }>(
          ctx.deps.database.db,
          sql`select context_attached_seq from lane_states where session_id = ${s.id} and lane_key = ${lane}`,
        )
      )[0]?.context_attached_seq ?? null;

    const first = await ask(0);
    expect(first.statusCode).toBe(200);
    expect(first.json().context.snapshot).toBe('attached');
    expect(first.json().turn_seq).toBe(1);
    expect(await attachedSeq()).toBe(1);

    // Turns until truncation would drop seq 1: while it is sent, the snapshot is not attached again.
    let recovery: Awaited<ReturnType<typeof ask>> | null = null;
    let recoveredAt = 0;
    let inView = 0;
    for (let i = 1; i < 16 && !recovery; i += 1) {
      await t.inject({
        method: 'POST',
        url: `/v1/sessions/${s.id}/turns`,
        payload: { turns: [{ role: 'assistant', content: `answer ${i}` }] },
      });
      const dry = await ask(i, { dry_run: true });
      const response = await ask(i);
      expect(response.statusCode).toBe(200);
      // Same stored state and request, same payload: the dry run shows what the call sends.
      expect(dry.json().payload).toEqual(response.json().payload);
      const body = response.json();
      const last = JSON.stringify(body.payload.messages.at(-1));
      if (body.context.lane.first_sent_seq === 1) {
        expect(body.context.snapshot).toBe('none');
        expect(last).not.toContain('<channel_snapshot');
        expect(await attachedSeq()).toBe(1);
        inView += 1;
      } else {
        recovery = response;
        recoveredAt = i;
      }
    }
    expect(recovery).not.toBeNull();
    expect(inView).toBeGreaterThan(0);
    const body = recovery!.json();
    expect(body.compaction.action).toBe('truncated');
    expect(body.context.lane.first_sent_seq).toBeGreaterThan(1);
    expect(body.context).toMatchObject({
      snapshot: 'attached',
      channel: { platform: 'slack', channel_id: s.channelId },
    });
    const turn = body.payload.messages.at(-1).content as { type: string; text?: string }[];
    expect(turn[0]!.text).toMatch(/^question \d+:/);
    expect(turn[1]!.text).toMatch(/^<channel_snapshot trust="untrusted">/);
    expect(turn.at(-1)!.text).toContain('[Context recovery after truncation:');
    expect(body.notes.join(' ')).toContain('re-attaching the channel snapshot');
    expect(body.budget.added).toBeLessThanOrEqual(2000);
    // The payload holds the channel context once, and the marker moves to the turn carrying it.
    expect(JSON.stringify(body.payload.messages).split('<channel_snapshot').length).toBe(2);
    expect(await attachedSeq()).toBe(body.turn_seq);
    // What was sent stays sent: the stored turn is the sent one up to the turn's breakpoint; the
    // notes after it are this payload's only.
    const end = body.cache.breakpoints.find((b: { position: string }) => b.position === 'this_turn').block;
    expect(turn.slice(end + 1).map((b) => b.text)).toEqual([expect.stringContaining('[Context recovery')]);
    const stored = (await transcript(s.id)).find((e) => e.seq === body.turn_seq)!;
    expect(stored.content).toEqual(stripCache(turn.slice(0, end + 1)));

    // The next call (anchored a minute later: the provider cache is warm, so the view stays) has
    // that turn in view again: nothing is re-attached, and it is repeated as sent up to its
    // breakpoint.
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'noted' }] },
    });
    const next = await ask(recoveredAt + 1);
    expect(next.statusCode).toBe(200);
    expect(next.json().context.snapshot).toBe('none');
    expect(next.json().context.lane.first_sent_seq).toBeLessThanOrEqual(body.turn_seq);
    const messages = next.json().payload.messages as { content: unknown }[];
    expect(messages.map((m) => JSON.stringify(stripCache(m.content)))).toContain(
      JSON.stringify(stripCache(turn.slice(0, end + 1))),
    );
    expect(JSON.stringify(messages.at(-1))).not.toContain('<channel_snapshot');
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

describe('Idempotency-Key on POST /v1/sessions/{id}/context', () => {
  const body = (channelId: string, text = 'what is the plan?') => ({
    message: { content: text, lane_key: `root:${channelId}` },
    system: [{ name: 'policy', text: 'You are the planning bot.' }],
    tools: [
      {
        name: 'shell',
        description: 'run a command',
        input_schema: { type: 'object', properties: { zeta: { type: 'string' }, a: { type: 'number' } } },
        source: 'builtin',
      },
    ],
  });

  it('replays the first reply byte for byte without appending or logging again', async () => {
    const s = await session();
    const first = await contextCall(s.id, body(s.channelId), t, 'ctx-key-1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.json().turn_seq).toBe(1);
    const again = await contextCall(s.id, body(s.channelId), t, 'ctx-key-1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await transcript(s.id)).toHaveLength(1);
    expect(await contextLog(s.id)).toHaveLength(1);

    // The same key with another body is a conflict, and writes nothing.
    const other = await contextCall(s.id, body(s.channelId, 'something else'), t, 'ctx-key-1');
    expect(other.statusCode).toBe(409);
    expect(errorOf(other).code).toBe('idempotency.key_reused');
    expect(await transcript(s.id)).toHaveLength(1);

    // A new key is a new turn.
    const next = await contextCall(s.id, body(s.channelId), t, 'ctx-key-2');
    expect(next.statusCode).toBe(200);
    expect(next.json().turn_seq).toBe(2);
    expect(await contextLog(s.id)).toHaveLength(2);
  });

  it('two concurrent calls with one key append once and answer the same bytes', async () => {
    const s = await session();
    const [a, b] = await Promise.all([
      contextCall(s.id, body(s.channelId), t, 'race-key'),
      contextCall(s.id, body(s.channelId), t, 'race-key'),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.body).toBe(b.body);
    expect(await transcript(s.id)).toHaveLength(1);
    expect(await contextLog(s.id)).toHaveLength(1);
  });

  it("another tenant's use of the same key is independent", async () => {
    const mine = await session();
    const first = await contextCall(mine.id, body(mine.channelId), t, 'shared-key');
    expect(first.statusCode).toBe(200);
    const theirs = await session(other);
    const response = await contextCall(theirs.id, body(theirs.channelId), other, 'shared-key');
    expect(response.statusCode).toBe(200);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
    expect(response.json().turn_seq).toBe(1);
    // A key only this tenant used does not open its stored reply to the other tenant.
    expect((await contextCall(mine.id, body(mine.channelId, 'mine'), t, 'mine-only')).statusCode).toBe(200);
    const foreign = await contextCall(mine.id, body(mine.channelId, 'mine'), other, 'mine-only');
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('session.not_found');
  });

  it('a dry run ignores the key: nothing is stored, nothing replayed', async () => {
    const s = await session();
    const dry = { ...body(s.channelId), dry_run: true };
    const a = await contextCall(s.id, dry, t, 'dry-key');
    const b = await contextCall(s.id, dry, t, 'dry-key');
    expect(a.statusCode).toBe(200);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body).toBe(b.body);
    // The key is still free for the real call.
    const real = await contextCall(s.id, body(s.channelId), t, 'dry-key');
    expect(real.statusCode).toBe(200);
    expect(real.headers['idempotent-replayed']).toBeUndefined();
    expect(real.json().turn_seq).toBe(1);
    expect(await transcript(s.id)).toHaveLength(1);
  });

  it('a bad key is a 400 with the header path', async () => {
    const s = await session();
    const response = await contextCall(s.id, body(s.channelId), t, 'k'.repeat(300));
    expect(response.statusCode).toBe(400);
    expect((errorOf(response).details as { path: string }[])[0]!.path).toBe('headers.idempotency-key');
  });
});

describe('pending slots: PUT/DELETE /v1/sessions/{id}/lanes/{lane}/pending-slot', () => {
  const slot = { name: 'delivery date', type: 'date', prompt: 'When should we deliver?' };
  const ask = (sessionId: string, lane: string, text: string, extra: Record<string, unknown> = {}) =>
    contextCall(sessionId, {
      message: { content: text, lane_key: lane },
      include: { memories: false, channel_search: false },
      ...extra,
    });
  /** This turn's blocks: from the user's text on (earlier user turns merge into the same message). */
  const turnBlocks = (
    response: { json(): { payload: { messages: { content: { text?: string }[] }[] } } },
    text: string,
  ) => {
    const blocks = response.json().payload.messages.at(-1)!.content;
    return JSON.stringify(blocks.slice(blocks.findLastIndex((b) => b.text === text)));
  };
  const storedSlot = async (sessionId: string, lane: string) => {
    const [row] = await queryRows<{ pending_slot: unknown; version: number }>(
      ctx.deps.database.db,
      sql`select pending_slot, version from lane_states where session_id = ${sessionId} and lane_key = ${lane}`,
    );
    return row ?? null;
  };

  it('a matching message shows the slot and consumes it; a non-matching one keeps it', async () => {
    const s = await session();
    const lane = `root:${s.channelId}`;
    const set = await putSlot(s.id, lane, slot);
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ session_id: s.id, lane_key: lane, pending_slot: slot, version: 1 });

    const unrelated = await ask(s.id, lane, 'can you check the build logs?');
    expect(unrelated.statusCode).toBe(200);
    expect(unrelated.json().context.pending_slot).toBeNull();
    expect(turnBlocks(unrelated, 'can you check the build logs?')).not.toContain('pending_slot');
    expect(await storedSlot(s.id, lane)).toMatchObject({ pending_slot: slot, version: 1 });

    // A dry run shows a matching slot but does not consume it.
    const dry = await ask(s.id, lane, 'tomorrow please', { dry_run: true });
    expect(dry.json().context.pending_slot).toEqual({
      name: 'delivery date',
      type: 'date',
      value: 'tomorrow',
    });
    expect(await storedSlot(s.id, lane)).toMatchObject({ pending_slot: slot, version: 1 });

    const answer = await ask(s.id, lane, 'tomorrow please');
    expect(answer.statusCode).toBe(200);
    expect(answer.json().context.pending_slot).toEqual({
      name: 'delivery date',
      type: 'date',
      value: 'tomorrow',
    });
    expect(turnBlocks(answer, 'tomorrow please')).toContain('<pending_slot trust=\\"untrusted\\">');
    expect(turnBlocks(answer, 'tomorrow please')).toContain('When should we deliver?');
    // Consumed in the call's transaction (a fenced change: version 2); the audit row has the
    // version the payload was built from.
    expect(await storedSlot(s.id, lane)).toEqual({ pending_slot: null, version: 2 });
    expect((await contextLog(s.id)).at(-1)).toMatchObject({
      turn_seq: answer.json().turn_seq,
      lane_version: 1,
    });

    const later = await ask(s.id, lane, 'next friday');
    expect(later.json().context.pending_slot).toBeNull();
    expect(turnBlocks(later, 'next friday')).not.toContain('pending_slot');
  });

  it('DELETE withdraws the slot (204, also when none is pending); an ended session refuses a PUT', async () => {
    const s = await session();
    const lane = `root:${s.channelId}`;
    expect((await putSlot(s.id, lane, { name: 'confirm', type: 'yes_no' })).statusCode).toBe(200);
    const replaced = await putSlot(s.id, lane, { name: 'size', type: 'choice', choices: ['small', 'large'] });
    expect(replaced.json()).toMatchObject({ pending_slot: { name: 'size' }, version: 2 });
    const removed = await t.inject({ method: 'DELETE', url: slotUrl(s.id, lane) });
    expect(removed.statusCode).toBe(204);
    expect(await storedSlot(s.id, lane)).toEqual({ pending_slot: null, version: 3 });
    expect((await t.inject({ method: 'DELETE', url: slotUrl(s.id, lane) })).statusCode).toBe(204);
    expect((await t.inject({ method: 'DELETE', url: slotUrl(s.id, 'root:never-used') })).statusCode).toBe(
      204,
    );
    const response = await ask(s.id, lane, 'large');
    expect(response.json().context.pending_slot).toBeNull();

    await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/reset` });
    const ended = await putSlot(s.id, lane, slot);
    expect(ended.statusCode).toBe(409);
    expect(errorOf(ended).code).toBe('session.ended');
  });

  it('a PUT with an Idempotency-Key is applied once', async () => {
    const s = await session();
    const lane = `thread:${s.channelId}:1700000000.0001`;
    const put = () =>
      t.inject({
        method: 'PUT',
        url: slotUrl(s.id, lane),
        payload: slot,
        headers: { 'idempotency-key': 'slot-key' },
      });
    const first = await put();
    const again = await put();
    expect(first.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await storedSlot(s.id, lane)).toMatchObject({ version: 1 });
  });

  it('bad slot bodies are 400 with the field path, and nothing is stored', async () => {
    const s = await session();
    const lane = `root:${s.channelId}`;
    const cases: [unknown, string][] = [
      [{ type: 'date' }, 'body.name'],
      [{ name: 'x', type: 'colour' }, 'body.type'],
      [{ name: 'x', type: 'choice' }, 'body.choices'],
      [{ name: 'x', type: 'choice', choices: [] }, 'body.choices'],
      [{ name: 'x', type: 'regex' }, 'body.pattern'],
      [{ name: 'x', type: 'regex', pattern: '([a-z' }, 'body.pattern'],
      [{ name: 'x', type: 'regex', pattern: '(\\w+) \\1' }, 'body.pattern'],
      [{ name: 'x', type: 'date', expires_at: 'tomorrow' }, 'body.expires_at'],
      [{ name: 'x', type: 'date', lane_key: 'elsewhere' }, 'body.lane_key'],
    ];
    for (const [body, path] of cases) {
      const response = await putSlot(s.id, lane, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const error = errorOf(response);
      expect(error.code).toBe('request.invalid');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
    const longLane = await putSlot(s.id, 'l'.repeat(600), slot);
    expect(longLane.statusCode).toBe(414);
    expect(errorOf(longLane).code).toBe('request.path_parameter_too_long');
    expect(await storedSlot(s.id, lane)).toBeNull();
  });
});

describe('usage calibration of the budget', () => {
  const system = [{ name: 'policy', text: 'You are the operations bot of the platform team. '.repeat(120) }];
  const ask = (sessionId: string, text: string, extra: Record<string, unknown> = {}) =>
    contextCall(sessionId, {
      message: { content: text },
      model: 'claude-test',
      system,
      include: { memories: false, channel_search: false },
      ...extra,
    });
  const report = (sessionId: string, inputTokens: number, model?: string) =>
    t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          {
            role: 'assistant',
            content: 'noted',
            usage: { input_tokens: inputTokens, output_tokens: 5 },
            ...(model ? { model } : {}),
          },
        ],
      },
    });

  it('without reports the factor is 1', async () => {
    const s = await session();
    const response = await ask(s.id, 'hello', { dry_run: true });
    expect(response.json().budget.calibration).toEqual({ factor: 1, ratio: null, calls: 0 });
    const { used, used_with_margin: withMargin } = response.json().budget;
    expect(withMargin).toBe(Math.ceil(used * 1.2));
  });

  it('usage twice the estimates doubles the measured totals from the third report on', async () => {
    const s = await session();
    for (let turn = 1; turn <= 3; turn += 1) {
      const call = await ask(s.id, `status of job ${turn}?`);
      expect(call.statusCode).toBe(200);
      // The reported input is compared with the estimate of the payload it was built from; a
      // report without a model counts under the model of that context call.
      const reported = await report(
        s.id,
        2 * call.json().budget.used,
        turn === 2 ? undefined : 'claude-test',
      );
      expect(reported.statusCode).toBe(201);
      const probe = await ask(s.id, 'and now?', { dry_run: true });
      expect(probe.json().budget.calibration).toEqual({ factor: turn < 3 ? 1 : 2, ratio: 2, calls: turn });
    }
    const view = (await t.inject({ url: `/v1/sessions/${s.id}` })).json();
    expect(view.calibration['claude-test']).toMatchObject({ ratio: 2, calls: 3 });

    // Window sized so the uncalibrated estimate is at ~42%: calibrated it is past 80%.
    const sizing = await ask(s.id, 'how full is it?', { dry_run: true });
    const used = sizing.json().budget.used as number;
    const budget = { total: 1000 + Math.ceil((used * 1.2) / 0.42), max_output_tokens: 1000 };
    const calibrated = await ask(s.id, 'how full is it?', { dry_run: true, budget });
    const plain = await ask(s.id, 'how full is it?', { dry_run: true, budget, model: 'uncalibrated-model' });
    expect(calibrated.statusCode).toBe(200);
    const a = calibrated.json().budget;
    const b = plain.json().budget;
    expect(b.calibration).toEqual({ factor: 1, ratio: null, calls: 0 });
    expect(b.state).toBe('ok');
    expect(b.percentage).toBeLessThan(0.45);
    expect(a.calibration.factor).toBe(2);
    expect(a.used_with_margin).toBe(Math.ceil(a.used * 2 * 1.2));
    expect(a.remaining).toBe(a.effective_window - a.used_with_margin);
    expect(a.percentage).toBeGreaterThan(0.8);
    expect(a.state).toBe('compact_soon');
    // Same stored state and request, same bytes.
    const repeat = await ask(s.id, 'how full is it?', { dry_run: true, budget });
    expect(repeat.body).toBe(calibrated.body);
  });
});
