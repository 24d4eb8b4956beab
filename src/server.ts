// Process entry: configuration, dependencies, the app, listen, graceful shutdown.
import { Server } from 'node:net';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { bootstrapApiKeys } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { closeDeps, createDeps } from './deps.js';
import { metricsExposure, startMetricsServer } from './http/metrics.js';

/** After the drain, how long open connections get to end after a reply before they are cut. */
const CONNECTION_CLOSE_GRACE_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const deps = await createDeps(config);
const app = await buildApp(deps);
await bootstrapApiKeys(config, app.services, (line) => app.log.warn(line));

const openConnections = () =>
  new Promise<number>((resolve) => app.server.getConnections((_error, count) => resolve(count ?? 0)));

closeWithGrace({ delay: config.SHUTDOWN_DRAIN_MS + 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal, drainMs: config.SHUTDOWN_DRAIN_MS }, 'shutting down');
  // Drain: readiness answers 503 so the load balancer stops sending, while requests are still
  // served on the connections they come on.
  app.lifecycle.draining = true;
  if (!err) {
    await sleep(config.SHUTDOWN_DRAIN_MS);
    // Stop accepting (new connections are refused, never reset) with the TCP listener's close:
    // the HTTP server's would also cut idle keep-alive connections under a request on its way.
    // Each open connection instead ends after its next reply; those still open after a short
    // grace are idle, and Fastify's close ends them with the requests in flight finished.
    app.lifecycle.closingConnections = true;
    Server.prototype.close.call(app.server);
    const until = Date.now() + CONNECTION_CLOSE_GRACE_MS;
    while (Date.now() < until && (await openConnections())) await sleep(50);
  }
  await app.close();
  await metricsServer?.close();
  await closeDeps(deps);
});

const metricsServer =
  config.METRICS_PORT === undefined
    ? null
    : await startMetricsServer(deps.metrics, {
        host: config.HOST,
        port: config.METRICS_PORT,
        token: config.METRICS_TOKEN,
      });
if (metricsExposure(config) === 'off') {
  app.log.warn('GET /metrics is not served: set METRICS_TOKEN or METRICS_PORT to expose it in production');
}

await app.listen({ host: config.HOST, port: config.PORT });
app.log.info(
  { database: deps.database.kind, locks: deps.locks.kind },
  `contextd listening; API docs at http://localhost:${config.PORT}/docs`,
);
