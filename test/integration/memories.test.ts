// Memories through HTTP: create (redacted, deduplicated), list with paging and filters, read,
// update (409 on a colliding text), delete, expiry, idempotency, bad input and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const create = (tenant: TestTenant, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  tenant.inject({ method: 'POST', url: '/v1/memories', payload, headers });

describe('POST /v1/memories', () => {
  it('creates a memory with redacted text and metadata', async () => {
    const response = await create(t, {
      scope: 'user',
      scope_key: 'U1',
      type: 'fact',
      text: 'Deploy key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123 and password=hunter2',
      metadata: {
        lane_key: 'root:C1',
        summary_version: 2,
        message_range: { from: 'm1', to: 'm9' },
        extra: 'kept',
      },
      source: 'tool:remember',
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      created: true,
      deduplicated: false,
      redactions: { anthropic_key: 1, secret: 1 },
    });
    expect(body.memory.text).toBe('Deploy key is [REDACTED:anthropic_key] and password=[REDACTED:secret]');
    expect(body.memory).toMatchObject({
      scope: 'user',
      scope_key: 'U1',
      type: 'fact',
      source: 'tool:remember',
      metadata: { lane_key: 'root:C1', summary_version: 2, extra: 'kept' },
      expires_at: null,
    });
    const read = await t.inject({ url: `/v1/memories/${body.memory.id}` });
    expect(read.json()).toEqual(body.memory);
  });

  it('stores none of the secrets a review found stored before, and says which kinds it replaced', async () => {
    const response = await create(t, {
      scope: 'user',
      scope_key: 'U-secrets',
      type: 'fact',
      text: [
        'alerts: https://hooks.slack.com/services/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',
        'cache: redis://:pa55w0rd@cache:6379',
        'bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0',
        'my password is hunter2hunter2, and password=Tr0ub4dor&3 for the other one',
      ].join('\n'),
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.memory.text).toBe(
      [
        'alerts: [REDACTED:slack_webhook]',
        'cache: redis://:[REDACTED:password]@cache:6379',
        'bot [REDACTED:telegram_bot_token]',
        'my password is [REDACTED:password], and password=[REDACTED:secret] for the other one',
      ].join('\n'),
    );
    expect(body.redactions).toEqual({ slack_webhook: 1, password: 2, telegram_bot_token: 1, secret: 1 });
    expect((await t.inject({ url: `/v1/memories/${body.memory.id}` })).json().text).toBe(body.memory.text);
  });

  it('returns the older record for the same normalized text in the same scope and type', async () => {
    const first = await create(t, {
      scope: 'channel',
      scope_key: 'slack:C1',
      type: 'preference',
      text: 'Prefers tea.',
    });
    expect(first.statusCode).toBe(201);
    const again = await create(t, {
      scope: 'channel',
      scope_key: 'slack:C1',
      type: 'preference',
      text: '  prefers   TEA ',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({
      created: false,
      deduplicated: true,
      memory: { id: first.json().memory.id, text: 'Prefers tea.' },
    });
    // Another scope key or type is another record.
    const other = await create(t, {
      scope: 'channel',
      scope_key: 'slack:C2',
      type: 'preference',
      text: 'Prefers tea.',
    });
    expect(other.statusCode).toBe(201);
    const list = await t.inject({ url: '/v1/memories?scope=channel&scope_key=slack:C1' });
    expect(list.json().memories).toHaveLength(1);
  });

  it('rejects bad input with a field path and stores nothing', async () => {
    const before = (await t.inject({ url: '/v1/memories?limit=200' })).json().memories.length;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ scope: 'planet', type: 'fact', text: 'x' }, 400, 'request.invalid'],
      [{ scope: 'user', type: 'fact', text: 'x' }, 400, 'memory.scope_key_required'],
      [{ scope: 'tenant', scope_key: 'a', type: 'fact', text: 'x' }, 400, 'memory.scope_key_not_allowed'],
      [{ scope: 'tenant', type: 'fact', text: '   ' }, 400, 'memory.empty_text'],
      [{ scope: 'tenant', type: 'opinion', text: 'x' }, 400, 'request.invalid'],
      [{ scope: 'tenant', type: 'fact', text: 'x', expires_at: 'tomorrow' }, 400, 'request.invalid'],
      [
        { scope: 'tenant', type: 'fact', text: 'x', expires_at: '2020-01-01T00:00:00Z' },
        400,
        'memory.expires_in_past',
      ],
      [{ scope: 'tenant', type: 'fact', text: 'x'.repeat(16_001) }, 413, 'memory.too_large'],
    ];
    for (const [payload, status, code] of cases) {
      const response = await create(t, payload);
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(status);
      expect(errorOf(response).code).toBe(code);
    }
    const invalid = errorOf(await create(t, { scope: 'planet', type: 'fact', text: 'x' }));
    expect(JSON.stringify(invalid.details)).toContain('body.scope');
    expect((await t.inject({ url: '/v1/memories?limit=200' })).json().memories).toHaveLength(before);
  });

  it('accepts exactly the size limit', async () => {
    const response = await create(t, { scope: 'tenant', type: 'event', text: 'y'.repeat(16_000) });
    expect(response.statusCode).toBe(201);
  });

  it('replays an Idempotency-Key and refuses it for another body', async () => {
    const headers = { 'idempotency-key': 'mem-1' };
    const payload = {
      scope: 'session',
      scope_key: 'agent:a:slack:channel:C9',
      type: 'outcome',
      text: 'Migration ran',
    };
    const first = await create(t, payload, headers);
    const second = await create(t, payload, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    const reused = await create(t, { ...payload, text: 'Something else' }, headers);
    expect(reused.statusCode).toBe(409);
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });
});

describe('GET /v1/memories', () => {
  it('pages newest first with a cursor and filters by type', async () => {
    const tenant = await ctx.tenant();
    for (let i = 0; i < 5; i += 1) {
      ctx.clock.advance(1000);
      await create(tenant, {
        scope: 'user',
        scope_key: 'U7',
        type: i % 2 ? 'event' : 'fact',
        text: `fact number ${i}`,
      });
    }
    const page1 = (await tenant.inject({ url: '/v1/memories?limit=2' })).json();
    expect(page1.memories.map((m: { text: string }) => m.text)).toEqual(['fact number 4', 'fact number 3']);
    const page2 = (await tenant.inject({ url: `/v1/memories?limit=2&cursor=${page1.next_cursor}` })).json();
    expect(page2.memories.map((m: { text: string }) => m.text)).toEqual(['fact number 2', 'fact number 1']);
    const page3 = (await tenant.inject({ url: `/v1/memories?limit=2&cursor=${page2.next_cursor}` })).json();
    expect(page3).toMatchObject({ next_cursor: null });
    expect(page3.memories).toHaveLength(1);
    const events = (await tenant.inject({ url: '/v1/memories?type=event' })).json();
    expect(events.memories).toHaveLength(2);
    expect((await tenant.inject({ url: '/v1/memories?limit=0' })).statusCode).toBe(400);
    expect((await tenant.inject({ url: '/v1/memories?cursor=nope' })).statusCode).toBe(400);
  });
});

describe('PATCH and DELETE /v1/memories/{id}', () => {
  it('updates text (redacted, re-keyed), merges metadata, and 409s on a colliding text', async () => {
    const a = (
      await create(t, {
        scope: 'user',
        scope_key: 'U2',
        type: 'fact',
        text: 'Lives in Paris',
        metadata: { lane_key: 'L1' },
      })
    ).json().memory;
    const b = (
      await create(t, { scope: 'user', scope_key: 'U2', type: 'fact', text: 'Works at Acme' })
    ).json().memory;
    ctx.clock.advance(5000);
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/memories/${a.id}`,
      payload: { text: 'Lives in Lyon; token: abcdef123456', metadata: { summary_version: 3 } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().memory).toMatchObject({
      text: 'Lives in Lyon; token: [REDACTED:secret]',
      metadata: { lane_key: 'L1', summary_version: 3 },
    });
    expect(patched.json().memory.updated_at).not.toBe(a.updated_at);
    const collide = await t.inject({
      method: 'PATCH',
      url: `/v1/memories/${b.id}`,
      payload: { text: 'lives in lyon; token: [REDACTED:secret]' },
    });
    expect(collide.statusCode).toBe(409);
    expect(errorOf(collide).code).toBe('memory.duplicate');
    expect((await t.inject({ url: `/v1/memories/${b.id}` })).json().text).toBe('Works at Acme');
    expect((await t.inject({ method: 'PATCH', url: `/v1/memories/${b.id}`, payload: {} })).statusCode).toBe(
      400,
    );
    const big = await t.inject({
      method: 'PATCH',
      url: `/v1/memories/${b.id}`,
      payload: { text: 'z'.repeat(20_000) },
    });
    expect(big.statusCode).toBe(413);
  });

  it('deletes, then 404s', async () => {
    const m = (await create(t, { scope: 'tenant', type: 'event', text: 'Launch happened' })).json().memory;
    const deleted = await t.inject({ method: 'DELETE', url: `/v1/memories/${m.id}` });
    expect(deleted.statusCode).toBe(204);
    expect((await t.inject({ url: `/v1/memories/${m.id}` })).statusCode).toBe(404);
    const again = await t.inject({ method: 'DELETE', url: `/v1/memories/${m.id}` });
    expect(errorOf(again).code).toBe('memory.not_found');
    expect((await t.inject({ url: '/v1/memories/not-a-uuid' })).statusCode).toBe(400);
  });

  it('hides expired memories and lets the same text be written again', async () => {
    const tenant = await ctx.tenant();
    const expiresAt = new Date(ctx.clock.now().getTime() + 60_000).toISOString();
    const m = (
      await create(tenant, {
        scope: 'tenant',
        type: 'fact',
        text: 'Temporary code is 42',
        expires_at: expiresAt,
      })
    ).json().memory;
    expect((await tenant.inject({ url: `/v1/memories/${m.id}` })).statusCode).toBe(200);
    ctx.clock.advance(61_000);
    expect((await tenant.inject({ url: `/v1/memories/${m.id}` })).statusCode).toBe(404);
    expect((await tenant.inject({ url: '/v1/memories' })).json().memories).toHaveLength(0);
    const again = await create(tenant, { scope: 'tenant', type: 'fact', text: 'Temporary code is 42' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ created: true, memory: { expires_at: null } });
  });

  it("never reaches another tenant's memory", async () => {
    const other = await ctx.tenant();
    const m = (await create(t, { scope: 'tenant', type: 'fact', text: 'Secret plan of tenant one' })).json()
      .memory;
    expect((await other.inject({ url: `/v1/memories/${m.id}` })).statusCode).toBe(404);
    expect(
      (await other.inject({ method: 'PATCH', url: `/v1/memories/${m.id}`, payload: { text: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect((await other.inject({ method: 'DELETE', url: `/v1/memories/${m.id}` })).statusCode).toBe(404);
    expect((await other.inject({ url: '/v1/memories' })).json().memories).toHaveLength(0);
    const search = await other.inject({
      method: 'POST',
      url: '/v1/memories/search',
      payload: { query: 'secret plan' },
    });
    expect(search.json().results).toHaveLength(0);
    expect((await t.inject({ url: `/v1/memories/${m.id}` })).statusCode).toBe(200);
  });
});
