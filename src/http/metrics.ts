// Prometheus metrics: one registry per app instance (tests build many), per-route latency
// histograms, refusals (429s, webhook authentication), and the counters other modules increment
// through `app.metrics`. Who may read them: a bearer token (METRICS_TOKEN), a port of their own
// (METRICS_PORT), or, with neither, anyone outside production.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { PoolState } from '../db/client.js';
import { errorBodySchema } from './error-handler.js';

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
    workInFlight: new Gauge({
      name: 'contextd_work_in_flight',
      help: 'Work requests (writes, context calls, searches) this instance is running',
      registers: [registry],
    }),
    workShed: new Counter({
      name: 'contextd_work_shed_total',
      help: 'Work requests answered 503 overloaded because MAX_WORK_IN_FLIGHT were running',
      registers: [registry],
    }),
    replicaFallbacks: new Counter({
      name: 'contextd_replica_fallbacks_total',
      help: 'Reads meant for the read replica (DATABASE_READ_URL) run on the primary because the replica failed',
      registers: [registry],
    }),
    lockFallbacks: new Counter({
      name: 'contextd_lock_fallbacks_total',
      help: 'Lock acquisitions served by Postgres advisory locks because Redis failed',
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'contextd_rate_limited_total',
      help: 'Requests refused with 429 (the per-key or per-address rate limit), by route',
      labelNames: ['route'] as const,
      registers: [registry],
    }),
    webhookAuthFailures: new Counter({
      name: 'contextd_webhook_auth_failures_total',
      help: 'Platform webhooks refused because their signature or secret is not valid',
      labelNames: ['platform'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** contextd_db_pool_connections{state} and contextd_db_pool_waiting, read from the pool at each scrape. */
export function observePool(registry: Registry, pool: () => PoolState | null): void {
  new Gauge({
    name: 'contextd_db_pool_connections',
    help: "PostgreSQL connections of this instance's primary pool: in_use (running queries) and idle",
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const state = pool();
      if (!state) return;
      this.set({ state: 'in_use' }, state.inUse);
      this.set({ state: 'idle' }, state.idle);
    },
  });
  new Gauge({
    name: 'contextd_db_pool_waiting',
    help: 'Queries waiting for a connection of the primary pool',
    registers: [registry],
    collect() {
      const state = pool();
      if (state) this.set(state.waiting);
    },
  });
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(status) },
      reply.elapsedTime / 1000,
    );
    if (status === 429) metrics.rateLimited.inc({ route });
    // Webhook routes are /v1/webhooks/{platform}/:tenantId: the platform is a fixed word of the route.
    if (status === 401 && route.startsWith('/v1/webhooks/')) {
      metrics.webhookAuthFailures.inc({ platform: route.split('/')[3] ?? 'other' });
    }
  });
}

/** How /metrics is served: on the API's port (open or behind the token), on its own port, or not at all. */
export function metricsExposure(config: Config): 'api' | 'own-port' | 'off' {
  if (config.METRICS_PORT !== undefined) return 'own-port';
  if (!config.METRICS_TOKEN && config.NODE_ENV === 'production') return 'off';
  return 'api';
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether an Authorization header carries the token (compared in constant time); no token: yes. */
function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token));
}

const unauthorizedBody = {
  error: { code: 'metrics.unauthorized', message: 'GET /metrics needs Authorization: Bearer METRICS_TOKEN' },
};

/** GET /metrics, registered after the OpenAPI plugin so the document lists it. */
export function metricsRoutes(metrics: Metrics, config: Config): FastifyPluginAsyncZod {
  return async (app) => {
    if (metricsExposure(config) !== 'api') return;
    app.get(
      '/metrics',
      {
        schema: {
          operationId: 'metrics',
          tags: ['operations'],
          summary: 'Prometheus metrics (text exposition format)',
          description:
            'With METRICS_TOKEN set, only for `Authorization: Bearer {METRICS_TOKEN}` (not a tenant key); with METRICS_PORT set, served on that port instead; in production without either, not served.',
          security: [],
          response: {
            200: {
              description: 'Prometheus text exposition format',
              content: { 'text/plain': { schema: z.string() } },
            },
            401: errorBodySchema.describe('missing or wrong METRICS_TOKEN'),
          },
        },
      },
      async (request, reply) => {
        if (!metricsAuthorized(config.METRICS_TOKEN, request.headers.authorization)) {
          return reply.code(401).send(unauthorizedBody);
        }
        const body = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(body);
      },
    );
  };
}

/** /metrics on a port of its own (METRICS_PORT): nothing else is served there. */
export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404).end();
      } else if (!metricsAuthorized(options.token, request.headers.authorization)) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(unauthorizedBody));
      } else {
        const body = await metrics.registry.metrics();
        response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body);
      }
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
