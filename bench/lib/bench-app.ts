// The app a context-call benchmark measures: its bench database (statements counted), the app on
// it, the floor app of plain indexed reads on the same connection pool, and the bench tenant with
// a fresh API key. Shared by bench:assemble and bench:call-cost.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { localDeps } from '../../src/deps.js';
import { generateApiKey } from '../../src/modules/tenants/tenants.repository.js';
import { BENCH_TENANT, openBenchDatabase } from './channel-fixture.js';
import { floorApp } from './measure.js';

export interface BenchApp {
  database: Database;
  app: FastifyInstance;
  floor: FastifyInstance;
  /** The bench tenant's API key. */
  key: string;
  /** Statements sent so far (counted on PostgreSQL only). */
  statementCount(): number;
  /** A request as the bench tenant; anything but 2xx throws. */
  inject(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Requests a minute a benchmark's tenant may send. */
export const BENCH_RATE_LIMIT = 10_000_000;

export async function openBenchApp(databaseName: string): Promise<BenchApp> {
  let statements = 0;
  const database = await openBenchDatabase(databaseName, {
    onStatement: (q: string) => {
      if (process.env.BENCH_LOG_STATEMENTS) console.error(`STMT ${q.replace(/\s+/g, ' ').slice(0, 140)}`);
      statements += 1;
    },
  });
  // A benchmark's tenant sends more than a real one may: no rate limit in its way.
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT),
  });
  const deps = localDeps(config, database);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const floor = await floorApp(database.db);
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId: BENCH_TENANT });
  await app.services.tenants.addApiKey({ tenantId: BENCH_TENANT, key, name: 'bench' });
  const headers = { authorization: `Bearer ${key}` };
  return {
    database,
    app,
    floor,
    key,
    statementCount: () => statements,
    async inject(method, url, payload) {
      const response = await app.inject({ method, url, payload: payload as never, headers });
      if (response.statusCode >= 300)
        throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response;
    },
    async close() {
      await floor.close();
      await app.close();
      await deps.locks.close();
      await database.close();
    },
  };
}
