// Start-up chores shared by the server and the key CLI: API keys from API_KEYS, and in
// development a generated key when none exists, printed once.
import type { Config } from './config.js';
import type { Services } from './modules/services.js';
import { generateApiKey } from './modules/tenants/tenants.repository.js';

export const DEV_TENANT = 'dev';

export async function bootstrapApiKeys(
  config: Config,
  services: Pick<Services, 'tenants'>,
  print: (line: string) => void,
): Promise<void> {
  for (const { tenantId, key } of config.API_KEYS) {
    await services.tenants.ensureTenant({ tenantId });
    await services.tenants.addApiKey({ tenantId, key, name: 'API_KEYS' });
  }
  if (config.API_KEYS.length > 0) return;
  if (config.NODE_ENV === 'production') {
    throw new Error('API_KEYS is required in production (tenant:key pairs); refusing to start without keys');
  }
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
