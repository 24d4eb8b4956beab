// `npm run keys -- create --tenant T [--name N]` | `list --tenant T` | `revoke --tenant T --id ID`
// | `secret --tenant T --platform slack --value S`
// | `platform-token --tenant T --platform slack --value xoxb-… [--workspace T0…]` (sealed like PUT
// /v1/platforms/{platform}/credentials)
// | `retention --tenant T [--conversation-days N|default] [--context-log-days N|default]` (like PUT
// /v1/tenant/retention; with neither option, prints the periods): the admin surface for tenants,
// keys, secrets, bot tokens and retention.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { DataDirInUseError, holdDataDir, type DataDirLock } from '../src/db/data-dir-lock.js';
import { embeddedDataDir } from '../src/deps.js';
import { runMigrations } from '../src/db/migrate.js';
import { systemClock, uuidV7Ids } from '../src/shared/clock.js';
import { AppError } from '../src/shared/errors.js';
import { createTenantsRepository, generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { createPlatformCredentialsRepository } from '../src/modules/platforms/platform-credentials.repository.js';
import { createPlatformCredentialsService } from '../src/modules/platforms/platform-credentials.service.js';
import { supportedPlatforms, type SupportedPlatform } from '../src/platforms/index.js';
import { createRetentionRepository } from '../src/modules/retention/retention.repository.js';
import { createRetentionService } from '../src/modules/retention/retention.service.js';
import { createSearchRedactionRepository } from '../src/modules/retention/search-redaction.repository.js';
import { retentionSettingsBody } from '../src/modules/retention/retention.schemas.js';
import { createMemoryLockManager } from '../src/coord/memory-lock.js';

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    tenant: { type: 'string' },
    name: { type: 'string' },
    id: { type: 'string' },
    platform: { type: 'string' },
    value: { type: 'string' },
    workspace: { type: 'string' },
    'conversation-days': { type: 'string' },
    'context-log-days': { type: 'string' },
  },
});
const usage =
  'usage: npm run keys -- create --tenant T [--name N] | list --tenant T | revoke --tenant T --id ID | secret --tenant T --platform P --value S | platform-token --tenant T --platform P --value TOKEN [--workspace W] | retention --tenant T [--conversation-days N|default] [--context-log-days N|default]';
if (!command || !values.tenant) {
  console.error(usage);
  process.exit(2);
}
const tenantId = values.tenant;
const config = loadConfig();
// The embedded database takes one process per DATA_DIR: refuse, rather than lose the write, while
// a server holds it.
let dataDirLock: DataDirLock | undefined;
try {
  dataDirLock = embeddedDataDir(config) ? holdDataDir(config.DATA_DIR, 'npm run keys') : undefined;
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  await runMigrations(database);
  const tenants = createTenantsRepository(database.db, uuidV7Ids);
  switch (command) {
    case 'create': {
      await tenants.ensureTenant({ tenantId });
      const key = generateApiKey();
      const { id } = await tenants.addApiKey({ tenantId, key, name: values.name ?? 'cli' });
      console.log(JSON.stringify({ tenant: tenantId, id, key }));
      break;
    }
    case 'list':
      console.log(JSON.stringify(await tenants.listApiKeys(tenantId), null, 2));
      break;
    case 'revoke': {
      if (!values.id) throw new Error('--id is required');
      const ok = await tenants.revokeApiKey({ tenantId, id: values.id, at: new Date() });
      console.log(ok ? 'revoked' : 'no such key');
      break;
    }
    case 'secret': {
      if (!values.platform || !values.value) throw new Error('--platform and --value are required');
      await tenants.ensureTenant({ tenantId });
      await tenants.setSecret({ tenantId, platform: values.platform, secret: values.value });
      console.log(`secret for ${values.platform} stored`);
      break;
    }
    case 'platform-token': {
      const platform = values.platform as SupportedPlatform | undefined;
      if (!platform || !supportedPlatforms.includes(platform) || !values.value) {
        throw new Error(`--platform (${supportedPlatforms.join(', ')}) and --value are required`);
      }
      await tenants.ensureTenant({ tenantId });
      const service = createPlatformCredentialsService({
        credentials: createPlatformCredentialsRepository(database.db),
        clock: systemClock,
        tokenKey: config.PLATFORM_TOKEN_KEY,
        production: config.NODE_ENV === 'production',
      });
      const { view } = await service.put({
        tenantId,
        platform,
        botToken: values.value,
        ...(values.workspace ? { workspaceId: values.workspace } : {}),
      });
      console.log(JSON.stringify(view));
      break;
    }
    case 'retention': {
      const service = createRetentionService({
        retention: createRetentionRepository(database.db),
        searchRedaction: createSearchRedactionRepository(database.db),
        locks: createMemoryLockManager(),
        clock: systemClock,
        config,
      });
      const current = await service.getSettings(tenantId);
      const given = (option: string | undefined, own: number | null) =>
        option === undefined ? own : option === 'default' ? null : Number(option);
      if (values['conversation-days'] !== undefined || values['context-log-days'] !== undefined) {
        // The API's body schema: the same bounds, and a bad value is named.
        const body = retentionSettingsBody.safeParse({
          conversation_days: given(values['conversation-days'], current.conversation_days),
          context_log_days: given(values['context-log-days'], current.context_log_days),
        });
        if (!body.success) {
          const issue = body.error.issues[0];
          console.error(`bad retention period (${issue?.path.join('.')}): ${issue?.message}`);
          process.exitCode = 2;
        } else console.log(JSON.stringify(await service.setSettings(tenantId, body.data)));
      } else console.log(JSON.stringify(current));
      break;
    }
    default:
      console.error(usage);
      process.exitCode = 2;
  }
} catch (error) {
  // Bad input (a token in the wrong shape) is a message, not a stack trace.
  if (!(error instanceof AppError)) throw error;
  console.error(error.message);
  process.exitCode = 2;
} finally {
  await database.close();
  dataDirLock?.release();
}
