// Wires platform access: stored bot tokens and the API clients they open (with the call gate a
// shared rate limiter replaces; AppDeps.platformGate).
import type { AppDeps } from '../../deps.js';
import { createPlatformApis } from '../../platforms/api/platform-api.js';
import { createPlatformCredentialsRepository } from './platform-credentials.repository.js';
import { createPlatformCredentialsService } from './platform-credentials.service.js';
import { createPlatformRateLimiter } from '../../coord/platform-rate-limiter.js';
import { rateLimitGate } from '../../platforms/api/rate-limit-gate.js';

export function createPlatformsModule(deps: AppDeps) {
  const platformCredentials = createPlatformCredentialsService({
    credentials: createPlatformCredentialsRepository(deps.database.db),
    clock: deps.clock,
    tokenKey: deps.config.PLATFORM_TOKEN_KEY,
  });
  return {
    platformCredentials,
    platformApis: createPlatformApis(deps.config, deps.platformGate ?? sharedRateLimitGate(deps)),
  };
}

/** The default gate: one limiter per (tenant, platform, workspace), shared through Redis when there is one. */
function sharedRateLimitGate(deps: AppDeps) {
  return rateLimitGate(
    createPlatformRateLimiter({
      redis: deps.redis,
      prefix: deps.redisPrefix,
      limit: deps.config.PLATFORM_RATE_LIMIT_PER_MINUTE,
      overflow: deps.config.PLATFORM_RATE_OVERFLOW,
      queueMaxMs: deps.config.PLATFORM_RATE_QUEUE_MAX_MS,
    }),
  );
}
