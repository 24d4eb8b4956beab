// Renders the OpenAPI document from the routes' zod schemas (used by `npm run openapi` and the
// drift test).
import { buildApp } from '../app.js';
import { parseConfig } from '../config.js';
import { localDeps } from '../deps.js';
import { openDatabase } from '../db/client.js';

export async function renderOpenApi(): Promise<string> {
  const database = await openDatabase({ dataDir: 'memory://' });
  const app = await buildApp(localDeps(parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }), database), {
    logger: false,
  });
  try {
    await app.ready();
    return JSON.stringify(app.swagger(), null, 2) + '\n';
  } finally {
    await app.close();
    await database.close();
  }
}
