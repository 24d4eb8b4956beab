// One rate limiter for every outbound platform API call, keyed per (tenant, platform, workspace)
// and shared by all replicas through Redis (rate-limiter-flexible; in-process without Redis, and
// in-process as the insurance when Redis fails). Overflow either waits for a slot, bounded, or
// answers at once that the call may not be made (degrade): the caller serves what is stored.
import type { RedisClient } from './redis-client.js';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export interface PlatformCallKey {
  tenantId: string;
  platform: string;
  /** Slack team, Discord guild; one bucket per tenant and platform when unknown. */
  workspaceId?: string | null;
}

type PlatformCallPermit =
  | { granted: true; waitedMs: number }
  | {
      granted: false;
      waitedMs: number;
      /** When a slot frees up (or the platform's Retry-After ends). */
      retryAfterMs: number;
      reason: 'rate_limited';
    };

export interface PlatformRateLimiter {
  readonly overflow: 'queue' | 'degrade';
  /** Takes one call's slot: at once, after waiting (queue, at most the configured time), or not. */
  acquire(key: PlatformCallKey): Promise<PlatformCallPermit>;
  /** The platform answered 429: no replica calls this key again until Retry-After has passed. */
  blockFor(key: PlatformCallKey, ms: number): Promise<void>;
}

/**
 * A fixed-window limiter lets 2N through in a minute that straddles two windows. So the limit is
 * enforced as `points` calls per `seconds`-long window, chosen so that the windows any period
 * can touch (period/seconds + 1 of them, as windows never overlap) hold at most `limit` calls
 * together, with the highest sustained rate. 40/min → 3 calls per 5 s: never more than 39 in any
 * 60 s, 36/min sustained.
 */
export function limiterWindow(limit: number, periodSeconds = 60): { points: number; seconds: number } {
  let best: { points: number; seconds: number; rate: number } | null = null;
  for (let seconds = 1; seconds <= periodSeconds; seconds += 1) {
    if (periodSeconds % seconds !== 0) continue;
    const points = Math.floor(limit / (periodSeconds / seconds + 1));
    if (points < 1) continue;
    const rate = points / seconds;
    if (!best || rate > best.rate) best = { points, seconds, rate };
  }
  if (!best) throw new RangeError(`a limit below 2 calls per ${periodSeconds} s cannot be held`);
  return { points: best.points, seconds: best.seconds };
}

const platformCallKey = (key: PlatformCallKey) => `${key.tenantId}:${key.platform}:${key.workspaceId ?? '-'}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createPlatformRateLimiter(options: {
  redis: RedisClient | null;
  /** Key prefix in Redis (replicas of one deployment share it). */
  prefix: string;
  /** Calls per period (PLATFORM_RATE_LIMIT_PER_MINUTE). */
  limit: number;
  /** The limit's period (60: per minute; tests shorten it to watch many periods). */
  periodSeconds?: number;
  overflow: 'queue' | 'degrade';
  /** queue: the longest one call waits for a slot before it degrades. */
  queueMaxMs: number;
}): PlatformRateLimiter {
  const { points, seconds } = limiterWindow(options.limit, options.periodSeconds ?? 60);
  const keyPrefix = `${options.prefix}platform-calls`;
  const memory = new RateLimiterMemory({ keyPrefix, points, duration: seconds });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix,
        points,
        duration: seconds,
        // Redis down: this process keeps its own count rather than calling without limit.
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;

  /** One attempt: null when granted, else how long until a slot frees up. */
  async function tryConsume(key: string): Promise<number | null> {
    try {
      await limiter.consume(key, 1);
      return null;
    } catch (error) {
      if (error instanceof RateLimiterRes) return Math.max(1, error.msBeforeNext);
      throw error;
    }
  }

  return {
    overflow: options.overflow,
    async acquire(callKey) {
      const key = platformCallKey(callKey);
      const started = Date.now();
      for (;;) {
        const waitMs = await tryConsume(key);
        const waitedMs = Date.now() - started;
        if (waitMs === null) return { granted: true, waitedMs };
        const canWait = options.overflow === 'queue' && waitedMs + waitMs <= options.queueMaxMs;
        if (!canWait) return { granted: false, waitedMs, retryAfterMs: waitMs, reason: 'rate_limited' };
        // A few ms past the window's end, so the retry lands in the next window on every replica.
        await sleep(waitMs + 5);
      }
    },
    async blockFor(callKey, ms) {
      await limiter.block(platformCallKey(callKey), Math.max(1, Math.ceil(ms / 1000)));
    },
  };
}
