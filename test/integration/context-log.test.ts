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
    expect(entry).toMatchObject({ context: null, cache: null, notes: null, attachments: null });
    expect(entry.deferred_tool_details.length).toBeGreaterThan(0);
  });

  it("another tenant's session is a 404", async () => {
    const other = await ctx.tenant();
    const response = await other.inject({ url: `/v1/sessions/${sessionId}/context-log` });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('session.not_found');
  });
});
