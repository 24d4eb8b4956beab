// Renders the OpenAPI document from the routes' zod schemas (used by `npm run openapi` and the
// drift test).
import { buildApp } from './app.js';
import { parseConfig } from './config.js';
import { createLocks, type AppDeps } from './deps.js';
import { openDatabase } from './db/client.js';
import { systemClock, uuidV7Ids } from './clock.js';
import { createTokenEstimator } from './core/tokens.js';
import { createMetrics } from './plugins/metrics.js';

export async function renderOpenApi(): Promise<string> {
  const database = await openDatabase({ dataDir: 'memory://' });
  const metrics = createMetrics();
  const deps: AppDeps = {
    config: parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }),
    database,
    redis: null,
    locks: createLocks(database, null, metrics, ''),
    clock: systemClock,
    ids: uuidV7Ids,
    estimator: createTokenEstimator(),
    metrics,
    redisPrefix: '',
  };
  const app = await buildApp(deps, { logger: false });
  try {
    await app.ready();
    return JSON.stringify(app.swagger(), null, 2) + '\n';
  } finally {
    await app.close();
    await database.close();
  }
}
