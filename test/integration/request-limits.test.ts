// Request limits answered in the error shape, never with a 500: JSON nested past the depth limit
// (on every JSON route, before anything recursive sees it) and headers or URLs too large.
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/shared/json-depth.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
let writes: { method: string; path: string }[];
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  const doc = ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  writes = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((m) => ['post', 'put', 'patch'].includes(m))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(async () => {
  await ctx?.close();
});

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nestedArrays = (depth: number) => `{"metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const fill = (path: string) => path.replace(/\{[^}]+\}/g, 'nope');

describe('JSON nesting limit', () => {
  it('answers 400 request.json_too_deep on every JSON route for a document 5,000 levels deep', async () => {
    expect(writes.length).toBeGreaterThan(10);
    for (const { method, path } of writes) {
      for (const payload of [nested(5000), nestedArrays(5000)]) {
        const response = await t.inject({
          method: method as 'POST',
          url: fill(path),
          payload,
          headers: { 'content-type': 'application/json' },
        });
        const where = `${method} ${path} → ${response.statusCode} ${response.body.slice(0, 120)}`;
        if (path.startsWith('/v1/webhooks/') || path.startsWith('/v1/blobs')) {
          // Raw-body routes: a webhook checks its signature first, a blob is bytes.
          expect(response.statusCode, where).toBeLessThan(500);
          continue;
        }
        expect(response.statusCode, where).toBe(400);
        expect(errorOf(response), where).toMatchObject({
          code: 'request.json_too_deep',
          details: { max_depth: MAX_JSON_DEPTH },
        });
      }
    }
  });

  it('accepts a document exactly at the limit, and brackets inside strings do not count', async () => {
    // The body object is level 1, so metadata may nest MAX_JSON_DEPTH - 1 levels.
    const metadata = JSON.parse(nested(MAX_JSON_DEPTH - 1)) as unknown;
    const atLimit = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'user', scope_key: 'U1', type: 'fact', text: 'deep but fine', metadata },
    });
    expect(atLimit.statusCode).toBe(201);
    const brackets = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'user', scope_key: 'U1', type: 'fact', text: `"[{\\${'[{'.repeat(500)}` },
    });
    expect(brackets.statusCode).toBe(201);
    const over = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'user', scope_key: 'U1', type: 'fact', text: 'too deep', metadata: { metadata } },
    });
    expect(errorOf(over).code).toBe('request.json_too_deep');
  });
});

/** One raw HTTP/1.1 exchange (the limits are the HTTP parser's, before any route). */
function rawRequest(
  port: number,
  head: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...bodyParts] = data.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: bodyParts.join('\r\n\r\n') });
    });
  });
}

describe('headers and URLs over 16 KiB', () => {
  let port: number;
  beforeAll(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });

  it('answers 431 request.headers_too_large in the error shape for a large header', async () => {
    const response = await rawRequest(
      port,
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'request.headers_too_large', message: expect.any(String) },
    });
    // Refused before Fastify: the reply still carries a request id (the log line has the same one).
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 431 for a URL over the limit, and 400 request.malformed_http for garbage', async () => {
    const long = await rawRequest(
      port,
      `GET /v1/memories?q=${'b'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(long.status).toBe(431);
    expect(JSON.parse(long.body).error.code).toBe('request.headers_too_large');
    const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body).error.code).toBe('request.malformed_http');
    expect(garbage.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(garbage.headers['x-request-id']).not.toBe(long.headers['x-request-id']);
  });

  it('still serves a request with large but allowed headers', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/me`, {
      headers: { authorization: `Bearer ${t.key}`, 'x-big': 'c'.repeat(12_000) },
    });
    expect(response.status).toBe(200);
  });
});
