// OpenTelemetry tracing from the standard OTEL_* variables: a tracer provider exporting over
// OTLP/HTTP (protobuf or JSON) in batches, the caller's W3C `traceparent` continued (a malformed
// one starts a new trace), and one SERVER span per request named after its route. Off — no
// provider, no hooks — unless an exporter or endpoint is configured.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

interface TracingSettings {
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
}

/** Where and how spans are exported, or null when tracing is off. */
export function tracingSettings(config: Config): TracingSettings | null {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return null;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  const explicit = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!config.OTEL_TRACES_EXPORTER && !base && !explicit) return null;
  // The specification's default endpoint for OTLP/HTTP.
  const url = explicit ?? `${(base ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  return {
    url,
    protocol:
      config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...config.OTEL_EXPORTER_OTLP_HEADERS, ...config.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    serviceName: config.OTEL_SERVICE_NAME,
  };
}

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * Starts tracing for this app when configured: the global provider, context manager and
 * propagator (the API is process-wide), request spans, and a flush of what is buffered on close.
 */
export function registerTracing(app: FastifyInstance, config: Config): void {
  const settings = tracingSettings(config);
  if (!settings) return;
  const Exporter = settings.protocol === 'http/json' ? JsonExporter : ProtobufExporter;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new Exporter({ url: settings.url, headers: settings.headers }))],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('contextd');

  app.addHook('onRequest', async (request) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?')[0],
          ...(route ? { 'http.route': route } : {}),
        },
      },
      parent,
    );
    spans.set(request, span);
  });
  // The handler runs inside the request's span, so the steps' spans are its children. Activated
  // once the body is read: the body stream's events do not carry the request's async context.
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (!span) return done();
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onError', async (request, _reply, error) => {
    spans.get(request)?.recordException(error);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (request.tenantId) span.setAttribute('contextd.tenant', request.tenantId);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  app.addHook('onClose', async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });
}
