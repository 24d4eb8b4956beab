// Bad input never yields a 500: every documented route gets malformed JSON, wrong content types,
// bodies over the limit, wrong JSON types and hostile path/query values. New routes are covered
// automatically because the list comes from the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

const BODY_LIMIT = 64 * 1024;
let ctx: TestContext;
let tenant: TestTenant;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  ctx = await createTestApp({
    env: { BODY_LIMIT_BYTES: String(BODY_LIMIT), BLOB_LIMIT_BYTES: String(BODY_LIMIT) },
  });
  tenant = await ctx.tenant();
  const doc = ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(async () => {
  await ctx?.close();
});

const HOSTILE = [
  "'; drop table sessions; --",
  '%00',
  '\u0000',
  '..%2F..%2Fetc',
  'x'.repeat(600),
  'y'.repeat(5000),
  '\u202e\u200b',
];
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, encodeURIComponent(value));

async function expectNo500(method: string, url: string, payload?: string, contentType?: string) {
  const response = await tenant.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload } : {}),
    headers: contentType ? { 'content-type': contentType } : {},
  });
  expect(
    response.statusCode,
    `${method} ${url} → ${response.statusCode} ${response.body.slice(0, 200)}`,
  ).toBeLessThan(500);
  if (response.statusCode >= 400) {
    const body = response.json() as { error?: { code?: string; message?: string } };
    expect(typeof body.error?.code, `${method} ${url} error shape`).toBe('string');
    expect(typeof body.error?.message).toBe('string');
  }
  return response;
}

describe('no route answers bad input with a 500', () => {
  it('documents at least the foundation routes', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['GET /healthz', 'GET /readyz', 'GET /v1/me']),
    );
  });

  it('handles malformed JSON, wrong content types and wrong JSON types', async () => {
    for (const { method, path } of routes) {
      const url = fill(path, 'nope');
      if (method === 'GET' || method === 'DELETE') {
        await expectNo500(method, `${url}?limit=-1&cursor=%7B%7D&offset=abc&anchor=%00`);
        continue;
      }
      await expectNo500(method, url, '{"broken": ', 'application/json');
      await expectNo500(method, url, 'plain text', 'text/plain');
      await expectNo500(method, url, '<xml/>', 'application/xml');
      for (const body of [
        '[1,2,3]',
        '"a string"',
        '42',
        'null',
        '{"unexpected":{"nested":[null,true]}}',
        '{}',
      ]) {
        await expectNo500(method, url, body, 'application/json');
      }
    }
  });

  it('answers bodies over the limit with 413', async () => {
    const huge = JSON.stringify({ text: 'x'.repeat(BODY_LIMIT + 10) });
    for (const { method, path } of routes.filter((r) => !['GET', 'DELETE'].includes(r.method))) {
      const response = await expectNo500(method, fill(path, 'nope'), huge, 'application/json');
      expect([413, 404, 401], `${method} ${path}`).toContain(response.statusCode);
    }
  });

  it('handles hostile path and query values', async () => {
    for (const { method, path } of routes.filter((r) => r.path.includes('{'))) {
      for (const value of HOSTILE) {
        const payload = ['GET', 'DELETE'].includes(method) ? undefined : '{}';
        await expectNo500(method, fill(path, value), payload, payload ? 'application/json' : undefined);
      }
    }
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After past the per-key limit', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' }, testDb: ctx.testDb });
    try {
      const t = await limited.tenant();
      const codes: number[] = [];
      let last;
      for (let i = 0; i < 4; i += 1) {
        last = await t.inject({ url: '/v1/me' });
        codes.push(last.statusCode);
      }
      expect(codes).toEqual([200, 200, 200, 429]);
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(last!.json()).toMatchObject({ error: { code: 'rate_limited' } });
      // Another key has its own budget.
      const other = await limited.tenant();
      expect((await other.inject({ url: '/v1/me' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
