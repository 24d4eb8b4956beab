// /mcp over real HTTP with the SDK's own Client and StreamableHTTPClientTransport, against the app
// listening on a port: tools listed for the bound session with titles, annotations and output
// schemas, results the SDK checks against them, channel_context giving what the REST tool gives,
// scoping (another tenant's session, another channel's memories, inputs naming a channel), bad
// arguments as a tool error in the tool's terms, the API key, and statelessness across two replicas.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

let ctx: TestContext;
let replica: TestContext;
let t: TestTenant;
let other: TestTenant;
let base: string;
let replicaBase: string;
const open: Client[] = [];

beforeAll(async () => {
  ctx = await createTestApp();
  // A second instance on the same database: a load balancer may send any request to either.
  replica = await createTestApp({ testDb: ctx.testDb });
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  replicaBase = await replica.app.listen({ port: 0, host: '127.0.0.1' });
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => {})));
  await replica?.close();
  await ctx?.close();
});

async function session(tenant: TestTenant, channelId: string) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

async function connect(sessionId: string, key: string | null, options: { fetch?: typeof fetch } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp?session_id=${sessionId}`), {
    ...(key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const client = new Client({ name: 'contextd-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('MCP endpoint /mcp', () => {
  let sessionId: string;

  beforeAll(async () => {
    await ingest(t, 'CM1', [
      { message_id: 'm1', ts: at(1), text: 'The staging deploy of billing failed on a missing secret' },
      { message_id: 'm2', ts: at(2), text: 'Lunch at noon?' },
    ]);
    await ingest(other, 'CM1', [
      { message_id: 'x1', ts: at(1), text: 'Other tenant: billing deploy notes that must not leak' },
    ]);
    sessionId = await session(t, 'CM1');
  });

  it("lists the session's tools and MCP's own, each with a title, annotations, an output schema and described parameters", async () => {
    const client = await connect(sessionId, t.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'channel_context',
        'channel_messages',
        'compact_context',
        'get_context',
        'memory_search',
        'read_result',
        'tool_search',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/\w/);
      expect(tool.description, tool.name).toMatch(/\w/);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      const hints = tool.annotations!;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof hints[hint], `${tool.name} ${hint}`).toBe('boolean');
      }
      for (const [parameter, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${parameter}`).toMatch(/\w/);
      }
    }
    const hintsOf = (name: string) => tools.find((tool) => tool.name === name)!.annotations!;
    // The one tool that changes the session says so; the rest only read.
    expect(hintsOf('compact_context')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const tool of tools.filter((tool) => tool.name !== 'compact_context')) {
      expect(tool.annotations!.readOnlyHint, tool.name).toBe(true);
    }
    expect(hintsOf('channel_context').openWorldHint).toBe(true);
    const channelContext = tools.find((tool) => tool.name === 'channel_context')!;
    expect(channelContext.inputSchema.required).toEqual(['intent']);
    // The same definitions the REST endpoint hands the model.
    const rest = (await t.inject({ url: `/v1/sessions/${sessionId}/tools` })).json().tools as {
      name: string;
      description: string;
      input_schema: unknown;
    }[];
    for (const definition of rest) {
      const listed = tools.find((tool) => tool.name === definition.name)!;
      expect(listed.description).toBe(definition.description);
      expect(listed.inputSchema).toEqual(definition.input_schema);
    }
  });

  it("every tool's result carries structuredContent its output schema accepts (the SDK client checks it)", async () => {
    const client = await connect(sessionId, t.key);
    // listTools gives the client the output schemas it validates every result against.
    await client.listTools();
    const calls: [string, Record<string, unknown>][] = [
      ['channel_context', { intent: 'billing deploy' }],
      ['channel_messages', { message_ids: ['m1', 'nope'] }],
      ['memory_search', { query: 'billing' }],
      ['tool_search', { query: 'deploy' }],
      ['get_context', { message: 'what failed in billing?' }],
      ['compact_context', {}],
    ];
    for (const [name, args] of calls) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, name).toBe(false);
      // The structured value is the one the text block carries.
      expect(result.structuredContent, name).toEqual(
        expect.objectContaining(
          Object.fromEntries(Object.entries(JSON.parse(textOf(result)) as object).slice(0, 1)),
        ),
      );
    }
    const messages = (await client.callTool({
      name: 'channel_messages',
      arguments: { message_ids: ['m1', 'nope'] },
    })) as CallToolResult;
    expect(messages.structuredContent).toMatchObject({
      messages: [{ message_id: 'm1' }],
      missing_ids: ['nope'],
    });
  });

  it('calls channel_context in the session channel, with the reply the REST tool gives', async () => {
    const client = await connect(sessionId, t.key);
    const result = (await client.callTool({
      name: 'channel_context',
      arguments: { intent: 'why did the billing deploy fail' },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(text).toContain('missing secret');
    expect(text).not.toContain('must not leak');
    const rest = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/tools/channel_context`,
      payload: { input: { intent: 'why did the billing deploy fail' } },
    });
    expect(rest.json().content[0].text).toBe(text);
  });

  it('bad arguments are a tool error naming the argument as the tool does, not an HTTP path', async () => {
    const client = await connect(sessionId, t.key);
    const bad = (await client.callTool({
      name: 'channel_context',
      arguments: { intent: 5 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(
      'Invalid arguments for channel_context:\n- intent: expected string, received number',
    );
    const elsewhere = (await client.callTool({
      name: 'channel_messages',
      arguments: { message_ids: ['x1'], channel_id: 'C-OTHER' },
    })) as CallToolResult;
    expect(elsewhere.isError).toBe(true);
    // As in the REST tool: the inputs have no channel or lane field, so naming one is refused.
    expect(textOf(elsewhere)).toBe(
      'Invalid arguments for channel_messages:\n- Unrecognized key: "channel_id"',
    );
    const badType = (await client.callTool({
      name: 'memory_search',
      arguments: { query: 'x', types: ['not-a-type'] },
    })) as CallToolResult;
    expect(badType.isError).toBe(true);
    expect(textOf(badType)).toMatch(/^Invalid arguments for memory_search:\n- types\.0: /);
    const badContext = (await client.callTool({
      name: 'get_context',
      arguments: { message: '', format: 'xml' },
    })) as CallToolResult;
    expect(badContext.isError).toBe(true);
    expect(textOf(badContext)).toMatch(/^Invalid arguments for get_context:\n- message: .*\n- format: /);
    for (const result of [bad, elsewhere, badType, badContext]) {
      expect(textOf(result)).not.toMatch(/body\.input|tools\.invalid_input|"code"/);
    }
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);
  });

  it("another tenant's session is refused (404) before any MCP exchange", async () => {
    const foreign = await session(other, 'CM1');
    for (const [id, key] of [
      [foreign, t.key],
      [sessionId, other.key],
    ] as const) {
      const error = await connect(id, key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(404);
      expect(String((error as Error).message)).toContain('session.not_found');
    }
  });

  it('without an API key (or with a bad one) the endpoint is a 401; a missing session_id a 400', async () => {
    for (const key of [null, 'ctxd_not_a_key']) {
      const error = await connect(sessionId, key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
    }
    const raw = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe('request.invalid');
    expect(body.error.details.map((d) => d.path)).toContain('querystring.session_id');
    const get = await fetch(`${base}/mcp?session_id=${sessionId}`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it("memory_search with types finds the session's memory records (id, type, scope) and none of another channel's", async () => {
    for (const [scopeKey, text] of [
      ['slack:CM1', 'The billing service owner is Ana'],
      ['slack:CM-OTHER', 'The billing service budget is secret'],
    ]) {
      const created = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { scope: 'channel', scope_key: scopeKey, type: 'fact', text },
      });
      expect(created.statusCode).toBeLessThan(300);
    }
    const client = await connect(sessionId, t.key);
    await client.listTools();
    const result = (await client.callTool({
      name: 'memory_search',
      arguments: { query: 'billing service', types: ['fact'] },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    const { results } = result.structuredContent as {
      results: { kind: string; id: string; text: string; type: string; scope: string; scope_key: string }[];
    };
    expect(results.map((r) => r.text)).toEqual(['The billing service owner is Ana']);
    expect(results[0]).toMatchObject({
      kind: 'memory',
      type: 'fact',
      scope: 'channel',
      scope_key: 'slack:CM1',
    });
    expect(results[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('get_context assembles the payload as a dry run and records nothing', async () => {
    const assembled = async () =>
      Number(
        /^contextd_assembled_tokens_count\{component="system"\} (\d+)$/m.exec(
          (await ctx.app.inject({ url: '/metrics' })).body,
        )?.[1] ?? 0,
      );
    const before = await assembled();
    const client = await connect(sessionId, t.key);
    const result = (await client.callTool({
      name: 'get_context',
      arguments: { message: 'what failed in billing?' },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    const reply = JSON.parse(textOf(result)) as {
      dry_run: boolean;
      turn_seq: number | null;
      payload: { messages: { role: string }[] };
      budget: { state: string };
    };
    expect(reply.dry_run).toBe(true);
    expect(reply.turn_seq).toBeNull();
    expect(reply.payload.messages.at(-1)!.role).toBe('user');
    expect(JSON.stringify(reply.payload)).toContain('what failed in billing?');
    const log = await t.inject({ url: `/v1/sessions/${sessionId}/context-log` });
    expect(log.json().entries).toEqual([]);
    // Counted like a REST context call: the metric lives in the context service, not a route.
    expect(await assembled()).toBe(before + 1);
  });

  it('is stateless: each request may go to another replica', async () => {
    let calls = 0;
    // Every other request to the replica, as a round-robin load balancer would.
    const roundRobin: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (calls++ % 2 === 1) url.host = new URL(replicaBase).host;
      return fetch(url, init);
    };
    const client = await connect(sessionId, t.key, { fetch: roundRobin });
    for (let i = 0; i < 3; i++) {
      const result = (await client.callTool({
        name: 'channel_context',
        arguments: { intent: 'billing deploy' },
      })) as CallToolResult;
      expect(textOf(result)).toContain('missing secret');
    }
    expect(calls).toBeGreaterThanOrEqual(4);
  });
});
