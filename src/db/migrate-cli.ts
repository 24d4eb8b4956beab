// `npm run migrate`: apply migrations to DATABASE_URL (or the embedded database) and exit.
import { loadConfig } from '../config.js';
import { databaseOptions } from '../deps.js';
import { openDatabase } from './client.js';
import { runMigrations } from './migrate.js';

const config = loadConfig();
// With the server's settings: through a transaction pooler too (DATABASE_POOL_MODE).
const database = await openDatabase({ ...databaseOptions(config), genericPlans: false });
try {
  await runMigrations(database);
  console.warn(`migrations applied (${database.kind})`);
} finally {
  await database.close();
}
