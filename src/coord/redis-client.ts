// The Redis client of one deployment shape: one server (REDIS_URL), a Redis Cluster
// (REDIS_CLUSTER_NODES) or a Sentinel-managed master (REDIS_SENTINELS). Every mode fails fast:
// no offline queue, one retry, a command timeout, so a caller falls back (locks to PostgreSQL,
// rate limits to in-process counts) instead of waiting on a Redis that cannot answer. Every key
// contextd writes is used alone (no script or command touches two keys), so each works on a
// cluster whatever slot it hashes to.
import { Cluster, Redis } from 'ioredis';
import type { Config } from '../config.js';

export type RedisClient = Redis | Cluster;

interface RedisClientOptions {
  /** A command unanswered this long fails (REDIS_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

const failFast = (options: RedisClientOptions) => ({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: options.commandTimeoutMs ?? 2_000,
});

/** One server (or anything that speaks like one) at `url`. */
export function connectRedis(url: string, options: RedisClientOptions = {}): Redis {
  return new Redis(url, { ...failFast(options), lazyConnect: false });
}

export function connectRedisCluster(
  nodes: { host: string; port: number }[],
  options: RedisClientOptions & { password?: string } = {},
): Cluster {
  return new Cluster(nodes, {
    enableOfflineQueue: false,
    // A cluster that lost a master answers CLUSTERDOWN until a replica takes over; a few short
    // retries ride out a failover, then the command fails and the caller falls back.
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 6,
    slotsRefreshTimeout: 1_000,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
    redisOptions: {
      ...failFast(options),
      ...(options.password ? { password: options.password } : {}),
    },
  });
}

export function connectRedisSentinel(
  params: {
    sentinels: { host: string; port: number }[];
    name: string;
    password?: string;
    sentinelPassword?: string;
  },
  options: RedisClientOptions = {},
): Redis {
  return new Redis({
    ...failFast(options),
    sentinels: params.sentinels,
    name: params.name,
    ...(params.password ? { password: params.password } : {}),
    ...(params.sentinelPassword ? { sentinelPassword: params.sentinelPassword } : {}),
    sentinelRetryStrategy: (times) => Math.min(100 * times, 2_000),
    // After a failover the old master answers writes with READONLY: ask the sentinels again.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  });
}

/** The client the configuration names, or null (embedded mode, or no Redis configured). */
export function redisFromConfig(config: Config): RedisClient | null {
  const options = { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS };
  if (config.REDIS_URL) return connectRedis(config.REDIS_URL, options);
  if (config.REDIS_CLUSTER_NODES)
    return connectRedisCluster(config.REDIS_CLUSTER_NODES, {
      ...options,
      ...(config.REDIS_PASSWORD ? { password: config.REDIS_PASSWORD } : {}),
    });
  if (config.REDIS_SENTINELS && config.REDIS_SENTINEL_NAME)
    return connectRedisSentinel(
      {
        sentinels: config.REDIS_SENTINELS,
        name: config.REDIS_SENTINEL_NAME,
        ...(config.REDIS_PASSWORD ? { password: config.REDIS_PASSWORD } : {}),
        ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
      },
      options,
    );
  return null;
}

/** Waits until Redis is ready, at most timeoutMs; false means "start degraded". */
export function waitForRedis(redis: RedisClient, timeoutMs = 3_000): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
