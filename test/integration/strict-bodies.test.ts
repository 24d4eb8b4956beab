// A field a request body does not define is a 400 that names its path (a misspelled `budjet` used
// to be dropped and the call answered with defaults), and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let tenant: TestTenant;
let sessionId: string;

beforeAll(async () => {
  ctx = await createTestApp();
  tenant = await ctx.tenant();
  const created = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { session_key: 'strict:1' },
  });
  sessionId = (created.json() as { session: { id: string } }).session.id;
});
afterAll(async () => {
  await ctx?.close();
});

async function refused(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown, path: string) {
  const response = await tenant.inject({ method, url, payload: payload as object });
  expect(response.statusCode, response.body).toBe(400);
  const { error } = response.json() as {
    error: { code: string; message: string; details: { path: string }[] };
  };
  expect(error.code).toBe('request.invalid');
  expect(error.details.map((d) => d.path)).toContain(path);
  expect(error.message).toContain(path);
}

describe('unknown fields in a request body', () => {
  it('a misspelled top-level field of the context call is a 400 naming it', async () => {
    await refused(
      'POST',
      `/v1/sessions/${sessionId}/context`,
      { message: { content: 'hi' }, budjet: { total: 9 } },
      'body.budjet',
    );
  });

  it('a misspelled nested field is named by its full path', async () => {
    await refused(
      'POST',
      `/v1/sessions/${sessionId}/context`,
      { message: { content: 'hi' }, budget: { totl: 9000 } },
      'body.budget.totl',
    );
    await refused(
      'POST',
      '/v1/events',
      {
        events: [
          {
            type: 'message.created',
            platform: 'slack',
            channel_id: 'C1',
            message_id: '1.1',
            ts: '2026-01-01T00:00:00Z',
            author: { id: 'U1', nme: 'maria' },
            text: 'hello',
          },
        ],
      },
      'body.events.0.author.nme',
    );
  });

  it('nothing is written when a body is refused', async () => {
    await refused(
      'POST',
      '/v1/memories',
      { scope: 'tenant', type: 'fact', text: 'Prefers tea.', scopee: 'x' },
      'body.scopee',
    );
    await refused(
      'POST',
      `/v1/sessions/${sessionId}/turns`,
      { turns: [{ role: 'user', content: 'hello', lane: 'main' }] },
      'body.turns.0.lane',
    );
    const memories = await tenant.inject({ url: '/v1/memories' });
    expect((memories.json() as { memories: unknown[] }).memories).toEqual([]);
    const transcript = await tenant.inject({ url: `/v1/sessions/${sessionId}/transcript` });
    expect(transcript.statusCode).toBe(200);
    expect((transcript.json() as { entries: unknown[] }).entries).toEqual([]);
  });

  it('objects documented as open keep accepting what they are given', async () => {
    // Usage is taken for the payload of a context call.
    const call = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'hi' } },
    });
    expect(call.statusCode, call.body).toBe(200);
    const response = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'ok', citations: null }],
            usage: { input_tokens: 10, output_tokens: 2, service_tier: 'standard' },
          },
        ],
      },
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
  });
});
