// Who may read /metrics — the bearer METRICS_TOKEN (not a tenant's key), a port of its own
// (METRICS_PORT), nobody in production with neither — and the refusal families: 429s by route,
// webhook authentication failures by platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startMetricsServer } from '../../src/http/metrics.js';
import { createTestApp, type TestContext } from '../helpers/app.js';

const TOKEN = 'metrics-token-0123456789';

/** The value of one series in a /metrics text (0 when absent). */
function valueOf(body: string, name: string, labels: Record<string, string>): number {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('/metrics behind METRICS_TOKEN', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => ctx?.close());

  it('refuses a request without the token or with a tenant key, answers one with it', async () => {
    const none = await ctx.app.inject({ url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ error: { code: 'metrics.unauthorized' } });
    const tenant = await ctx.tenant();
    expect((await tenant.inject({ url: '/metrics' })).statusCode).toBe(401);
    const ok = await ctx.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('contextd_http_request_duration_seconds');
  });

  it('counts 429s by route and webhook authentication failures by platform', async () => {
    const tenant = await ctx.tenant();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push(
        (await tenant.inject({ url: '/v1/sessions/00000000-0000-0000-0000-000000000000' })).statusCode,
      );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/v1/webhooks/slack/no-such-tenant',
      headers: {
        'content-type': 'application/json',
        'x-slack-signature': 'v0=00',
        'x-slack-request-timestamp': '1',
      },
      payload: '{}',
    });
    expect(refused.statusCode).toBe(401);
    const body = (await ctx.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
      .body;
    expect(valueOf(body, 'contextd_rate_limited_total', { route: '/v1/sessions/:id' })).toBe(
      statuses.filter((s) => s === 429).length,
    );
    expect(valueOf(body, 'contextd_webhook_auth_failures_total', { platform: 'slack' })).toBe(1);
  });
});

describe('/metrics elsewhere', () => {
  it('is not served on the API port in production without METRICS_TOKEN or METRICS_PORT', async () => {
    const ctx = await createTestApp({ env: { NODE_ENV: 'production' } });
    expect((await ctx.app.inject({ url: '/metrics' })).statusCode).toBe(404);
    await ctx.close();
  });

  it('with METRICS_PORT, is served on that port only, behind the token when set', async () => {
    const ctx = await createTestApp({ env: { METRICS_PORT: '0' } });
    expect((await ctx.app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const server = await startMetricsServer(ctx.app.deps.metrics, {
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('contextd_lock_fallbacks_total');
      expect((await fetch(`${base}/v1/sessions`)).status).toBe(404);
    } finally {
      await server.close();
      await ctx.close();
    }
  });

  it('refuses a short token or a port that is not one', () => {
    expect(() => parseConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => parseConfig({ METRICS_PORT: 'http' })).toThrow(/METRICS_PORT/);
  });
});
