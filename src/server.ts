// Process entry: configuration, dependencies, the app, listen, graceful shutdown.
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { bootstrapApiKeys } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { closeDeps, createDeps } from './deps.js';

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

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  // Readiness answers 503 at once so the load balancer stops sending; in-flight requests finish.
  app.lifecycle.draining = true;
  await app.close();
  await closeDeps(deps);
});

await app.listen({ host: config.HOST, port: config.PORT });
app.log.info(
  { database: deps.database.kind, locks: deps.locks.kind },
  `contextd listening; API docs at http://localhost:${config.PORT}/docs`,
);
