// The context log keeps what the reply said besides the payload and budget (what the inspector
// shows): the context by source with retrieved items and their scores, cache breakpoints, notes,
// attachments and the deferred tools; older rows without them read as nulls.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx.close();
});

const mcpTool = (i: number) => ({
  name: `lookup_${i}`,
  description: `Looks up record kind ${i} in the inventory system. ${'Accepts filters and paging. '.repeat(20)}`,
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
  source: 'mcp',
});

describe('GET /v1/sessions/{id}/context-log: what the reply said', () => {
  let sessionId: string;
  let reply: Record<string, unknown> & { turn_seq: number };

  beforeAll(async () => {
    const created = await t.inject({ method: 'POST', url: '/v1/sessions', payload: { session_key: 'log' } });
    sessionId = created.json().session.id;
    const memory = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: {
        scope: 'session',
        scope_key: 'log',
        type: 'fact',
        text: 'The backup job runs nightly at 02:00.',
      },
    });
    expect(memory.statusCode).toBe(201);
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: {
        message: { content: 'When does the backup job run?' },
        system: [{ name: 'persona', text: 'You are terse.', cacheable: true }],
        tools: Array.from({ length: 12 }, (_, i) => mcpTool(i)),
        budget: { total: 12_000, max_output_tokens: 1_000 },
      },
    });
    expect(response.statusCode).toBe(200);
    reply = response.json();
  });

  it("logs the reply's context, cache, notes, attachments and deferred tools", async () => {
    const log = await t.inject({ url: `/v1/sessions/${sessionId}/context-log` });
    expect(log.statusCode).toBe(200);
    const [entry] = log.json().entries;
    expect(entry.turn_seq).toBe(reply.turn_seq);
    expect(entry.context).toEqual(reply.context);
    expect(entry.cache).toEqual(reply.cache);
    expect(entry.notes).toEqual(reply.notes);
    expect(entry.attachments).toEqual(reply.attachments);
    expect(entry.deferred_tool_details).toEqual(reply.deferred_tools);
    // The test would prove nothing without retrieved items, breakpoints and deferred tools.
    expect(entry.context.retrieved).toEqual([
      expect.objectContaining({ kind: 'memory', score: expect.any(Number), tokens: expect.any(Number) }),
    ]);
    expect(entry.cache.breakpoints.length).toBeGreaterThan(0);
    expect(entry.deferred_tool_details.length).toBeGreaterThan(0);
    expect(entry.deferred_tools).toEqual(entry.deferred_tool_details.map((d: { name: string }) => d.name));
    expect(entry.budget).toEqual(reply.budget);
  });

  it('a call logged before these were kept reads as nulls', async () => {
    await ctx.deps.database.db.execute(
      sql`update context_log set assembly = null
          where tenant_id = ${t.tenantId} and session_id = ${sessionId} and turn_seq = ${reply.turn_seq}`,
    );
    const [entry] = (await t.inject({ url: `/v1/sessions/${sessionId}/context-log` })).json().entries;
    expect(entry).toMatchObject({
      context: null,
      cache: null,
      notes: null,
      attachments: null,
      left_out: null,
    });
    expect(entry.deferred_tool_details.length).toBeGreaterThan(0);
  });

  it("another tenant's session is a 404", async () => {
    const other = await ctx.tenant();
    for (const url of [
      `/v1/sessions/${sessionId}/context-log`,
      `/v1/sessions/${sessionId}/context-log/${reply.turn_seq}/payload`,
      `/v1/sessions/${sessionId}/context-log/${reply.turn_seq}/tokens`,
      `/v1/sessions/${sessionId}`,
    ]) {
      const response = await other.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(errorOf(response).code).toBe('session.not_found');
    }
  });

  it("the tokens of each block of the logged payload, by the budget's estimator", async () => {
    const payload = (
      await t.inject({ url: `/v1/sessions/${sessionId}/context-log/${reply.turn_seq}/payload` })
    ).json();
    const response = await t.inject({
      url: `/v1/sessions/${sessionId}/context-log/${reply.turn_seq}/tokens`,
    });
    expect(response.statusCode).toBe(200);
    const tokens = response.json();
    expect(tokens.system).toHaveLength(payload.system.length);
    expect(tokens.tools).toHaveLength(payload.tools.length);
    expect(tokens.messages.map((m: { role: string }) => m.role)).toEqual(
      payload.messages.map((m: { role: string }) => m.role),
    );
    tokens.messages.forEach((m: { blocks: number[] }, i: number) =>
      expect(m.blocks).toHaveLength(payload.messages[i].content.length),
    );
    // One system block: the budget's system component is that block's count.
    const budget = reply.budget as { components: { system: number; tools: number } };
    expect(tokens.system).toEqual([budget.components.system]);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(tokens.tools)).toBe(budget.components.tools);
    expect(tokens.total).toBe(
      sum(tokens.system) +
        sum(tokens.tools) +
        sum(tokens.messages.map((m: { overhead: number; blocks: number[] }) => m.overhead + sum(m.blocks))),
    );
    const missing = await t.inject({ url: `/v1/sessions/${sessionId}/context-log/999/tokens` });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('context_log.not_found');
  });
});

describe('retrieval candidates left out, and why', () => {
  it('a small cap: the candidate that did not fit is logged with its reason; a dry run replies with it', async () => {
    const created = await t.inject({ method: 'POST', url: '/v1/sessions', payload: { session_key: 'cap' } });
    const sessionId = created.json().session.id as string;
    for (const text of [
      'The staging database password rotates every ninety days on the first Monday.',
      'The production database password rotates every thirty days; the rotation is announced in #ops.',
    ]) {
      const memory = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { scope: 'session', scope_key: 'cap', type: 'fact', text },
      });
      expect(memory.statusCode).toBe(201);
    }
    const message = { content: 'How often does the database password rotate?' };
    // Both fit with no cap; a cap one token short of their block leaves the second out.
    const whole = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message, dry_run: true },
    });
    expect(whole.json().context.retrieved).toHaveLength(2);
    expect(whole.json().left_out).toEqual({ counts: {}, items: [] });
    const body = { message, budget: { max_context_tokens: whole.json().budget.components.memories - 1 } };
    const dry = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { ...body, dry_run: true },
    });
    expect(dry.statusCode).toBe(200);
    const call = await t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/context`, payload: body });
    expect(call.statusCode).toBe(200);
    const reply = call.json();
    expect(reply.left_out).toBeUndefined(); // a logged call's reply does not carry it
    expect(reply.context.retrieved).toHaveLength(1);
    const [entry] = (await t.inject({ url: `/v1/sessions/${sessionId}/context-log` })).json().entries;
    expect(entry.left_out).toEqual({
      counts: { did_not_fit: 1 },
      items: [
        expect.objectContaining({
          kind: 'memory',
          reason: 'did_not_fit',
          tokens: expect.any(Number),
          excerpt: expect.stringContaining('database password rotates'),
        }),
      ],
    });
    expect(entry.left_out.items[0].id).not.toBe(reply.context.retrieved[0].id);
    expect(dry.json().left_out).toEqual(entry.left_out);
  });
});
