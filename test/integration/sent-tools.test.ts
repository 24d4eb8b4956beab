// Which of contextd's own tools a payload carries: read_result once the session holds an offloaded
// result (offloaded by the context call itself or by an append), and from then on; tool_search only
// while a tool is deferred; memory_search and compact_context once they can act (memories in scope,
// an earlier session, a history over the share a compaction keeps, a compacted lane); the tools
// block the same bytes from call to call otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

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
async function dm(): Promise<string> {
  counter += 1;
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'dm', user_id: `U${counter}` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().session.id as string;
}

interface Reply {
  payload: { tools?: { name: string }[] };
  deferred_tools: { name: string }[];
}
async function context(sessionId: string, body: Record<string, unknown>): Promise<Reply> {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/context`,
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Reply;
}
const names = (reply: Reply) => (reply.payload.tools ?? []).map((tool) => tool.name);
async function append(sessionId: string, turns: unknown[]) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    payload: { turns },
  });
  expect(response.statusCode, response.body).toBe(201);
}
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'shell_exec', input: { cmd: 'ls -R /' } });
const big = 'line of output\n'.repeat(200);

describe("contextd's tools in the payload", () => {
  it('a new DM with nothing to search, compact or read gets none of them; the session may still call all', async () => {
    const id = await dm();
    const first = await context(id, { message: { content: 'hello there' } });
    expect(names(first)).toEqual([]);
    expect(first.payload.tools).toBeUndefined();
    await append(id, [{ role: 'assistant', content: 'Hi!' }]);
    const second = await context(id, { message: { content: 'how are you?' } });
    expect(names(second)).toEqual([]);
    // The tools a session may call are all listed still.
    const listed = await t.inject({ url: `/v1/sessions/${id}/tools` });
    expect(listed.json().tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['read_result', 'memory_search', 'compact_context']),
    );
  });

  it('memory_search appears once a memory the session sees exists, and stays', async () => {
    const id = await dm();
    expect(names(await context(id, { message: { content: 'what do I like?' } }))).toEqual([]);
    await append(id, [{ role: 'assistant', content: 'Tell me!' }]);
    const created = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'user', scope_key: `slack:U${counter}`, type: 'preference', text: 'Likes green tea' },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const after = await context(id, { message: { content: 'and now?' } });
    expect(names(after)).toEqual(['memory_search']);
    await append(id, [{ role: 'assistant', content: 'Green tea.' }]);
    const later = await context(id, { message: { content: 'thanks' } });
    expect(JSON.stringify(later.payload.tools)).toBe(JSON.stringify(after.payload.tools));
  });

  it('memory_search is sent in a session whose key had an earlier session (its transcript is searchable)', async () => {
    const id = await dm();
    await context(id, { message: { content: 'my locker code is on the blue note' } });
    const reset = await t.inject({ method: 'POST', url: `/v1/sessions/${id}/reset` });
    expect(reset.statusCode, reset.body).toBeLessThan(300);
    const successor = reset.json().session.id as string;
    expect(names(await context(successor, { message: { content: 'where was my code?' } }))).toEqual([
      'memory_search',
    ]);
  });

  it('memory_search and compact_context appear once the history outgrows what a compaction keeps, and stay after one', async () => {
    const id = await dm();
    // A 12,000-token window less 2,000 of output: a compaction keeps 25% of 10,000 verbatim.
    const budget = { total: 12_000, max_output_tokens: 2_000 };
    const small = await context(id, { message: { content: 'start' }, budget });
    expect(names(small)).toEqual([]);
    const paragraph = 'The quarterly report covers revenue, hiring and the data centre move in detail. ';
    let grown: Reply | null = null;
    for (let i = 0; i < 12 && (grown === null || names(grown).length === 0); i += 1) {
      await append(id, [{ role: 'assistant', content: `${i}: ${paragraph.repeat(12)}` }]);
      grown = await context(id, { message: { content: `next part ${i}` }, budget });
    }
    expect(names(grown!)).toEqual(['memory_search', 'compact_context']);
    await append(id, [{ role: 'assistant', content: 'ok' }]);
    const compacted = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/compact`,
      payload: { wait: true, force: true },
    });
    expect(compacted.statusCode, compacted.body).toBeLessThan(300);
    const after = await context(id, { message: { content: 'and after the compaction?' }, budget });
    expect(names(after)).toEqual(['memory_search', 'compact_context']);
  });

  it('read_result appears with the call that offloads a result, and stays', async () => {
    const id = await dm();
    expect(names(await context(id, { message: { content: 'list the files' } }))).not.toContain('read_result');
    await append(id, [{ role: 'assistant', content: [toolUse('toolu_1')] }]);
    const loop = await context(id, {
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: big }] },
    });
    expect(names(loop)).toEqual(['read_result']);
    await append(id, [{ role: 'assistant', content: 'Done: lots of files.' }]);
    const later = await context(id, { message: { content: 'thanks' } });
    expect(JSON.stringify(later.payload.tools)).toBe(JSON.stringify(loop.payload.tools));
  });

  it('read_result appears once an append offloaded a result', async () => {
    const id = await dm();
    await append(id, [
      { role: 'user', content: 'list the files' },
      { role: 'assistant', content: [toolUse('toolu_2')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: big }] },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(names(await context(id, { message: { content: 'and now?' } }))).toContain('read_result');
  });

  it('tool_search only while a tool is deferred', async () => {
    const id = await dm();
    const tools = Array.from({ length: 20 }, (_, i) => ({
      name: `mcp_tool_${i}`,
      description: 'does things '.repeat(100),
      input_schema: { type: 'object' },
      source: 'mcp',
    }));
    const few = await context(id, { message: { content: 'hi' }, tools: tools.slice(0, 1) });
    expect(few.deferred_tools).toEqual([]);
    expect(names(few)).not.toContain('tool_search');
    await append(id, [{ role: 'assistant', content: 'Hi!' }]);
    const many = await context(id, { message: { content: 'hi again' }, tools, budget: { total: 40_000 } });
    expect(many.deferred_tools.length).toBeGreaterThan(0);
    expect(names(many)).toContain('tool_search');
  });
});
