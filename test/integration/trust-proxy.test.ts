// TRUST_PROXY: behind a proxy, unauthenticated webhook callers are rate-limited by their own
// address (X-Forwarded-For) only when the proxy is trusted; otherwise all share the proxy's bucket.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app.js';

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** A webhook delivery from `client` through a proxy at 10.0.0.5 (the signature is not checked before the limit). */
const deliver = (app: TestContext['app'], client: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/webhooks/telegram/acme',
    remoteAddress: '10.0.0.5',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    payload: { update_id: 1 },
  });

async function statusesFor(env: Record<string, string>): Promise<{ first: number[]; other: number }> {
  ctx = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '2', ...env } });
  const first = [];
  for (let i = 0; i < 3; i++) first.push((await deliver(ctx.app, '203.0.113.7')).statusCode);
  const other = (await deliver(ctx.app, '198.51.100.9')).statusCode;
  return { first, other };
}

describe('TRUST_PROXY', () => {
  it('unset: every client behind the proxy shares the proxy address bucket', async () => {
    const { first, other } = await statusesFor({});
    expect(first[2]).toBe(429);
    expect(other).toBe(429);
  });

  it.each([['true'], ['10.0.0.0/8'], ['uniquelocal']])(
    '%s: clients get separate buckets by X-Forwarded-For',
    async (value) => {
      const { first, other } = await statusesFor({ TRUST_PROXY: value });
      expect(first[0]).not.toBe(429);
      expect(first[2]).toBe(429);
      expect(other).not.toBe(429);
    },
  );

  it('a list that does not include the proxy keeps the shared bucket', async () => {
    const { other } = await statusesFor({ TRUST_PROXY: '192.168.0.1, fd00::/8' });
    expect(other).toBe(429);
  });
});
