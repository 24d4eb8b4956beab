// The foundation through HTTP: health, readiness, auth and tenancy, the error shape, OpenAPI.
import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApi } from '../../src/http/openapi.js';
import { createTestApp, errorOf, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

describe('operations endpoints', () => {
  it('answers /healthz and /readyz without a key', async () => {
    expect((await ctx.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await ctx.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', checks: { postgres: 'ok', migrations: 'ok' } });
  });

  it('goes 503 on /readyz while draining', async () => {
    ctx.app.lifecycle.draining = true;
    try {
      const ready = await ctx.app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'not_ready', draining: true });
    } finally {
      ctx.app.lifecycle.draining = false;
    }
  });

  it('serves Prometheus metrics with per-route latency histograms', async () => {
    await ctx.app.inject({ url: '/healthz' });
    const metrics = await ctx.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/contextd_http_request_duration_seconds_bucket\{[^}]*route="\/healthz"/);
  });

  it('serves Swagger UI at /docs and the document at /openapi.json', async () => {
    const docs = await ctx.app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
    const doc = await ctx.app.inject({ url: '/openapi.json' });
    expect(doc.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'contextd' } });
  });

  it('echoes a request id header, and a given one back', async () => {
    const response = await ctx.app.inject({ url: '/healthz' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const given = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'req-123' } });
    expect(given.headers['x-request-id']).toBe('req-123');
  });
});

describe('auth', () => {
  it('requires a bearer key under /v1', async () => {
    const missing = await ctx.app.inject({ url: '/v1/sessions' });
    expect(missing.statusCode).toBe(401);
    expect(errorOf(missing).code).toBe('auth.missing_key');
    const wrong = await ctx.app.inject({ url: '/v1/sessions', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(errorOf(wrong).code).toBe('auth.invalid_key');
    const malformed = await ctx.app.inject({ url: '/v1/sessions', headers: { authorization: 'Basic abc' } });
    expect(errorOf(malformed).code).toBe('auth.missing_key');
  });

  it('rejects a revoked key', async () => {
    const tenant = await ctx.tenant();
    const [key] = await ctx.app.services.tenants.listApiKeys(tenant.tenantId);
    await ctx.app.services.tenants.revokeApiKey({ tenantId: tenant.tenantId, id: key!.id, at: new Date() });
    // A fresh app instance has no cached lookup.
    const second = await createTestApp({ testDb: ctx.testDb });
    try {
      const response = await second.app.inject({ url: '/v1/nothing', headers: tenant.headers });
      expect(response.statusCode).toBe(401);
    } finally {
      await second.close();
    }
  });

  it('lets a valid key through to the router (unknown route → 404 in the error shape)', async () => {
    const tenant = await ctx.tenant();
    const response = await tenant.inject({ url: '/v1/no-such-route' });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({ code: 'route.not_found' });
  });
});

describe('logs', () => {
  it('writes JSON lines with the request id and never the API key', async () => {
    const lines: string[] = [];
    const logged = await createTestApp({
      testDb: ctx.testDb,
      env: { LOG_LEVEL: 'info' },
      logger: { stream: { write: (line) => lines.push(line) } },
    });
    try {
      const tenant = await logged.tenant();
      const response = await tenant.inject({ url: '/v1/me', headers: { 'x-request-id': 'log-check-1' } });
      expect(response.statusCode).toBe(200);
      const records = lines.map((l) => JSON.parse(l) as { reqId?: string });
      expect(records.some((r) => r.reqId === 'log-check-1')).toBe(true);
      expect(lines.join('\n')).not.toContain(tenant.key);
    } finally {
      await logged.close();
    }
  });
});

describe('OpenAPI document', () => {
  it('matches the committed openapi/openapi.json (run `npm run openapi` after changing routes)', async () => {
    const committed = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
    expect(await renderOpenApi()).toBe(committed);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
    await expect(SwaggerParser.validate(doc)).resolves.toBeTruthy();
  });
});
