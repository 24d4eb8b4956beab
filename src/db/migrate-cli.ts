// `npm run migrate`: apply migrations to DATABASE_URL (or the embedded database) and exit.
import { loadConfig } from '../config.js';
import { openDatabase } from './client.js';
import { runMigrations } from './migrate.js';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  await runMigrations(database);
  console.warn(`migrations applied (${database.kind})`);
} finally {
  await database.close();
}
