// Prometheus metrics: one registry per app instance (tests build many), per-route latency
// histograms, and the counters other modules increment through `app.metrics`.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'contextd_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    lockFallbacks: new Counter({
      name: 'contextd_lock_fallbacks_total',
      help: 'Lock acquisitions served by Postgres advisory locks because Redis failed',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

/** GET /metrics, registered after the OpenAPI plugin so the document lists it (open, like health). */
export function metricsRoutes(metrics: Metrics): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/metrics',
      {
        schema: {
          operationId: 'metrics',
          tags: ['operations'],
          summary: 'Prometheus metrics (text exposition format)',
          response: {
            200: {
              description: 'Prometheus text exposition format',
              content: { 'text/plain': { schema: z.string() } },
            },
          },
        },
      },
      async (_request, reply) => {
        const body = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(body);
      },
    );
  };
}
