// contextd inside the example's own process, for the one-command path (no CONTEXTD_URL): the
// service as `npm start` builds it, on an in-memory embedded database, with a fresh API key for a
// tenant of its own. It lives as long as the example runs.
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import { generateApiKey } from '../../src/modules/tenants/tenants.repository.js';

export interface EmbeddedContextd {
  url: string;
  apiKey: string;
  tenantId: string;
  close(): Promise<void>;
}

export async function startEmbeddedContextd(options: {
  port: number;
  host?: string;
}): Promise<EmbeddedContextd> {
  const config = parseConfig({
    DATA_DIR: 'memory://example-slack-bot',
    LOG_LEVEL: 'warn',
    COMPACTION_WORKERS: '1',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps);
  const tenantId = 'example';
  const apiKey = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId, name: 'example bot' });
  await app.services.tenants.addApiKey({ tenantId, key: apiKey, name: 'example' });
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port });
  } catch (error) {
    await app.close();
    await closeDeps(deps);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `port ${options.port} is taken (is contextd already running there? then set CONTEXTD_URL and ` +
          `CONTEXTD_API_KEY to use it, or pass --contextd-port)`,
      );
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    apiKey,
    tenantId,
    close: async () => {
      await app.close();
      await closeDeps(deps);
    },
  };
}
