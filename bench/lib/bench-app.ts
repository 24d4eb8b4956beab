// The app a context-call benchmark measures: its bench database (statements counted), the app on
// it, the floor app of plain indexed reads on the same connection pool, and the bench tenant with
// a fresh API key. Shared by bench:assemble and bench:call-cost.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { Database, StatementListener } from '../../src/db/client.js';
import { localDeps } from '../../src/deps.js';
import { generateApiKey } from '../../src/modules/tenants/tenants.repository.js';
import { BENCH_PLATFORM, BENCH_TENANT, openBenchDatabase } from './channel-fixture.js';
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

/**
 * A benchmark's config: no logs, and no rate limit or work limit in the way (its tenant sends more
 * than a real one may, and its concurrent phases measure the work itself; bench:overload measures
 * the limit).
 */
export const benchConfig = () =>
  parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT),
    MAX_WORK_IN_FLIGHT: '0',
  });

/** The app alone on a benchmark database, on a pool of its own: a worker process's. */
export async function openWorkerApp(
  databaseName: string,
  options: { onStatement?: StatementListener } = {},
): Promise<FastifyInstance> {
  const database = await openBenchDatabase(databaseName, options);
  const app = await buildApp(localDeps(benchConfig(), database), { logger: false });
  await app.ready();
  return app;
}

/**
 * A session of the channel `channelId` whose lane (the channel's root lane, where its top-level
 * messages are) holds `turns` alternating user and assistant turns.
 */
export async function seedBenchSession(
  bench: Pick<BenchApp, 'inject'>,
  params: { sessionKey: string; channelId: string; turns: number },
): Promise<string> {
  const { channelId, turns } = params;
  const session = (
    await bench.inject('POST', '/v1/sessions', {
      session_key: params.sessionKey,
      agent_id: 'bench',
      platform: BENCH_PLATFORM,
      chat_type: 'channel',
      channel_id: channelId,
    })
  ).json().session.id as string;
  for (let from = 0; from < turns; from += 100) {
    await bench.inject('POST', `/v1/sessions/${session}/turns`, {
      turns: Array.from({ length: Math.min(100, turns - from) }, (_, k) => {
        const i = from + k;
        return {
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: `${i % 2 === 0 ? 'question' : 'answer'} ${i} about the rollout and the database migration plan for release ${i % 37}`,
          lane_key: `root:${channelId}`,
        };
      }),
    });
  }
  return session;
}

export async function openBenchApp(databaseName: string): Promise<BenchApp> {
  let statements = 0;
  const database = await openBenchDatabase(databaseName, {
    onStatement: (q: string) => {
      if (process.env.BENCH_LOG_STATEMENTS)
        console.error(
          `STMT ${q.replace(/\s+/g, ' ').slice(0, Number(process.env.BENCH_LOG_STATEMENTS) > 1 ? 100000 : 140)}`,
        );
      statements += 1;
    },
  });
  const deps = localDeps(benchConfig(), database);
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
