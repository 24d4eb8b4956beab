// Idempotency-Key across writes: replies with an empty body (204) replay, every write replays with
// the `idempotent-replayed` header, and another body under a used key is a 409. Compaction jobs
// wait here (no worker), so a second request meets the first one's queued job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { COMPACTION_WORKERS: '0' } });
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

let channelSeq = 0;
async function session(): Promise<string> {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `C${++channelSeq}` },
  });
  expect(response.statusCode).toBe(201);
  return response.json().session.id as string;
}

const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

describe('writes with an empty reply', () => {
  it('DELETE /v1/memories/{id} with a key deletes once and replays the 204', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'user', scope_key: 'U1', type: 'fact', text: 'likes green' },
    });
    const id = created.json().memory.id as string;
    const headers = key('del-memory');
    const first = await t.inject({ method: 'DELETE', url: `/v1/memories/${id}`, headers });
    expect(first.statusCode).toBe(204);
    expect(first.body).toBe('');
    const again = await t.inject({ method: 'DELETE', url: `/v1/memories/${id}`, headers });
    expect(again.statusCode).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const read = await t.inject({ url: `/v1/memories/${id}` });
    expect(read.statusCode).toBe(404);
    // Without the key the second delete is a plain 404.
    const unkeyed = await t.inject({ method: 'DELETE', url: `/v1/memories/${id}` });
    expect(errorOf(unkeyed).code).toBe('memory.not_found');
  });

  it('DELETE …/pending-slot with a key answers 204 and replays it', async () => {
    const id = await session();
    const url = `/v1/sessions/${id}/lanes/root%3AC1/pending-slot`;
    const set = await t.inject({
      method: 'PUT',
      url,
      payload: { name: 'date', type: 'date', prompt: 'When?' },
    });
    expect(set.statusCode).toBe(200);
    const headers = key('del-slot');
    const first = await t.inject({ method: 'DELETE', url, headers });
    expect(first.statusCode).toBe(204);
    const again = await t.inject({ method: 'DELETE', url, headers });
    expect(again.statusCode).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('writes that honour Idempotency-Key like every other', () => {
  it('PUT /v1/agents/{agentId}/sections/{name}: replays the first reply; another body is a 409', async () => {
    const url = '/v1/agents/bot/sections/persona';
    const headers = key('section');
    const first = await t.inject({ method: 'PUT', url, headers, payload: { content: 'You are terse.' } });
    expect(first.statusCode).toBe(201);
    // Changed meanwhile without the key: the keyed retry still gets the first reply, not a write.
    const other = await t.inject({ method: 'PUT', url, payload: { content: 'You are chatty.' } });
    expect(other.statusCode).toBe(200);
    const again = await t.inject({ method: 'PUT', url, headers, payload: { content: 'You are terse.' } });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await t.inject({ url })).json().content).toBe('You are chatty.');
    const reused = await t.inject({ method: 'PUT', url, headers, payload: { content: 'else' } });
    expect(reused.statusCode).toBe(409);
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });

  it('POST /v1/blobs: a retry replays the 201; other bytes under the key are a 409', async () => {
    const headers = { ...key('blob'), 'content-type': 'text/plain' };
    const first = await t.inject({ method: 'POST', url: '/v1/blobs', headers, payload: 'hello blob' });
    expect(first.statusCode).toBe(201);
    const again = await t.inject({ method: 'POST', url: '/v1/blobs', headers, payload: 'hello blob' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await t.inject({ method: 'POST', url: '/v1/blobs', headers, payload: 'other bytes' });
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });

  it('POST /v1/sessions: a retry replays the 201 created; another body is a 409', async () => {
    const headers = key('session');
    const payload = { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CKEY' };
    const first = await t.inject({ method: 'POST', url: '/v1/sessions', headers, payload });
    expect(first.statusCode).toBe(201);
    const again = await t.inject({ method: 'POST', url: '/v1/sessions', headers, payload });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers,
      payload: { ...payload, channel_id: 'COTHER' },
    });
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });

  it('DELETE /v1/sessions/{id}: a retry replays the 204 instead of a 404', async () => {
    const id = await session();
    const headers = key('del-session');
    const first = await t.inject({ method: 'DELETE', url: `/v1/sessions/${id}`, headers });
    expect(first.statusCode).toBe(204);
    const again = await t.inject({ method: 'DELETE', url: `/v1/sessions/${id}`, headers });
    expect(again.statusCode).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const unkeyed = await t.inject({ method: 'DELETE', url: `/v1/sessions/${id}` });
    expect(errorOf(unkeyed).code).toBe('session.not_found');
  });
});

describe('the other writes', () => {
  it('DELETE /v1/agents/{agentId}/sections/{name}: a retry replays the 204 instead of a 404', async () => {
    const url = '/v1/agents/bot/sections/gone';
    expect((await t.inject({ method: 'PUT', url, payload: { content: 'x' } })).statusCode).toBe(201);
    const headers = key('del-section');
    expect((await t.inject({ method: 'DELETE', url, headers })).statusCode).toBe(204);
    const again = await t.inject({ method: 'DELETE', url, headers });
    expect(again.statusCode).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('PUT /v1/agents/{agentId}/settings: replays; another body under the key is a 409', async () => {
    const url = '/v1/agents/bot/settings';
    const headers = key('settings');
    const first = await t.inject({ method: 'PUT', url, headers, payload: { history_turns: 4 } });
    expect(first.statusCode).toBe(200);
    const again = await t.inject({ method: 'PUT', url, headers, payload: { history_turns: 4 } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await t.inject({ method: 'PUT', url, headers, payload: { history_turns: 5 } });
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });

  it('POST /v1/events/{platform}: a retry replays the first reply', async () => {
    const update = {
      update_id: 7,
      message: {
        message_id: 70,
        from: { id: 5, is_bot: false, first_name: 'Ivan' },
        chat: { id: 99, type: 'private', first_name: 'Ivan' },
        date: 1767268800,
        text: 'once',
      },
    };
    const headers = key('platform');
    const first = await t.inject({ method: 'POST', url: '/v1/events/telegram', headers, payload: update });
    expect(first.json()).toMatchObject({ outcome: 'ingested', results: [{ outcome: 'created' }] });
    const again = await t.inject({ method: 'POST', url: '/v1/events/telegram', headers, payload: update });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await t.inject({
      method: 'POST',
      url: '/v1/events/telegram',
      headers,
      payload: { ...update, update_id: 8 },
    });
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
  });
});

describe('writes whose replay lacked the header, or that ignored the key', () => {
  /** Sends the same request twice and another body once under one key. */
  async function replays(
    request: { method: 'POST' | 'PUT' | 'PATCH'; url: string; payload: object },
    other: object,
  ) {
    const headers = key(request.url);
    const first = await t.inject({ ...request, headers });
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await t.inject({ ...request, headers });
    expect(again.statusCode).toBe(first.statusCode);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await t.inject({ ...request, headers, payload: other });
    expect(reused.statusCode).toBe(409);
    expect(errorOf(reused).code).toBe('idempotency.key_reused');
    return first;
  }

  it('POST /v1/events', async () => {
    const event = {
      type: 'message.created',
      platform: 'slack',
      channel_id: 'CEV',
      message_id: '1.1',
      ts: '2026-01-01T00:00:00Z',
      author: { id: 'U1' },
      text: 'hello',
    };
    await replays(
      { method: 'POST', url: '/v1/events', payload: { events: [event] } },
      { events: [{ ...event, text: 'x' }] },
    );
  });

  it('POST /v1/memories and PATCH /v1/memories/{id}', async () => {
    const created = await replays(
      {
        method: 'POST',
        url: '/v1/memories',
        payload: { scope: 'tenant', type: 'fact', text: 'Ships on Fridays.' },
      },
      { scope: 'tenant', type: 'fact', text: 'Ships on Mondays.' },
    );
    const id = created.json().memory.id as string;
    await replays(
      { method: 'PATCH', url: `/v1/memories/${id}`, payload: { text: 'Ships on Thursdays.' } },
      { text: 'other' },
    );
  });

  it('PUT /v1/tenant/summarizer: a replay with another body changes nothing', async () => {
    await replays(
      { method: 'PUT', url: '/v1/tenant/summarizer', payload: { monthly_token_cap: 100_000 } },
      { monthly_token_cap: 5 },
    );
    expect((await t.inject({ url: '/v1/tenant/summarizer' })).json().monthly_token_cap).toBe(100_000);
  });

  it('POST /v1/sessions/{id}/compact, queued (202) and run now (200)', async () => {
    const id = await session();
    const queued = await replays(
      { method: 'POST', url: `/v1/sessions/${id}/compact`, payload: {} },
      { force: false },
    );
    expect(queued.statusCode).toBe(202);
    const other = await session();
    const done = await replays(
      { method: 'POST', url: `/v1/sessions/${other}/compact`, payload: { wait: true } },
      { wait: true, force: false },
    );
    expect(done.statusCode).toBe(200);
  });

  it('a deduplicated compaction request answers the queued job, which can be polled', async () => {
    const id = await session();
    const first = await t.inject({ method: 'POST', url: `/v1/sessions/${id}/compact`, payload: {} });
    expect(first.statusCode).toBe(202);
    expect(first.json().deduplicated).toBe(false);
    const second = await t.inject({ method: 'POST', url: `/v1/sessions/${id}/compact`, payload: {} });
    expect(second.statusCode).toBe(202);
    expect(second.json()).toMatchObject({
      job_id: first.json().job_id,
      deduplicated: true,
      state: 'created',
    });
    const polled = await t.inject({ url: `/v1/sessions/${id}/compact/jobs/${second.json().job_id}` });
    expect(polled.statusCode).toBe(200);
    expect(polled.json().job_id).toBe(first.json().job_id);
  });
});
