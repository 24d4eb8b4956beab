// Wires platform access: stored bot tokens and the API clients they open (with the call gate a
// shared rate limiter replaces; AppDeps.platformGate).
import type { AppDeps } from '../../deps.js';
import { createPlatformApis } from '../../platforms/api/platform-api.js';
import { createPlatformCredentialsRepository } from './platform-credentials.repository.js';
import { createPlatformCredentialsService } from './platform-credentials.service.js';

export function createPlatformsModule(deps: AppDeps) {
  const platformCredentials = createPlatformCredentialsService({
    credentials: createPlatformCredentialsRepository(deps.database.db),
    clock: deps.clock,
    tokenKey: deps.config.PLATFORM_TOKEN_KEY,
  });
  return {
    platformCredentials,
    platformApis: createPlatformApis(deps.config, deps.platformGate),
  };
}
