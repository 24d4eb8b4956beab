// Test harness: a real database per test file (a PostgreSQL clone of the migrated template, or an
// in-memory PGlite), real Redis when configured, a controllable clock and deterministic ids.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import type { Clock, IdGenerator } from '../../src/shared/clock.js';
import { parseConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { connectRedis, createLocks, waitForRedis, type AppDeps } from '../../src/deps.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';
import { createMetrics } from '../../src/http/metrics.js';
import { generateApiKey } from '../../src/modules/tenants/tenants.repository.js';
import { v7 as uuidv7 } from 'uuid';
import { inject } from 'vitest';
import { z } from 'zod';
import { contextReplySchema, contextReplyWireSchema } from '../../src/modules/context/context.schemas.js';
import { databaseUrl, TEST_DATABASE_URL, TEST_DB_PREFIX, TEST_REDIS_URL } from './env.js';

export const usesRealPostgres = Boolean(TEST_DATABASE_URL);
export const usesRealRedis = Boolean(TEST_REDIS_URL);

/** A clock the test moves by hand. */
export function manualClock(
  start = '2026-01-01T00:00:00.000Z',
): Clock & { set(t: string | Date): void; advance(ms: number): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (t) => {
      current = new Date(t).getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/** UUIDv7 ids drawn from the given clock with a counter, so runs are repeatable. */
export function sequentialIds(clock: Clock): IdGenerator {
  let counter = 0;
  return {
    next: () => {
      counter += 1;
      const random = new Uint8Array(16);
      random[15] = counter & 0xff;
      random[14] = (counter >> 8) & 0xff;
      random[13] = (counter >> 16) & 0xff;
      return uuidv7({ msecs: clock.now().getTime(), random, seq: counter });
    },
  };
}

export interface TestDatabase {
  database: Database;
  /** The server's URL of the database (the tests' own checks). */
  url?: string;
  /** The URL the app uses: `url`, or the run's PgBouncer (TEST_PGBOUNCER) in front of it. */
  appUrl?: string;
  poolMode?: 'session' | 'transaction';
  drop(): Promise<void>;
}

const withPort = (url: string, port: number) => {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
};

/** A fresh migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const database = await openDatabase({ dataDir: 'memory://' });
    await runMigrations(database);
    return { database, drop: () => database.close() };
  }
  const runPrefix = `${TEST_DB_PREFIX}${inject('testRunId')}`;
  const name = `${runPrefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}" template "${runPrefix}_template"`);
  await admin.end();
  const url = databaseUrl(TEST_DATABASE_URL, name);
  const poolerPort = inject('poolerPort');
  const appUrl = poolerPort ? withPort(url, poolerPort) : url;
  const database = await openDatabase({
    databaseUrl: appUrl,
    dataDir: '',
    maxConnections: 8,
    ...(poolerPort ? { prepare: false, genericPlans: false } : {}),
  });
  return {
    database,
    url,
    appUrl,
    poolMode: poolerPort ? 'transaction' : 'session',
    drop: async () => {
      await database.close();
      const cleanup = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}

export interface TestContext {
  app: FastifyInstance;
  deps: AppDeps;
  clock: ReturnType<typeof manualClock>;
  testDb: TestDatabase;
  /** Creates a tenant with a fresh API key; returns the headers to use it. */
  tenant(tenantId?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

export interface TestTenant {
  tenantId: string;
  key: string;
  headers: Record<string, string>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ReturnType<typeof manualClock>;
  /** Reuse an existing database (e.g. a second app instance on the same state). */
  testDb?: TestDatabase;
  redis?: boolean;
  /** Redis key prefix; replicas of one deployment share it. */
  redisPrefix?: string;
  extend?: (deps: AppDeps) => AppDeps;
  logger?: BuildAppOptions['logger'];
}

export function testConfig(env: Record<string, string> = {}): Config {
  // No compaction worker unless a test asks for one (jobs are still queued). No limit on work in
  // flight unless a test asks for one (test/integration/load-shedding.test.ts): concurrency tests
  // send bursts past the default to one instance on purpose.
  return parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    COMPACTION_WORKERS: '0',
    MAX_WORK_IN_FLIGHT: '0',
    ...env,
  });
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const clock = options.clock ?? manualClock();
  const testDb = options.testDb ?? (await createTestDatabase());
  const ownsDb = !options.testDb;
  const useRedis = (options.redis ?? true) && usesRealRedis && testDb.database.kind === 'postgres';
  const redis = useRedis ? connectRedis(TEST_REDIS_URL!) : null;
  redis?.on('error', () => {});
  if (redis) await waitForRedis(redis);
  const metrics = createMetrics();
  const redisPrefix = options.redisPrefix ?? `contextd-test:${randomUUID()}:`;
  const config = testConfig({
    ...(testDb.appUrl ? { DATABASE_URL: testDb.appUrl } : {}),
    ...(testDb.poolMode === 'transaction' ? { DATABASE_POOL_MODE: 'transaction' } : {}),
    ...(useRedis ? { REDIS_URL: TEST_REDIS_URL! } : {}),
    ...options.env,
  });
  let deps: AppDeps = {
    config,
    database: testDb.database,
    redis,
    locks: createLocks(testDb.database, redis, metrics, redisPrefix),
    clock,
    ids: sequentialIds(clock),
    estimator: createTokenEstimator(),
    metrics,
    redisPrefix,
  };
  if (options.extend) deps = options.extend(deps);
  const app = await buildApp(deps, { logger: options.logger ?? false });
  checkContextReplies(app);
  await app.ready();

  const tenant = async (tenantId = `t_${randomBytes(4).toString('hex')}`): Promise<TestTenant> => {
    const key = generateApiKey();
    await app.services.tenants.ensureTenant({ tenantId });
    await app.services.tenants.addApiKey({ tenantId, key, name: 'test' });
    const headers = { authorization: `Bearer ${key}` };
    return {
      tenantId,
      key,
      headers,
      inject: (opts) => app.inject({ ...opts, headers: { ...headers, ...(opts.headers ?? {}) } }),
    };
  };

  return {
    app,
    deps,
    clock,
    testDb,
    tenant,
    close: async () => {
      await app.close();
      await deps.locks.close();
      redis?.disconnect();
      if (ownsDb) await testDb.drop();
    },
  };
}

/** Asserts the stable error shape and returns it. */
export function errorOf(response: LightMyRequestResponse): {
  code: string;
  message: string;
  details?: unknown;
} {
  const body = response.json() as { error?: { code: string; message: string; details?: unknown } };
  if (!body.error) throw new Error(`expected an error body, got ${response.body}`);
  return body.error;
}

/**
 * Every context reply a test receives is checked against its documented schema (the route sends
 * the payload as assembly built it; this catches a field the document does not describe), and the
 * rest of it against the wire schema's encoding, key order included (the route does not encode it).
 */
function checkContextReplies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'POST' || !/^\/v1\/sessions\/[^/]+\/context$/.test(request.url)) return payload;
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const body = JSON.parse(payload) as Record<string, unknown>;
    const checked = contextReplySchema.safeParse(body);
    if (!checked.success) {
      throw new Error(`context reply does not match its documented schema: ${checked.error.message}`);
    }
    // The route stringifies the reply as built (no pass through zod): its keys must be the wire
    // schema's, in its order, with none besides.
    const sent = JSON.stringify({ ...body, payload: {} });
    const encoded = JSON.stringify(z.encode(contextReplyWireSchema, { ...body, payload: {} } as never));
    if (sent !== encoded) {
      throw new Error(`context reply is not in its wire schema's key order:\n${sent}\n${encoded}`);
    }
    return payload;
  });
}
