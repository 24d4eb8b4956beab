// buildApp(deps) → a Fastify instance with every plugin and route; no port is opened here.
import { API_VERSION } from './shared/api-version.js';
import { randomUUID } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { createHash } from 'node:crypto';
import type { AppDeps } from './deps.js';
import { registerAuth, requiresApiKey } from './http/auth.js';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { clientErrorHandler } from './http/client-errors.js';
import { metricsRoutes, observePool, registerMetrics } from './http/metrics.js';
import { registerLoadShedding } from './http/load-shedding.js';
import { registerTracing } from './telemetry/tracing.js';
import { apiTags, documentComponents, documentRoute } from './http/openapi-transform.js';
import { registerRetentionJob } from './modules/retention/retention.job.js';
import { healthRoutes, type Lifecycle } from './http/health.routes.js';
import { registerV1Routes } from './modules/routes.js';
import { mcpRoutes } from './modules/mcp/mcp.routes.js';
import { inspectorRoutes } from './inspector/inspector.routes.js';
import { registerCompactionWorker } from './modules/compaction/compaction.worker.js';
import { createServices, type Services } from './modules/services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    deps: AppDeps;
    lifecycle: Lifecycle;
  }
}

export interface BuildAppOptions {
  /** false silences logging; a stream receives the JSON lines (tests). Default: stdout. */
  logger?: false | { stream: { write(line: string): void } };
}

/** pino options: JSON with request ids, credentials redacted. */
function loggerOptions(deps: AppDeps, options: BuildAppOptions): FastifyServerOptions['logger'] {
  if (options.logger === false) return false;
  return {
    level: deps.config.LOG_LEVEL,
    redact: {
      // Bodies are not logged; the platform-token paths guard any log line that carries one.
      paths: [
        'req.headers.authorization',
        'req.headers["x-telegram-bot-api-secret-token"]',
        'req.body.bot_token',
        'body.bot_token',
        '*.bot_token',
        'credential.token',
        '*.credential.token',
      ],
      censor: '[redacted]',
    },
    ...(options.logger?.stream ? { stream: options.logger.stream } : {}),
  };
}

export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(deps, options),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // Behind a proxy, request.ip (the rate-limit key of unauthenticated webhooks) is the client's
    // only when the proxy is trusted to set X-Forwarded-For.
    trustProxy: deps.config.TRUST_PROXY,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const lifecycle: Lifecycle = { draining: false };
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    // Shutting down (src/server.ts): a connection ends after its reply instead of being cut idle
    // under the client's next request.
    if (lifecycle.closingConnections) void reply.header('connection', 'close');
  });

  const services = createServices(deps, app.log);
  app.decorate('services', services);
  app.decorate('deps', deps);
  app.decorate('lifecycle', lifecycle);

  // First of the request hooks: every later one (auth, rate limit) runs inside the request's span.
  registerTracing(app, deps.config);
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  registerMetrics(app, deps.metrics);
  if (deps.database.kind === 'postgres') observePool(deps.metrics.registry, deps.database.pool);
  // Before auth and body parsing: an excess request costs as little as possible.
  registerLoadShedding(app, { limit: deps.config.MAX_WORK_IN_FLIGHT, metrics: deps.metrics });
  registerAuth(app, services.tenants);

  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preHandler',
    max: deps.config.RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    // Redis when configured (shared by every instance), in memory otherwise; a Redis failure
    // lets the request through rather than failing it.
    ...(deps.redis ? { redis: deps.redis, nameSpace: `${deps.redisPrefix}rl:` } : {}),
    skipOnError: true,
    keyGenerator: (request) => {
      const auth = request.headers.authorization;
      return auth ? createHash('sha256').update(auth).digest('hex') : request.ip;
    },
    // /v1 (webhooks included, keyed by IP) and /mcp; health, metrics and docs are never limited.
    allowList: (request) =>
      !request.url.startsWith('/v1/') && !requiresApiKey(request.url.split('?')[0] ?? ''),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      message: `rate limit of ${context.max} requests per ${context.after} exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
    }),
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'contextd',
        description:
          'Context-as-a-service for chat bots and LLM agents: ingest channel events and turns, get back a token-budgeted prompt payload.',
        version: API_VERSION,
      },
      servers: [{ url: '/', description: 'the contextd instance serving this document' }],
      tags: apiTags,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } },
      },
      security: [{ bearer: [] }],
    },
    transform: documentRoute,
    transformObject: documentComponents,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes(deps, lifecycle));
  await app.register(metricsRoutes(deps.metrics, deps.config));
  await registerV1Routes(app, services, deps);
  await app.register(mcpRoutes(services));
  await app.register(inspectorRoutes(deps.config));
  // Periodic retention: an unref'd interval from onReady, stopped in onClose; off in tests.
  registerRetentionJob(app, services.retention, {
    enabled: deps.config.NODE_ENV !== 'test',
    intervalMs: deps.config.RETENTION_INTERVAL_MS,
  });
  // Name lookups under way finish (or stop) before the database closes.
  app.addHook('onClose', async () => services.userResolver.close());
  // A statistics check or ANALYZE under way (ingest-statistics.ts) finishes before the database closes.
  app.addHook('onClose', async () => services.ingestStatistics.settled());
  registerCompactionWorker(app, services.compactionQueue, services.compaction.handleJob, {
    workers: deps.config.COMPACTION_WORKERS,
  });
  return app;
}
