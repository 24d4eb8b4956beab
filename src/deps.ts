// The composition root's raw materials: configuration, storage, coordination, clock and ids.
// `createDeps` opens them for the server; tests build the same object around their own database.
import type Anthropic from '@anthropic-ai/sdk';
import type { FastifyBaseLogger } from 'fastify';
import { systemClock, uuidV7Ids, type Clock, type IdGenerator } from './shared/clock.js';
import type { Config } from './config.js';
import { createFallbackLockManager } from './coord/fallback-lock.js';
import type { LockManager } from './coord/lock.js';
import { createMemoryLockManager } from './coord/memory-lock.js';
import { createPgLockManager } from './coord/pg-lock.js';
import { redisFromConfig, waitForRedis, type RedisClient } from './coord/redis-client.js';
import { createRedisLockManager } from './coord/redis-lock.js';
import { openDatabase, type Database, type DatabaseOptions } from './db/client.js';
import { holdDataDir, type DataDirLock } from './db/data-dir-lock.js';
import { runMigrations } from './db/migrate.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { createTokenEstimator, type TokenEstimator } from './shared/tokens.js';
import type { PlatformCallGate } from './platforms/api/platform-call.js';

export interface AppDeps {
  config: Config;
  database: Database;
  /** Null in embedded mode; present but possibly unreachable otherwise. */
  redis: RedisClient | null;
  locks: LockManager;
  clock: Clock;
  ids: IdGenerator;
  estimator: TokenEstimator;
  metrics: Metrics;
  /** Key prefix for everything written to Redis (tests isolate by it). */
  redisPrefix: string;
  /**
   * The summarizer's Anthropic client; unset: built from ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL
   * (none without a key: the extractive summarizer). Tests inject one pointed at a local fake.
   */
  llm?: Anthropic | null;
  /**
   * Passed before every platform API call (src/platforms/api): a shared rate limiter per (tenant,
   * platform, workspace). Unset: every call goes.
   */
  platformGate?: PlatformCallGate;
  /** Embedded mode: this process's hold on DATA_DIR (src/db/data-dir-lock.ts), released by closeDeps. */
  dataDirLock?: DataDirLock;
}

export { connectRedis, waitForRedis } from './coord/redis-client.js';

const pgLockOptions = (database: Database & { kind: 'postgres' }) => ({
  timeoutMs: database.statementTimeoutMs,
});

export function createLocks(
  database: Database,
  redis: RedisClient | null,
  metrics: Metrics,
  redisPrefix: string,
  log?: Pick<FastifyBaseLogger, 'warn'>,
): LockManager {
  if (database.kind === 'pglite' || !redis) {
    if (database.kind === 'postgres') return createPgLockManager(database.sql, pgLockOptions(database));
    return createMemoryLockManager();
  }
  return createFallbackLockManager(
    createRedisLockManager(redis, { prefix: redisPrefix }),
    createPgLockManager(database.sql, pgLockOptions(database)),
    {
      onFallback: (error) => {
        metrics.lockFallbacks.inc();
        log?.warn({ err: error }, 'redis lock failed; using a Postgres advisory lock');
      },
    },
  );
}

/** How the configuration opens the database (the server and `npm run migrate` alike). */
export function databaseOptions(config: Config): DatabaseOptions {
  return {
    databaseUrl: config.DATABASE_URL,
    readUrl: config.DATABASE_URL ? config.DATABASE_READ_URL : undefined,
    dataDir: config.DATA_DIR,
    maxConnections: config.DATABASE_MAX_CONNECTIONS,
    prepare: config.DATABASE_PREPARED_STATEMENTS,
    genericPlans: config.DATABASE_GENERIC_PLANS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  };
}

export async function createDeps(
  config: Config,
  overrides: Partial<Pick<AppDeps, 'clock' | 'ids'>> = {},
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<AppDeps> {
  const dataDirLock = embeddedDataDir(config) ? holdDataDir(config.DATA_DIR, 'server') : undefined;
  const metrics = createMetrics();
  let database: Database;
  try {
    database = await openDatabase({
      ...databaseOptions(config),
      onReplicaFallback: (error) => {
        metrics.replicaFallbacks.inc();
        log?.warn({ err: error }, 'read replica failed; reading from the primary');
      },
    });
    if (config.DATABASE_MIGRATE) await runMigrations(database);
  } catch (error) {
    dataDirLock?.release();
    throw error;
  }
  const redis = redisFromConfig(config);
  // ioredis reports connection errors as events; without a listener they would crash the process.
  redis?.on('error', (error) => log?.warn({ err: error }, 'redis error'));
  if (redis && !(await waitForRedis(redis))) log?.warn('redis is not reachable; starting degraded');
  const redisPrefix = 'contextd:';
  return {
    config,
    database,
    redis,
    locks: createLocks(database, redis, metrics, redisPrefix, log),
    clock: overrides.clock ?? systemClock,
    ids: overrides.ids ?? uuidV7Ids,
    estimator: createTokenEstimator(),
    metrics,
    redisPrefix,
    ...(dataDirLock ? { dataDirLock } : {}),
  };
}

/** Whether the configuration puts the database in a PGlite directory on disk (one process at a time). */
export function embeddedDataDir(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): boolean {
  return !config.DATABASE_URL && !config.DATA_DIR.startsWith('memory://');
}

/** Deps around an already open database with no Redis (embedded tools: OpenAPI rendering, benchmarks). */
export function localDeps(config: Config, database: Database): AppDeps {
  const metrics = createMetrics();
  return {
    config,
    database,
    redis: null,
    locks: createLocks(database, null, metrics, ''),
    clock: systemClock,
    ids: uuidV7Ids,
    estimator: createTokenEstimator(),
    metrics,
    redisPrefix: '',
  };
}

/** Closes what createDeps opened, locks first so their releases still reach their backends. */
export async function closeDeps(deps: AppDeps): Promise<void> {
  await deps.locks.close();
  deps.redis?.disconnect();
  await deps.database.close();
  deps.dataDirLock?.release();
}
