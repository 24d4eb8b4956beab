// Wires platform access: stored bot tokens, the API clients they open (with the call gate a shared
// rate limiter replaces; AppDeps.platformGate), the user directory with its resolver, and media
// bytes fetched on demand.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { PlatformApiError } from '../../platforms/api/platform-errors.js';
import { createPlatformApis } from '../../platforms/api/platform-api.js';
import { createPlatformCredentialsRepository } from './platform-credentials.repository.js';
import { createPlatformCredentialsService } from './platform-credentials.service.js';
import { createUserDirectoryRepository } from './user-directory.repository.js';
import { createUserDirectoryService } from './user-directory.service.js';
import { createUserResolver } from './user-resolver.service.js';
import { createPlatformMediaService } from './platform-media.service.js';
import { createBlobsRepository } from '../sessions/blobs.repository.js';
import { createChannelMediaWriter } from '../channels/channel-media.repository.js';
import { createPlatformRateLimiter } from '../../coord/platform-rate-limiter.js';
import { rateLimitGate } from '../../platforms/api/rate-limit-gate.js';

export function createPlatformsModule(deps: AppDeps, log?: Pick<FastifyBaseLogger, 'warn'>) {
  const db = deps.database.db;
  const platformCredentials = createPlatformCredentialsService({
    credentials: createPlatformCredentialsRepository(db),
    clock: deps.clock,
    tokenKey: deps.config.PLATFORM_TOKEN_KEY,
    production: deps.config.NODE_ENV === 'production',
  });
  const platformApis = createPlatformApis(deps.config, deps.platformGate ?? sharedRateLimitGate(deps));
  const directory = createUserDirectoryRepository(db);
  const ttlMs = deps.config.PLATFORM_NAME_TTL_MS;
  const userResolver = createUserResolver({
    directory,
    credentials: platformCredentials,
    apis: platformApis,
    clock: deps.clock,
    ttlMs,
    // Platform errors carry no token (their messages are redacted); anything else is logged as is.
    onError: (error) =>
      log?.warn(
        error instanceof PlatformApiError
          ? { platformError: { kind: error.kind, message: error.message, ...error.details } }
          : { err: error },
        'author name lookup failed',
      ),
  });
  return {
    platformCredentials,
    platformApis,
    platformMedia: createPlatformMediaService({
      credentials: platformCredentials,
      apis: platformApis,
      blobs: createBlobsRepository(db),
      media: createChannelMediaWriter(db),
      ids: deps.ids,
      config: deps.config,
    }),
    userResolver,
    userDirectory: createUserDirectoryService({
      directory,
      resolver: userResolver,
      clock: deps.clock,
      ttlMs,
    }),
  };
}

export type PlatformsModule = ReturnType<typeof createPlatformsModule>;

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
