// Bounded work per instance: with MAX_WORK_IN_FLIGHT work requests running, the next one is
// answered 503 `overloaded` with Retry-After and nothing of it is written, while health, metrics and
// reads are still served; once the running work ends, work is admitted again. The work is held in
// flight deterministically: compactions with `wait` wait for a compaction lock the test holds.
// The typed client sends a refused request again after the reply's hint, until it is admitted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextdError, createContextdClient } from '@contextd/client';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

const LIMIT = 2;
let ctx: TestContext;
let tenant: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { MAX_WORK_IN_FLIGHT: String(LIMIT) } });
  tenant = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

let channel = 0;
async function session(): Promise<string> {
  const created = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `C${++channel}` },
  });
  expect(created.statusCode).toBe(201);
  return created.json().session.id as string;
}

async function workInFlight(): Promise<number> {
  const metrics = await ctx.app.inject({ url: '/metrics' });
  return Number(/^contextd_work_in_flight (\d+)/m.exec(metrics.body)?.[1] ?? 0);
}

async function shed(): Promise<number> {
  const metrics = await ctx.app.inject({ url: '/metrics' });
  return Number(/^contextd_work_shed_total (\d+)/m.exec(metrics.body)?.[1] ?? 0);
}

/** Holds LIMIT work requests in flight until `release` (compactions waiting for the session's lock). */
async function fillInstance(sessionId: string) {
  const lock = await ctx.deps.locks.acquire(`compaction:${tenant.tenantId}:${sessionId}`, {
    tenantId: tenant.tenantId,
  });
  expect(lock).not.toBeNull();
  const held = Array.from({ length: LIMIT }, () =>
    tenant.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/compact`, payload: { wait: true } }),
  );
  for (let i = 0; i < 10_000 && (await workInFlight()) < LIMIT; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(await workInFlight()).toBe(LIMIT);
  return async () => {
    await lock!.release();
    for (const response of await Promise.all(held)) expect(response.statusCode, response.body).toBe(200);
  };
}

describe('load shedding', () => {
  it('refuses work past the limit at once, keeps health and reads served, and admits again after', async () => {
    const busy = await session();
    const release = await fillInstance(busy);

    // Creating a session is work too.
    const create = await tenant.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'k:1' },
    });
    expect(create.statusCode).toBe(503);

    const refused = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${busy}/context`,
      payload: { message: { content: 'Is the release on Friday?' } },
    });
    expect(refused.statusCode).toBe(503);
    expect(errorOf(refused).code).toBe('overloaded');
    expect(refused.headers['retry-after']).toBe('1');
    // How long admitted work has lately taken, bounded: when to come back.
    const hint = Number(refused.headers['retry-after-ms']);
    expect(hint).toBeGreaterThanOrEqual(10);
    expect(hint).toBeLessThanOrEqual(1000);

    expect((await ctx.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await tenant.inject({ url: `/v1/sessions/${busy}` })).statusCode).toBe(200);
    // Nothing of the refused call was written.
    const transcript = await tenant.inject({ url: `/v1/sessions/${busy}/transcript` });
    expect(transcript.json().entries).toEqual([]);
    expect(await ctx.app.inject({ url: '/metrics' }).then((r) => r.body)).toMatch(
      /^contextd_work_shed_total [1-9]/m,
    );

    await release();
    expect(await workInFlight()).toBe(0);
    const admitted = await tenant.inject({
      method: 'POST',
      url: `/v1/sessions/${busy}/context`,
      payload: { message: { content: 'Is the release on Friday?' } },
    });
    expect(admitted.statusCode, admitted.body).toBe(200);
  });

  it('a refused request and requests that fail count nothing after they are answered', async () => {
    const bad = await tenant.inject({ method: 'POST', url: '/v1/memories', payload: { nope: true } });
    expect(bad.statusCode).toBe(400);
    const unknown = await tenant.inject({
      method: 'POST',
      url: '/v1/sessions/00000000-0000-4000-8000-000000000000/context',
      payload: { message: { content: 'hi' } },
    });
    expect(unknown.statusCode).toBe(404);
    const unauthenticated = await ctx.app.inject({ method: 'POST', url: '/v1/memories', payload: {} });
    expect(unauthenticated.statusCode).toBe(401);
    expect(await workInFlight()).toBe(0);
  });

  it('the typed client sends a refused call again until it is admitted, and gives up when told to', async () => {
    const baseUrl = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const busy = await session();
    const patient = createContextdClient({ baseUrl, apiKey: tenant.key, overloadRetries: 100_000 });
    const impatient = createContextdClient({ baseUrl, apiKey: tenant.key, overloadRetries: 0 });
    const release = await fillInstance(busy);

    const refusedBefore = await shed();
    const refused = await impatient
      .context(busy, { message: { content: 'Is the release on Friday?' } }, { idempotencyKey: 'ask-1' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ContextdError);
    expect((refused as ContextdError).status).toBe(503);
    expect((refused as ContextdError).code).toBe('overloaded');
    expect(await shed()).toBe(refusedBefore + 1);

    // The patient client is refused at least once, then admitted once the instance has room.
    const asked = patient.context(
      busy,
      { message: { content: 'Is the release on Friday?' } },
      { idempotencyKey: 'ask-1' },
    );
    for (let i = 0; i < 10_000 && (await shed()) < refusedBefore + 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await shed()).toBeGreaterThanOrEqual(refusedBefore + 2);
    await release();
    const reply = await asked;
    expect(reply.payload.messages.at(-1)?.role).toBe('user');
    // Sent once as far as the session knows: one user turn, not one per refusal.
    const transcript = await tenant.inject({ url: `/v1/sessions/${busy}/transcript` });
    expect(transcript.json().entries).toHaveLength(1);
  });
});
