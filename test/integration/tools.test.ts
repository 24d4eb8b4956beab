// GET /v1/sessions/{id}/tools and POST /v1/sessions/{id}/tools/{name}: definitions, scoping to
// the session's tenant and channel, bad input, and tool_search promotion through the context call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferralNote } from '../../src/core/tool-deferral.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;
let seq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => {
  await ctx.close();
});

async function session(tenant: TestTenant, payload: Record<string, unknown>) {
  const response = await tenant.inject({ method: 'POST', url: '/v1/sessions', payload });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

const run = (tenant: TestTenant, sessionId: string, name: string, input: unknown) =>
  tenant.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/tools/${name}`, payload: { input } });

describe('agent tools', () => {
  it('lists the built-ins; channel tools only for a channel session', async () => {
    const channel = await session(t, {
      agent_id: 'bot',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: `C${++seq}`,
    });
    const plain = await session(t, { session_key: `plain-${++seq}` });
    const names = async (id: string) =>
      ((await t.inject({ url: `/v1/sessions/${id}/tools` })).json().tools as { name: string }[]).map(
        (x) => x.name,
      );
    expect(await names(channel)).toEqual([
      'channel_context',
      'channel_messages',
      'read_result',
      'memory_search',
      'tool_search',
      'compact_context',
    ]);
    expect(await names(plain)).toEqual(['read_result', 'memory_search', 'tool_search', 'compact_context']);
    const refused = await run(t, plain, 'channel_context', { intent: 'x' });
    expect(refused.statusCode).toBe(422);
    expect(errorOf(refused).code).toBe('tools.no_channel');
  });

  it("channel tools reach only the session's channel; a channel field in the input is a 400", async () => {
    const mine = `C${++seq}`;
    const theirs = `C${++seq}`;
    await ingest(t, mine, [{ message_id: 'a1', ts: at(1), text: 'the kubernetes upgrade is done' }]);
    await ingest(t, theirs, [{ message_id: 'b1', ts: at(2), text: 'secret kubernetes plans elsewhere' }]);
    const id = await session(t, {
      agent_id: 'bot',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: mine,
    });

    const search = await run(t, id, 'channel_context', { intent: 'kubernetes' });
    expect(search.statusCode).toBe(200);
    const text = search.json().content[0].text as string;
    expect(text).toContain('upgrade is done');
    expect(text).not.toContain('elsewhere');

    const fetch = await run(t, id, 'channel_messages', { message_ids: ['a1', 'b1'] });
    expect(fetch.statusCode).toBe(200);
    const fetched = JSON.parse(fetch.json().content[0].text);
    expect(fetched.messages.map((m: { message_id: string }) => m.message_id)).toEqual(['a1']);
    expect(fetched.missing_ids).toEqual(['b1']);

    const escape = await run(t, id, 'channel_context', { intent: 'kubernetes', channel_id: theirs });
    expect(escape.statusCode).toBe(400);
    expect(errorOf(escape).code).toBe('tools.invalid_input');
    const missing = await run(t, id, 'channel_context', {});
    expect(missing.statusCode).toBe(400);
    expect((errorOf(missing).details as { path: string }[])[0]!.path).toBe('body.input.intent');
  });

  it('unknown tool 404, another tenant 404, compact_context not available yet', async () => {
    const id = await session(t, { session_key: `k-${++seq}` });
    const unknown = await run(t, id, 'nope', {});
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown).code).toBe('tools.not_found');
    const foreign = await run(other, id, 'read_result', { ref_id: '00000000-0000-7000-8000-000000000000' });
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('session.not_found');
    const compact = await run(t, id, 'compact_context', {});
    expect(compact.statusCode).toBe(200);
    expect(compact.json()).toMatchObject({
      is_error: true,
      content: [{ text: expect.stringContaining('not available yet') }],
    });
    const result = await run(t, id, 'read_result', { ref_id: 'not-a-ref' });
    expect(result.statusCode).toBe(404);
  });

  it("memory_search sees the session's scopes only", async () => {
    const channelId = `C${++seq}`;
    const id = await session(t, {
      agent_id: 'bot',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: channelId,
    });
    for (const [scope, scopeKey, text] of [
      ['channel', `slack:${channelId}`, 'the staging database is called falcon'],
      ['channel', 'slack:OTHER', 'the production database is called falcon-prod'],
      ['tenant', undefined, 'falcon backups run nightly'],
    ] as const) {
      const response = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { scope, ...(scopeKey ? { scope_key: scopeKey } : {}), type: 'fact', text },
      });
      expect(response.statusCode).toBeLessThan(300);
    }
    const found = await run(t, id, 'memory_search', { query: 'falcon database' });
    expect(found.statusCode).toBe(200);
    const text = found.json().content[0].text as string;
    expect(text).toContain('staging database');
    expect(text).toContain('backups run nightly');
    expect(text).not.toContain('falcon-prod');
  });

  it('deferred tools are found by tool_search and promoted on the next turn', async () => {
    const id = await session(t, { session_key: `defer-${++seq}` });
    const tools = Array.from({ length: 12 }, (_, i) => ({
      name: i === 7 ? 'jira_create_ticket' : `mcp_tool_${i}`,
      description: `${i === 7 ? 'Create a Jira ticket. ' : ''}${'does a remote thing '.repeat(120)}`,
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      source: 'mcp',
    }));
    const budget = { total: 40_000, max_output_tokens: 1000 };
    const first = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: { message: { content: 'file a ticket' }, tools, budget },
    });
    expect(first.statusCode).toBe(200);
    const deferred = (first.json().deferred_tools as { name: string }[]).map((d) => d.name);
    expect(deferred).toContain('jira_create_ticket');
    expect(deferred.length).toBeGreaterThan(1);
    expect(first.json().notes).toContain(deferralNote(deferred.length));

    const call = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/turns`,
      payload: {
        turns: [
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'tu_s1', name: 'tool_search', input: { query: 'jira ticket' } },
            ],
          },
        ],
      },
    });
    expect(call.statusCode).toBeLessThan(300);
    const search = await run(t, id, 'tool_search', { query: 'jira ticket' });
    expect(search.statusCode).toBe(200);
    const found = JSON.parse(search.json().content[0].text);
    expect(found.tools.map((x: { name: string }) => x.name)).toEqual(['jira_create_ticket']);
    expect(found.tools[0].input_schema).toMatchObject({ type: 'object' });

    const second = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/context`,
      payload: {
        message: {
          content: [{ type: 'tool_result', tool_use_id: 'tu_s1', content: search.json().content[0].text }],
        },
        tools,
        budget,
      },
    });
    expect(second.statusCode).toBe(200);
    const sent = (second.json().payload.tools as { name: string }[]).map((x) => x.name);
    expect(sent).toContain('jira_create_ticket');
    expect((second.json().deferred_tools as { name: string }[]).map((d) => d.name)).not.toContain(
      'jira_create_ticket',
    );
  });
});
