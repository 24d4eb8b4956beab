// Bad input never yields a 500: every documented route gets malformed JSON, wrong content types,
// bodies over the limit, wrong JSON types and hostile path/query values; then a generative sweep
// (fast-check, seeded) sends requests built from each operation's schemas to break them, and checks
// that no 4xx left a partial write. New routes are covered automatically because the list comes
// from the OpenAPI document.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import {
  operationRequests,
  type GeneratedRequest,
  type OpenApiDocument,
} from '../helpers/openapi-violations.js';

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

/** Row counts of every table of the public schema, as one statement. */
async function tableCounts(): Promise<Record<string, number>> {
  const tables = await queryRows<{ name: string }>(
    ctx.deps.database.db,
    sql`select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const union = tables
    .map((t) => `select '${t.name}' as name, count(*)::int as n from "${t.name}"`)
    .join(' union all ');
  const rows = await queryRows<{ name: string; n: number }>(ctx.deps.database.db, sql.raw(union));
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

const SWEEP_SEED = 20_261_124;
const REQUESTS_PER_OPERATION = 64;

describe('generative bad-input sweep (fast-check over the OpenAPI schemas)', () => {
  it(`sends ${REQUESTS_PER_OPERATION} schema-breaking requests per operation: no 5xx, no write on a 4xx`, async () => {
    // Real resources, so half the requests get past "not found" to the deeper checks.
    const created = async (request: Parameters<TestTenant['inject']>[0]) => {
      const response = await tenant.inject(request);
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json() as Record<string, unknown>;
    };
    const sessionReply = await created({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'sweep:1' },
    });
    const session = (sessionReply.session as { id: string }).id;
    const memoryReply = await created({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'tenant', type: 'fact', text: 'Prefers tea.' },
    });
    const memory = String(memoryReply.id ?? (memoryReply.memory as { id?: string } | undefined)?.id);
    await created({
      method: 'PUT',
      url: '/v1/agents/bot/sections/SOUL.md',
      payload: { content: 'Be kind.' },
    });
    const root = {
      type: 'message.created',
      platform: 'slack',
      channel_id: 'C1',
      message_id: '1.1',
      ts: '2026-01-01T00:00:00Z',
      author: { id: 'U1' },
      text: 'root',
    };
    await created({ method: 'POST', url: '/v1/events', payload: { events: [root] } });
    const blobReply = await created({
      method: 'POST',
      url: '/v1/blobs',
      payload: 'hello',
      headers: { 'content-type': 'text/plain', 'x-filename': 'a.txt' },
    });
    const blob = String(blobReply.artifact_id);
    const known = (name: string, path: string): string | undefined => {
      if (name === 'id') return path.startsWith('/v1/memories') ? memory : session;
      return (
        {
          artifactId: blob,
          agentId: 'bot',
          name: path.includes('/tools/') ? 'search_channel' : 'SOUL.md',
          platform: 'slack',
          channelId: 'C1',
          threadId: '1.1',
          lane: 'main',
          tenantId: tenant.tenantId,
        } as Record<string, string>
      )[name];
    };

    const doc = ctx.app.swagger() as unknown as OpenApiDocument;
    const serverErrors: string[] = [];
    const partialWrites: string[] = [];
    const byKind: Record<string, number> = {};
    const byStatus: Record<number, number> = {};
    let sent = 0;
    let counts = await tableCounts();
    for (const [index, { method, path }] of routes.entries()) {
      const requests = fc.sample(operationRequests(doc, method.toLowerCase(), path, known), {
        seed: SWEEP_SEED + index,
        numRuns: REQUESTS_PER_OPERATION,
      });
      for (const request of requests) {
        const response = await send(request);
        sent += 1;
        byKind[request.kind] = (byKind[request.kind] ?? 0) + 1;
        byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
        const where = `${request.method} ${path} (${request.kind}) ${request.url.slice(0, 160)} ${(request.payload ?? '').slice(0, 160)}`;
        if (response.statusCode >= 500)
          serverErrors.push(`${response.statusCode} ${where}: ${response.body.slice(0, 200)}`);
        const after = await tableCounts();
        if (response.statusCode >= 400 && response.statusCode < 500) {
          const changed = Object.keys(after).filter((t) => after[t] !== counts[t]);
          if (changed.length > 0)
            partialWrites.push(`${response.statusCode} ${where}: ${changed.join(', ')} changed`);
        }
        counts = after;
      }
    }
    console.warn(`bad-input sweep: ${sent} requests over ${routes.length} operations`, byKind, byStatus);
    expect(sent).toBeGreaterThanOrEqual(2_000);
    expect(serverErrors).toEqual([]);
    expect(partialWrites).toEqual([]);
    // ~10 s alone; minutes on a loaded 2-core machine (a row count after each request).
  }, 300_000);
});

/** Sends a generated request as the sweep's tenant. */
async function send(request: GeneratedRequest) {
  return tenant.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  });
}

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
