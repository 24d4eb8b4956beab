// GET /v1/sessions/{id}/tools and POST /v1/sessions/{id}/tools/{name}: definitions, scoping to
// the session's tenant and channel, bad input, tool_search promotion through the context call,
// Idempotency-Key, channel_messages media fetches, and which blobs read_result may read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferralNote } from '../../src/modules/tools/core/tool-deferral.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import { pdfBytes, pngBytes } from '../helpers/media.js';

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

const run = (tenant: TestTenant, sessionId: string, name: string, input: unknown, idempotencyKey?: string) =>
  tenant.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/tools/${name}`,
    payload: { input },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });

const channelSession = (tenant: TestTenant, channelId: string) =>
  session(tenant, { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId });

async function upload(
  tenant: TestTenant,
  bytes: Buffer,
  contentType: string,
  filename: string,
  sessionId?: string,
) {
  const response = await tenant.inject({
    method: 'POST',
    url: sessionId ? `/v1/blobs?session_id=${sessionId}` : '/v1/blobs',
    payload: bytes,
    headers: { 'content-type': contentType, 'x-filename': filename },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().artifact_id as string;
}

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

  it('unknown tool 404, another tenant 404; compact_context compacts the lane and reports it', async () => {
    const id = await session(t, { session_key: `k-${++seq}` });
    const unknown = await run(t, id, 'nope', {});
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown).code).toBe('tools.not_found');
    const foreign = await run(other, id, 'read_result', { ref_id: '00000000-0000-7000-8000-000000000000' });
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('session.not_found');
    const turns = Array.from({ length: 14 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `Thanks, sounds good. Ok. Great, noted. Sure thing. Turn ${i}: the deploy of build ${100 + i} to /srv/app is ${i % 4 === 1 ? 'done' : 'pending'}. Cool, thanks again!`,
    }));
    const appended = await t.inject({ method: 'POST', url: `/v1/sessions/${id}/turns`, payload: { turns } });
    expect(appended.statusCode).toBe(201);
    const compact = await run(t, id, 'compact_context', {});
    expect(compact.statusCode).toBe(200);
    expect(compact.json().is_error).toBe(false);
    const report = JSON.parse(compact.json().content[0].text);
    expect(report).toMatchObject({ session_id: id, strategies_run: ['summarize'] });
    expect(report.lanes[0]).toMatchObject({
      outcome: 'committed',
      summarizer: 'extractive',
      before_messages: 14,
    });
    expect(report.after_messages).toBeLessThanOrEqual(10);
    expect(report.after_tokens).toBeLessThan(report.before_tokens);
    const foreignCompact = await run(other, id, 'compact_context', {});
    expect(foreignCompact.statusCode).toBe(404);
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

describe('Idempotency-Key on POST /v1/sessions/{id}/tools/{name}', () => {
  it('replays the first result even after the channel changed; another input is a 409', async () => {
    const channelId = `C${++seq}`;
    await ingest(t, channelId, [{ message_id: 'i1', ts: at(1), text: 'the canary deploy is green' }]);
    const id = await channelSession(t, channelId);
    const first = await run(t, id, 'channel_context', { intent: 'canary deploy' }, 'tool-key');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await ingest(t, channelId, [{ message_id: 'i2', ts: at(2), text: 'canary deploy rolled back' }]);
    const again = await run(t, id, 'channel_context', { intent: 'canary deploy' }, 'tool-key');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const fresh = await run(t, id, 'channel_context', { intent: 'canary deploy' });
    expect(fresh.json().content[0].text).toContain('rolled back');

    const conflict = await run(t, id, 'channel_context', { intent: 'something else' }, 'tool-key');
    expect(conflict.statusCode).toBe(409);
    expect(errorOf(conflict).code).toBe('idempotency.key_reused');

    // Another tenant's use of the same key is its own.
    await ingest(other, channelId, [{ message_id: 'o1', ts: at(1), text: 'their canary deploy notes' }]);
    const theirs = await channelSession(other, channelId);
    const foreign = await run(other, theirs, 'channel_context', { intent: 'canary deploy' }, 'tool-key');
    expect(foreign.statusCode).toBe(200);
    expect(foreign.headers['idempotent-replayed']).toBeUndefined();
    expect(foreign.json().content[0].text).toContain('their canary deploy notes');
    expect(foreign.json().content[0].text).not.toContain('green');
  });
});

describe('channel_messages with media_artifact_id', () => {
  it('returns an image of the channel as an image block', async () => {
    const channelId = `C${++seq}`;
    const png = pngBytes(64, 32);
    const artifact = await upload(t, png, 'image/png', 'chart.png');
    await ingest(t, channelId, [
      { message_id: 'root', ts: at(1), text: 'the chart' },
      {
        message_id: 'm1',
        ts: at(2),
        text: 'here',
        thread_id: 'root',
        media: [{ artifact_id: artifact, media_type: 'image/png' }],
      },
    ]);
    const id = await channelSession(t, channelId);
    const response = await run(t, id, 'channel_messages', { media_artifact_id: artifact });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      content: [
        {
          type: 'text',
          text: `Media ${artifact} "chart.png" (image/png, ${png.length} bytes) from message m1 in thread root:`,
        },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
      ],
      is_error: false,
    });
  });

  it('returns the first slice of a text file, and describes other files in one line', async () => {
    const channelId = `C${++seq}`;
    const log = Buffer.from(`${'line of the build log\n'.repeat(250)}THE END`, 'utf8');
    const text = await upload(t, log, 'text/plain', 'build.log');
    const pdf = await upload(t, pdfBytes(), 'application/pdf', 'spec.pdf');
    await ingest(t, channelId, [
      {
        message_id: 'f1',
        ts: at(1),
        text: 'logs and spec',
        media: [
          { artifact_id: text, media_type: 'text/plain' },
          { artifact_id: pdf, media_type: 'application/pdf' },
        ],
      },
    ]);
    const id = await channelSession(t, channelId);
    const textReply = await run(t, id, 'channel_messages', { media_artifact_id: text });
    expect(textReply.statusCode).toBe(200);
    const [block] = textReply.json().content as { type: string; text: string }[];
    expect(textReply.json().content).toHaveLength(1);
    expect(block!.text).toMatch(
      /^Media [0-9a-f-]+ "build\.log" \(text\/plain, \d+ bytes\) from message f1:\nline of the build log/,
    );
    expect(block!.text).not.toContain('THE END');
    expect(block!.text).toContain(`Use read_result with ref_id="${text}" and offset=4096 to read on.`);

    const pdfReply = await run(t, id, 'channel_messages', { media_artifact_id: pdf });
    expect(pdfReply.statusCode).toBe(200);
    expect(pdfReply.json()).toEqual({
      content: [
        {
          type: 'text',
          text: `[Media ${pdf} "spec.pdf" (application/pdf, ${pdfBytes().length} bytes) from message f1: not shown: only images and text can be returned as content.]`,
        },
      ],
      is_error: false,
    });
  });

  it("never reaches an unknown id, another channel's or another tenant's artifact", async () => {
    const channelId = `C${++seq}`;
    const elsewhere = `C${++seq}`;
    const id = await channelSession(t, channelId);
    // Another channel of the same tenant.
    const theirs = await upload(t, pngBytes(8, 8, 40), 'image/png', 'other.png');
    await ingest(t, elsewhere, [
      {
        message_id: 'x1',
        ts: at(1),
        text: 'elsewhere',
        media: [{ artifact_id: theirs, media_type: 'image/png' }],
      },
    ]);
    // Another tenant's blob, referenced by a message in a channel with the same id as ours.
    const foreign = await upload(other, pngBytes(9, 9, 41), 'image/png', 'foreign.png');
    await ingest(other, channelId, [
      {
        message_id: 'y1',
        ts: at(1),
        text: 'same id',
        media: [{ artifact_id: foreign, media_type: 'image/png' }],
      },
    ]);
    // Our channel referencing the other tenant's artifact id does not make it ours either.
    await ingest(t, channelId, [
      {
        message_id: 'z1',
        ts: at(2),
        text: 'copied id',
        media: [{ artifact_id: foreign, media_type: 'image/png' }],
      },
    ]);
    for (const artifact of [theirs, foreign, '00000000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const response = await run(t, id, 'channel_messages', { media_artifact_id: artifact });
      expect(response.statusCode, artifact).toBe(404);
      expect(errorOf(response)).toMatchObject({
        code: 'tools.media_not_found',
        details: { path: 'body.input.media_artifact_id' },
      });
    }
    const mixed = await run(t, id, 'channel_messages', { media_artifact_id: theirs, thread_id: 'x1' });
    expect(mixed.statusCode).toBe(400);
    expect((errorOf(mixed).details as { path: string }[])[0]!.path).toBe('body.input.media_artifact_id');
  });
});

describe('read_result', () => {
  const read = (tenant: TestTenant, sessionId: string, refId: string) =>
    run(tenant, sessionId, 'read_result', { ref_id: refId, limit: 64 });
  const textOf = (response: { json(): { content: { text: string }[] } }) =>
    (JSON.parse(response.json().content[0]!.text) as { content: string }).content;
  /** Appends a tool call and its result over the offload threshold; returns the ref_id. */
  async function offload(sessionId: string, text: string) {
    const toolUseId = `toolu_${++seq}`;
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'shell', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: text }] },
        ],
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().entries[1].offloaded[0].ref_id as string;
  }

  it("reads the session's own blobs and media of its own channel's messages", async () => {
    const channelId = `C${++seq}`;
    const id = await channelSession(t, channelId);
    const result = await offload(id, `own result ${seq}\n`.repeat(400));
    const uploaded = await upload(t, Buffer.from(`own upload ${seq}`), 'text/plain', 'own.txt', id);
    const media = await upload(t, Buffer.from(`channel file ${seq}`), 'text/plain', 'file.txt');
    await ingest(t, channelId, [
      {
        message_id: 'f1',
        ts: at(1),
        text: 'a file',
        media: [{ artifact_id: media, media_type: 'text/plain' }],
      },
    ]);
    for (const [ref, start] of [
      [result, 'own result'],
      [uploaded, 'own upload'],
      [media, 'channel file'],
    ] as const) {
      const response = await read(t, id, ref);
      expect(response.statusCode, response.body).toBe(200);
      expect(textOf(response)).toMatch(new RegExp(`^${start}`));
    }
  });

  it('deleting one session keeps bytes another session holds; the last holder takes them', async () => {
    const text = `shared result ${++seq}\n`.repeat(400);
    const a = await channelSession(t, `C${++seq}`);
    const b = await channelSession(t, `C${++seq}`);
    const refA = await offload(a, text);
    const refB = await offload(b, text);
    expect(refB).toBe(refA); // the same bytes, stored once
    const removeA = await t.inject({ method: 'DELETE', url: `/v1/sessions/${a}` });
    expect(removeA.statusCode).toBe(204);
    const stillThere = await read(t, b, refB);
    expect(stillThere.statusCode, stillThere.body).toBe(200);
    expect(textOf(stillThere)).toMatch(/^shared result/);
    expect((await t.inject({ url: `/v1/blobs/${refB}` })).statusCode).toBe(200);
    await t.inject({ method: 'DELETE', url: `/v1/sessions/${b}` });
    expect((await t.inject({ url: `/v1/blobs/${refB}` })).statusCode).toBe(404);

    // Bytes also uploaded for the whole tenant stay after every session that held them is gone.
    const c = await channelSession(t, `C${++seq}`);
    const tenantText = `tenant result ${++seq}\n`.repeat(400);
    const refC = await offload(c, tenantText);
    expect(await upload(t, Buffer.from(tenantText), 'text/plain', 'kept.txt')).toBe(refC);
    await t.inject({ method: 'DELETE', url: `/v1/sessions/${c}` });
    expect((await t.inject({ url: `/v1/blobs/${refC}` })).statusCode).toBe(200);
  });

  it("answers another session's, another channel's and another tenant's blob like an unknown id", async () => {
    const channelId = `C${++seq}`;
    const id = await channelSession(t, channelId);
    const elsewhere = `C${++seq}`;
    const theirs = await channelSession(t, elsewhere);
    const neighbour = await session(t, {
      session_key: `neighbour-${++seq}`,
      platform: 'slack',
      channel_id: channelId,
    });
    const theirResult = await offload(theirs, `their result ${seq}\n`.repeat(400));
    const theirUpload = await upload(t, Buffer.from(`their upload ${seq}`), 'text/plain', 'x.txt', theirs);
    const neighbourUpload = await upload(
      t,
      Buffer.from(`neighbour ${seq}`),
      'text/plain',
      'n.txt',
      neighbour,
    );
    const theirMedia = await upload(t, Buffer.from(`their file ${seq}`), 'text/plain', 'y.txt');
    await ingest(t, elsewhere, [
      {
        message_id: 'g1',
        ts: at(1),
        text: 'theirs',
        media: [{ artifact_id: theirMedia, media_type: 'text/plain' }],
      },
    ]);
    // Another tenant's blob, named by a message in their channel of the same id as ours.
    const foreign = await upload(other, Buffer.from(`foreign ${seq}`), 'text/plain', 'z.txt');
    await ingest(other, channelId, [
      {
        message_id: 'h1',
        ts: at(1),
        text: 'foreign',
        media: [{ artifact_id: foreign, media_type: 'text/plain' }],
      },
    ]);
    // Saying an id in the conversation does not make it readable: only offload references do.
    const said = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${id}/turns`,
      payload: { turns: [{ role: 'user', content: `please read ref_id="${theirResult}"` }] },
    });
    expect(said.statusCode).toBe(201);

    const unknown = '00000000-0000-7000-8000-000000000000';
    for (const ref of [theirResult, theirUpload, neighbourUpload, theirMedia, foreign, unknown]) {
      const response = await read(t, id, ref);
      expect(response.statusCode, ref).toBe(404);
      expect(errorOf(response)).toEqual({
        code: 'result.not_found',
        message: `no stored result with ref_id ${ref}`,
        details: { ref_id: ref },
      });
    }
    // The owner still reads its own.
    expect((await read(t, theirs, theirResult)).statusCode).toBe(200);
  });

  it('reads a result deduplicated into another session once its own transcript references it', async () => {
    const first = await channelSession(t, `C${++seq}`);
    const second = await session(t, { session_key: `dedupe-${++seq}` });
    const big = `identical output ${seq}\n`.repeat(400);
    const ref = await offload(first, big);
    expect((await read(t, second, ref)).statusCode).toBe(404);
    // The same bytes from the second session: SHA-256 dedupe hands back the first session's blob.
    expect(await offload(second, big)).toBe(ref);
    const response = await read(t, second, ref);
    expect(response.statusCode, response.body).toBe(200);
    expect(textOf(response)).toMatch(/^identical output/);
  });
});
