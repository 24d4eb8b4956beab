// Turns through HTTP: appends, gap-free seqs under concurrency, Idempotency-Key, turn-order and
// content validation (nothing half-written), offloading + read_result, usage calibration, the
// transcript audit trail, and state read back by a second app instance.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { renderMessages } from '../../src/modules/sessions/core/render.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { jpegBytes, pdfBytes, pngBytes } from '../helpers/media.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { RESULT_OFFLOAD_BYTES: '1000' } });
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

let counter = 0;
async function newSession(tenant = t): Promise<string> {
  counter += 1;
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `C${counter}` },
  });
  return response.json().session.id;
}

const append = (sessionId: string, turns: unknown[], headers: Record<string, string> = {}, tenant = t) =>
  tenant.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/turns`, payload: { turns }, headers });

async function transcript(sessionId: string) {
  const response = await t.inject({ url: `/v1/sessions/${sessionId}/transcript?limit=500` });
  expect(response.statusCode).toBe(200);
  return response.json().entries as Record<string, unknown>[];
}

async function session(sessionId: string) {
  return (await t.inject({ url: `/v1/sessions/${sessionId}` })).json();
}

const toolUse = (id: string, name = 'search') => ({ type: 'tool_use', id, name, input: { q: id } });
const toolResult = (id: string, content: unknown = `result of ${id}`) => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});

describe('appending turns', () => {
  it('stores string and block turns with seqs, lanes, estimates and session counters', async () => {
    const id = await newSession();
    const response = await append(id, [
      {
        role: 'user',
        content: 'What is the weather in Paris?',
        author: { id: 'U1', name: 'Ann' },
        time: '2026-01-01T09:00:00Z',
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should call the tool', signature: 'sig' },
          { type: 'text', text: 'Let me check.' },
          toolUse('toolu_1', 'weather'),
        ],
      },
      { role: 'user', content: [toolResult('toolu_1', 'Sunny, 24°C')] },
      { role: 'assistant', content: 'It is sunny and 24°C.' },
    ]);
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.entries.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(body.entries.every((e: { lane_key: string }) => e.lane_key === `root:C${counter}`)).toBe(true);
    expect(body.entries.every((e: { token_estimate: number }) => e.token_estimate > 0)).toBe(true);

    const s = await session(id);
    const total = body.entries.reduce(
      (sum: number, e: { token_estimate: number }) => sum + e.token_estimate,
      0,
    );
    expect(s).toMatchObject({ turn_count: 4, next_seq: 5, total_tokens: total, pending_tool_use_ids: [] });
    expect(s.last_turn_at).toBe(ctx.clock.now().toISOString());

    const entries = await transcript(id);
    expect(entries[0]).toMatchObject({
      seq: 1,
      role: 'user',
      content: 'What is the weather in Paris?',
      author: { id: 'U1', name: 'Ann' },
      turn_at: '2026-01-01T09:00:00.000Z',
    });
    // Thinking is stored (audit) …
    expect(JSON.stringify(entries[1]!.content)).toContain('I should call the tool');
    // … and never rendered.
    const rows = await ctx.app.services.transcript.laneEntries({
      tenantId: t.tenantId,
      sessionId: id,
      laneKey: `root:C${counter}`,
    });
    const messages = renderMessages(rows);
    expect(JSON.stringify(messages)).not.toContain('thinking');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('gives back string turns that look like JSON as the strings they were', async () => {
    const id = await newSession();
    const texts = ['42', '{"answer": true}', 'null', '"quoted"', '[1, 2]'];
    const response = await append(
      id,
      texts.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content })),
    );
    expect(response.statusCode).toBe(201);
    const entries = await transcript(id);
    expect(entries.map((e) => e.content)).toEqual(texts);
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: { message: { content: 'and now?' }, dry_run: true },
    });
    expect(reply.statusCode).toBe(200);
    const sent = JSON.stringify(reply.json().payload.messages);
    for (const text of texts) expect(sent).toContain(JSON.stringify(text).slice(1, -1));
  });

  it('continues the lane of the previous turn and takes an explicit lane_key', async () => {
    const id = await newSession();
    const body = (
      await append(id, [
        { role: 'user', content: 'in a thread', lane_key: 'thread:C9:1700.1' },
        { role: 'assistant', content: 'reply' },
        { role: 'user', content: 'top level', lane_key: 'root:C9' },
      ])
    ).json();
    expect(body.entries.map((e: { lane_key: string }) => e.lane_key)).toEqual([
      'thread:C9:1700.1',
      'thread:C9:1700.1',
      'root:C9',
    ]);
    const lane = (
      await t.inject({
        url: `/v1/sessions/${id}/transcript?lane_key=${encodeURIComponent('thread:C9:1700.1')}`,
      })
    ).json();
    expect(lane.entries).toHaveLength(2);
  });

  it('allows consecutive turns of one role (they render merged)', async () => {
    const id = await newSession();
    expect((await append(id, [{ role: 'user', content: 'one' }])).statusCode).toBe(201);
    expect((await append(id, [{ role: 'user', content: 'two' }])).statusCode).toBe(201);
    const rows = await ctx.app.services.transcript.laneEntries({
      tenantId: t.tenantId,
      sessionId: id,
      laneKey: `root:C${counter}`,
    });
    expect(renderMessages(rows)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
  });

  it('keeps seqs gap-free under concurrent appends from two app instances', async () => {
    const id = await newSession();
    const second = await createTestApp({
      testDb: ctx.testDb,
      clock: ctx.clock,
      env: { RESULT_OFFLOAD_BYTES: '1000' },
    });
    try {
      const apps = [ctx.app, second.app];
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          apps[i % 2]!.inject({
            method: 'POST',
            url: `/v1/sessions/${id}/turns`,
            headers: t.headers,
            payload: { turns: [{ role: i % 3 === 0 ? 'assistant' : 'user', content: `turn ${i}` }] },
          }),
        ),
      );
      expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
      const seqs = responses.map((r) => r.json().entries[0].seq).sort((a: number, b: number) => a - b);
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await session(id)).toMatchObject({ turn_count: 20, next_seq: 21 });
    } finally {
      await second.close();
    }
  });
});

describe('Idempotency-Key', () => {
  it('replays the same reply for the same body and 409s another body', async () => {
    const id = await newSession();
    const turns = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    const first = await append(id, turns, { 'idempotency-key': 'req-1' });
    expect(first.statusCode).toBe(201);
    ctx.clock.advance(1000);
    const again = await append(id, turns, { 'idempotency-key': 'req-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await append(id, [{ role: 'user', content: 'different' }], { 'idempotency-key': 'req-1' });
    expect(other.statusCode).toBe(409);
    expect(errorOf(other).code).toBe('idempotency.key_reused');
    expect(await session(id)).toMatchObject({ turn_count: 2, next_seq: 3 });
    // One Idempotency-Key definition for every write: any key /context accepts works here too, and
    // the parts of a multi-turn append never collide with another key ("k" vs "k#1").
    const hashed = await append(id, turns, { 'idempotency-key': 'k' });
    const lookalike = await append(id, [{ role: 'user', content: 'other' }], { 'idempotency-key': 'k#1' });
    expect([hashed.statusCode, lookalike.statusCode]).toEqual([201, 201]);
    expect(lookalike.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await append(id, turns, { 'idempotency-key': 'k' });
    expect(replayed.body).toBe(hashed.body);
    const bad = await append(id, turns, { 'idempotency-key': 'x'.repeat(256) });
    expect(bad.statusCode).toBe(400);
  });

  it('replays concurrent duplicates once', async () => {
    const id = await newSession();
    const turns = [{ role: 'user', content: 'once' }];
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => append(id, turns, { 'idempotency-key': 'dup' })),
    );
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(await session(id)).toMatchObject({ turn_count: 1 });
  });
});

describe('turn-order validation (422, nothing written)', () => {
  async function expectRejected(id: string, turns: unknown[], status: number, code: string, path?: string) {
    const before = await session(id);
    const response = await append(id, turns);
    expect(response.statusCode, response.body).toBe(status);
    const error = errorOf(response);
    expect(error.code).toBe(code);
    if (path) expect(JSON.stringify(error)).toContain(path);
    const after = await session(id);
    expect(after).toMatchObject({
      turn_count: before.turn_count,
      next_seq: before.next_seq,
      total_tokens: before.total_tokens,
    });
    return error;
  }

  it('rejects a tool_result without its tool_use', async () => {
    const id = await newSession();
    await expectRejected(
      id,
      [{ role: 'user', content: [toolResult('toolu_x')] }],
      422,
      'turns.tool_result_without_use',
      'turns.0.content.0.tool_use_id',
    );
  });

  it('rejects user text while a tool_use awaits its result, also across requests', async () => {
    const id = await newSession();
    await expectRejected(
      id,
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('toolu_a'), toolUse('toolu_b')] },
        { role: 'user', content: [toolResult('toolu_a'), { type: 'text', text: 'and?' }] },
      ],
      422,
      'turns.tool_use_unanswered',
      'turns.2.content.1',
    );
    expect(
      (
        await append(id, [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [toolUse('toolu_a')] },
        ])
      ).statusCode,
    ).toBe(201);
    expect((await session(id)).pending_tool_use_ids).toEqual(['toolu_a']);
    await expectRejected(id, [{ role: 'user', content: 'never mind' }], 422, 'turns.tool_use_unanswered');
    // An assistant turn may still follow (it merges into the same assistant message) …
    expect((await append(id, [{ role: 'assistant', content: 'working on it' }])).statusCode).toBe(201);
    // … and the result then clears the way.
    expect(
      (
        await append(id, [
          { role: 'user', content: [toolResult('toolu_a'), { type: 'text', text: 'thanks' }] },
        ])
      ).statusCode,
    ).toBe(201);
    // A second result for a call answered in an earlier request.
    await expectRejected(
      id,
      [{ role: 'user', content: [toolResult('toolu_a')] }],
      422,
      'turns.duplicate_tool_id',
    );
  });

  it('rejects duplicate tool ids in a request and against the stored history', async () => {
    const id = await newSession();
    await expectRejected(
      id,
      [{ role: 'assistant', content: [toolUse('toolu_d'), toolUse('toolu_d')] }],
      422,
      'turns.duplicate_tool_id',
    );
    await append(id, [
      { role: 'assistant', content: [toolUse('toolu_d')] },
      { role: 'user', content: [toolResult('toolu_d')] },
    ]);
    await expectRejected(
      id,
      [{ role: 'assistant', content: [toolUse('toolu_d')] }],
      422,
      'turns.duplicate_tool_id',
    );
    await expectRejected(
      id,
      [
        { role: 'assistant', content: [toolUse('toolu_e')] },
        { role: 'user', content: [toolResult('toolu_e'), toolResult('toolu_e')] },
      ],
      422,
      'turns.duplicate_tool_id',
    );
  });

  it('rejects blocks in the wrong role and usage on user turns', async () => {
    const id = await newSession();
    await expectRejected(
      id,
      [{ role: 'user', content: [toolUse('toolu_u')] }],
      422,
      'turns.block_not_allowed_for_role',
      'turns.0.content.0',
    );
    await expectRejected(
      id,
      [{ role: 'assistant', content: [toolResult('toolu_u')] }],
      422,
      'turns.block_not_allowed_for_role',
    );
    await expectRejected(
      id,
      [{ role: 'user', content: 'x', usage: { input_tokens: 1 } }],
      422,
      'turns.usage_on_user_turn',
      'turns.0.usage',
    );
    await expectRejected(id, [{ role: 'system', content: 'x' }], 400, 'request.invalid', 'body.turns.0.role');
  });
});

describe('content validation (4xx naming the field, nothing written)', () => {
  const png = pngBytes(100, 50).toString('base64');
  const image = (data: string, media_type = 'image/png') => ({
    type: 'image',
    source: { type: 'base64', media_type, data },
  });

  it.each([
    ['unknown block type', [{ type: 'video', url: 'x' }], 400, 'request.invalid', 'body.turns.0.content.0'],
    ['text block without text', [{ type: 'text' }], 400, 'request.invalid', 'body.turns.0.content.0.text'],
    ['blank text', [{ type: 'text', text: '  ' }], 400, 'request.invalid', 'body.turns.0.content.0.text'],
    [
      'unsupported image media type',
      [image(png, 'image/bmp')],
      400,
      'request.invalid',
      'body.turns.0.content.0.source.media_type',
    ],
    [
      'base64 that is not base64',
      [image('not*base64!')],
      422,
      'content.invalid_base64',
      'turns.0.content.0.source.data',
    ],
    [
      'bytes that are not the declared type',
      [image(jpegBytes(10, 10).toString('base64'))],
      422,
      'content.media_type_mismatch',
      'turns.0.content.0.source.media_type',
    ],
    [
      'an image over 8000 px',
      [image(pngBytes(9000, 10).toString('base64'))],
      422,
      'content.image_dimensions_exceeded',
      'turns.0.content.0',
    ],
    [
      'an image over 5 MB',
      [image(Buffer.alloc(5 * 1024 * 1024 + 3, 1).toString('base64'))],
      422,
      'content.image_too_large',
      'turns.0.content.0.source.data',
    ],
    [
      'a PDF that is not a PDF',
      [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: png } }],
      422,
      'content.media_type_mismatch',
      'turns.0.content.0.source.media_type',
    ],
    ['empty content', [], 400, 'request.invalid', 'body.turns.0.content'],
  ])('rejects %s', async (_name, content, status, code, path) => {
    const id = await newSession();
    const response = await append(id, [{ role: 'user', content }]);
    expect(response.statusCode, response.body).toBe(status);
    expect(errorOf(response).code).toBe(code);
    expect(JSON.stringify(errorOf(response))).toContain(path);
    expect(await session(id)).toMatchObject({ turn_count: 0, next_seq: 1 });
  });

  it('accepts valid images and PDFs, estimating image tokens from the header dimensions', async () => {
    const id = await newSession();
    const response = await append(id, [
      {
        role: 'user',
        content: [
          image(png),
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: pdfBytes().toString('base64') },
          },
          { type: 'text', text: 'see attached' },
        ],
      },
    ]);
    expect(response.statusCode, response.body).toBe(201);
    // 100×50 px → ceil(5000/750) = 7 tokens, far below the 1600 default for an unknown size.
    expect(response.json().entries[0].token_estimate).toBeLessThan(1600 + 7 + 50);
  });
});

describe('offloading large tool results', () => {
  it('stores the result as a blob, keeps the reference text, and read_result pages through it', async () => {
    const id = await newSession();
    const big = 'é'.repeat(100) + 'line of output\n'.repeat(200);
    const response = await append(id, [
      { role: 'assistant', content: [toolUse('toolu_big', 'shell_exec')] },
      { role: 'user', content: [toolResult('toolu_big', [{ type: 'text', text: big }])] },
    ]);
    expect(response.statusCode, response.body).toBe(201);
    const [, resultEntry] = response.json().entries;
    expect(resultEntry.offloaded).toHaveLength(1);
    const refId = resultEntry.offloaded[0].ref_id;
    const bytes = Buffer.byteLength(big);
    const entries = await transcript(id);
    const stored = (entries[1]!.content as { content: string }[])[0]!.content;
    expect(stored).toBe(
      `[Tool result stored — ${bytes} bytes from "shell_exec". First 200 chars: ${Array.from(big).slice(0, 200).join('')}] Use read_result with ref_id="${refId}"`,
    );

    let offset: number | null = 0;
    let text = '';
    let reads = 0;
    while (offset !== null) {
      const page = await ctx.app.services.offload.readResult({
        tenantId: t.tenantId,
        sessionId: id,
        refId,
        offset,
        limit: 999,
      });
      expect(page.total_bytes).toBe(bytes);
      expect(Buffer.byteLength(page.content)).toBeLessThanOrEqual(999);
      text += page.content;
      offset = page.next_offset;
      reads += 1;
    }
    expect(text).toBe(big);
    expect(reads).toBeGreaterThanOrEqual(Math.ceil(bytes / 999));
    const first = await ctx.app.services.offload.readResult({ tenantId: t.tenantId, sessionId: id, refId });
    expect(first.limit).toBe(4096);

    // Other tenants cannot read it.
    const other = await ctx.tenant();
    const otherSession = await newSession(other);
    await expect(
      ctx.app.services.offload.readResult({ tenantId: other.tenantId, sessionId: otherSession, refId }),
    ).rejects.toMatchObject({ statusCode: 404, code: 'result.not_found' });
    await expect(
      ctx.app.services.offload.readResult({ tenantId: other.tenantId, sessionId: id, refId }),
    ).rejects.toMatchObject({ statusCode: 404, code: 'session.not_found' });
    // The blob belongs to the session (deleted with it) and is readable as a text slice.
    const blob = (await t.inject({ url: `/v1/blobs/${refId}?offset=0&limit=10` })).json();
    expect(blob).toMatchObject({ artifact_id: refId, total_bytes: bytes });
  });

  it('keeps small results inline', async () => {
    const id = await newSession();
    const response = await append(id, [
      { role: 'assistant', content: [toolUse('toolu_small')] },
      { role: 'user', content: [toolResult('toolu_small', 'short')] },
    ]);
    expect(response.json().entries[1].offloaded).toEqual([]);
  });
});

describe('usage calibration', () => {
  it('usage on a session that has made no context call is a 400 with the path, and nothing is written', async () => {
    const id = await newSession();
    await append(id, [{ role: 'user', content: 'Tell me about the rollout plan for next week.' }]);
    const response = await append(id, [
      { role: 'assistant', content: 'Sure.' },
      { role: 'assistant', content: 'More.', usage: { input_tokens: 10, output_tokens: 2 } },
    ]);
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response)).toMatchObject({
      code: 'turns.usage_without_context_call',
      details: { path: 'turns.1.usage' },
    });
    expect(await session(id)).toMatchObject({ turn_count: 1, calibration: {} });
  });

  it('keeps per-model ratio and cache-read share on the session and in metrics', async () => {
    const id = await newSession();
    const call = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: { message: { content: 'Tell me about the rollout plan for next week.' } },
    });
    expect(call.statusCode, call.body).toBe(200);
    // The estimate a report is compared with: the payload of the session's latest context call.
    const estimateBefore = call.json().budget.used as number;
    const usage = {
      input_tokens: 100,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 0,
      output_tokens: 20,
    };
    await append(id, [{ role: 'assistant', content: 'Sure.', usage, model: 'claude-sonnet-4-5' }]);
    const s = await session(id);
    expect(s.calibration['claude-sonnet-4-5']).toEqual({
      ratio: Math.round((400 / estimateBefore) * 10_000) / 10_000,
      cache_read_share: 0.75,
      calls: 1,
    });
    const metrics = await ctx.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(
      new RegExp(
        `contextd_usage_cache_read_tokens_total\\{tenant="${t.tenantId}",model="claude-sonnet-4-5"\\} 300`,
      ),
    );
    expect(metrics.body).toMatch(
      new RegExp(
        `contextd_usage_reported_input_tokens_total\\{tenant="${t.tenantId}",model="claude-sonnet-4-5"\\} 400`,
      ),
    );
  });
});

describe('transcript paging and restarts', () => {
  it('pages the audit trail by seq and reads it back from a second app instance', async () => {
    const id = await newSession();
    await append(
      id,
      Array.from({ length: 7 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i + 1}` })),
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/sessions/${id}/transcript?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await t.inject({ url })).json();
      seen.push(...page.entries.map((e: { seq: number }) => e.seq));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const second = await createTestApp({ testDb: ctx.testDb, clock: ctx.clock });
    try {
      const response = await second.app.inject({ url: `/v1/sessions/${id}/transcript`, headers: t.headers });
      expect(response.json().entries.map((e: { content: string }) => e.content)).toEqual(
        Array.from({ length: 7 }, (_, i) => `turn ${i + 1}`),
      );
      // And appends continue where the first instance left off.
      const more = await second.app.inject({
        method: 'POST',
        url: `/v1/sessions/${id}/turns`,
        headers: t.headers,
        payload: { turns: [{ role: 'assistant', content: 'turn 8' }] },
      });
      expect(more.json().entries[0].seq).toBe(8);
    } finally {
      await second.close();
    }
  });

  it('refuses turns on an ended session', async () => {
    const id = await newSession();
    await t.inject({ method: 'POST', url: `/v1/sessions/${id}/reset` });
    const response = await append(id, [{ role: 'user', content: 'late' }]);
    expect(response.statusCode).toBe(409);
    expect(errorOf(response).code).toBe('session.ended');
    const [row] = await queryRows<{ n: number }>(
      ctx.deps.database.db,
      sql`select count(*)::int as n from transcript_entries where session_id = ${id}`,
    );
    expect(row!.n).toBe(0);
  });
});
