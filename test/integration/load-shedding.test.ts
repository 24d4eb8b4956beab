// Bounded work per instance: with MAX_WORK_IN_FLIGHT work requests running, the next one is
// answered 503 `overloaded` with Retry-After and nothing of it is written, while health, metrics and
// reads are still served; once the running work ends, work is admitted again. The work is held in
// flight deterministically: compactions with `wait` wait for a compaction lock the test holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('load shedding', () => {
  it('refuses work past the limit at once, keeps health and reads served, and admits again after', async () => {
    const busy = await session();
    const lock = await ctx.deps.locks.acquire(`compaction:${tenant.tenantId}:${busy}`, {
      tenantId: tenant.tenantId,
    });
    expect(lock).not.toBeNull();
    const held = Array.from({ length: LIMIT }, () =>
      tenant.inject({ method: 'POST', url: `/v1/sessions/${busy}/compact`, payload: { wait: true } }),
    );
    // Both wait for the lock: the instance runs LIMIT work requests.
    for (let i = 0; i < 10_000 && (await workInFlight()) < LIMIT; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await workInFlight()).toBe(LIMIT);

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

    expect((await ctx.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await tenant.inject({ url: `/v1/sessions/${busy}` })).statusCode).toBe(200);
    // Nothing of the refused call was written.
    const transcript = await tenant.inject({ url: `/v1/sessions/${busy}/transcript` });
    expect(transcript.json().entries).toEqual([]);
    expect(await ctx.app.inject({ url: '/metrics' }).then((r) => r.body)).toMatch(
      /^contextd_work_shed_total [1-9]/m,
    );

    await lock!.release();
    for (const response of await Promise.all(held)) expect(response.statusCode, response.body).toBe(200);
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
});
