// Start-up chores shared by the server and the key CLI: API keys from API_KEYS, and in
// development a generated key when none exists, printed once; production refuses to start without
// API_KEYS, or without PLATFORM_TOKEN_KEY when bot tokens are stored.
import type { Config } from './config.js';
import type { Services } from './modules/services.js';
import { generateApiKey } from './modules/tenants/tenants.repository.js';

export const DEV_TENANT = 'dev';

export async function bootstrapApiKeys(
  config: Config,
  services: Pick<Services, 'tenants' | 'platformCredentials'>,
  print: (line: string) => void,
): Promise<void> {
  if (config.NODE_ENV === 'production' && config.API_KEYS.length === 0) {
    throw new Error('API_KEYS is required in production (tenant:key pairs); refusing to start without keys');
  }
  // As with API_KEYS: production does not run with bot tokens it cannot seal (the service also
  // refuses to store one without the key).
  if (config.NODE_ENV === 'production' && !config.PLATFORM_TOKEN_KEY) {
    if (await services.platformCredentials.anyStored()) {
      throw new Error(
        'PLATFORM_TOKEN_KEY is required in production when platform bot tokens are stored (32 bytes, hex or base64); refusing to start',
      );
    }
  }
  for (const { tenantId, key } of config.API_KEYS) {
    await services.tenants.ensureTenant({ tenantId });
    await services.tenants.addApiKey({ tenantId, key, name: 'API_KEYS' });
  }
  if (config.API_KEYS.length > 0) return;
  await services.tenants.ensureTenant({ tenantId: DEV_TENANT, name: 'development' });
  if ((await services.tenants.listApiKeys(DEV_TENANT)).some((k) => k.name === 'dev' && !k.revokedAt)) {
    print(
      `development tenant "${DEV_TENANT}" already has a key (npm run keys -- create --tenant dev for another)`,
    );
    return;
  }
  const key = generateApiKey();
  await services.tenants.addApiKey({ tenantId: DEV_TENANT, key, name: 'dev' });
  print(`development API key for tenant "${DEV_TENANT}": ${key}`);
}
