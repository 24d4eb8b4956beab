// The platform clients' gate backed by the shared rate limiter: every call takes a slot of its
// (tenant, platform, workspace) bucket or fails `rate_limited` with the delay; a platform 429
// holds the bucket back on every replica until its Retry-After has passed.
import type { PlatformRateLimiter } from '../../coord/platform-rate-limiter.js';
import type { PlatformCallGate } from './platform-call.js';
import { PlatformApiError } from './platform-errors.js';

/** Without a Retry-After, a 429 holds the bucket this long. */
const DEFAULT_RETRY_AFTER_MS = 30_000;

export function rateLimitGate(limiter: PlatformRateLimiter): PlatformCallGate {
  return {
    async acquire(key) {
      const permit = await limiter.acquire(key);
      if (permit.granted) return;
      throw new PlatformApiError(
        'rate_limited',
        `${key.platform} calls of this workspace are over the rate limit (${limiter.overflow}); next slot in ${Math.ceil(permit.retryAfterMs / 1000)} s`,
        { retryAfterMs: permit.retryAfterMs },
      );
    },
    async onRateLimited(key, retryAfterMs) {
      await limiter.blockFor(key, retryAfterMs ?? DEFAULT_RETRY_AFTER_MS);
    },
  };
}
