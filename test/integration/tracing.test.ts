// OpenTelemetry tracing against a local OTLP/HTTP receiver (a server this test starts): the app
// configured by the standard OTEL_* variables exports its spans when it closes (the batch is
// flushed), in JSON or protobuf; a request carrying `traceparent` continues that trace (its route
// span is the caller's span's child, the steps' spans are the route span's); a malformed one
// starts a new trace and the request still succeeds; an unknown exporter stops the configuration
// with the variable named; with nothing configured no span records.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { tracingSettings } from '../../src/telemetry/tracing.js';
import { createTestApp, testConfig } from '../helpers/app.js';

interface Export {
  path: string;
  contentType: string;
  body: Buffer;
}

let receiver: Server;
let endpoint: string;
const exports: Export[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' });
      res.end(req.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

function jsonSpans(from: Export[]): JsonSpan[] {
  return from.flatMap((e) => {
    const body = JSON.parse(e.body.toString()) as {
      resourceSpans: { scopeSpans: { spans: JsonSpan[] }[] }[];
    };
    return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  });
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

async function sessionOf(tenant: { inject: (o: object) => Promise<{ json(): unknown }> }) {
  const created = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'C1' },
  });
  return (created.json() as { session: { id: string } }).session.id;
}

describe('tracing over OTLP/HTTP', () => {
  it('continues the caller’s traceparent in JSON, and starts a new trace for a malformed one', async () => {
    const ctx = await createTestApp({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'ctxd-test',
      },
    });
    const t = await ctx.tenant();
    const sessionId = await sessionOf(t);
    const traced = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/compact`,
      payload: { wait: true },
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    });
    expect(traced.statusCode).toBeLessThan(300);
    const context = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'what blocks the rollout?' } },
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    });
    expect(context.statusCode).toBe(200);
    const malformed = await t.inject({
      method: 'GET',
      url: `/v1/sessions/${sessionId}`,
      headers: { traceparent: '00-not-a-trace-id-01' },
    });
    expect(malformed.statusCode).toBe(200);
    const before = exports.length;
    await ctx.close(); // flushes the batch
    const sent = exports.slice(before);
    expect(sent.map((e) => [e.path, e.contentType])).toContainEqual(['/v1/traces', 'application/json']);
    expect(sent[0]!.body.toString()).toContain('"ctxd-test"');

    const spans = jsonSpans(sent);
    const route = spans.find((s) => s.name === 'POST /v1/sessions/:id/compact')!;
    expect(route).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN, kind: 2 });
    expect(route.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 200 } });
    const compaction = spans.find((s) => s.name === 'compaction')!;
    expect(compaction).toMatchObject({ traceId: TRACE_ID, parentSpanId: route.spanId });

    // The context call's steps are its route span's children, in the caller's trace.
    const call = spans.find((s) => s.name === 'POST /v1/sessions/:id/context')!;
    expect(call).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN });
    const steps = spans.filter((s) => s.parentSpanId === call.spanId).map((s) => s.name);
    expect(steps).toEqual(expect.arrayContaining(['load', 'retrieval', 'assembly', 'record']));

    const get = spans.find((s) => s.name === 'GET /v1/sessions/:id')!;
    expect(get.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(get.traceId).not.toBe(TRACE_ID);
    expect(get.parentSpanId ?? '').toBe('');
  });

  it('exports protobuf by default', async () => {
    const ctx = await createTestApp({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/custom/traces` },
    });
    const t = await ctx.tenant();
    await sessionOf(t);
    const before = exports.length;
    await ctx.close();
    const sent = exports.slice(before);
    expect(sent.map((e) => [e.path, e.contentType])).toContainEqual([
      '/custom/traces',
      'application/x-protobuf',
    ]);
    expect(Buffer.concat(sent.map((e) => e.body)).includes('POST /v1/sessions')).toBe(true);
  });
});

describe('tracing configuration', () => {
  it('is off, recording nothing, when no OTEL_* variable asks for it', async () => {
    expect(tracingSettings(testConfig())).toBeNull();
    expect(
      tracingSettings(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' })),
    ).toBeNull();
    expect(
      tracingSettings(testConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })),
    ).toBeNull();
    const ctx = await createTestApp();
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    await ctx.close();
  });

  it('defaults to the specification’s endpoint and protocol for OTEL_TRACES_EXPORTER=otlp', () => {
    expect(
      tracingSettings(
        testConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%20b' }),
      ),
    ).toEqual({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { 'x-key': 'a b' },
      serviceName: 'contextd',
    });
  });

  it.each([
    ['OTEL_TRACES_EXPORTER', 'zipkin'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_HEADERS', 'no-equals-sign'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    let error: unknown;
    try {
      parseConfig({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable)).toEqual([variable]);
  });
});
