// Tests: unit tests of pure logic and integration tests through app.inject against a real
// database (PGlite by default; PostgreSQL and Redis when TEST_DATABASE_URL / TEST_REDIS_URL are set).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace's @contextd/client resolves to its TypeScript source, not its build (client/dist).
  resolve: {
    alias: [
      {
        find: /^@contextd\/client$/,
        replacement: fileURLToPath(new URL('client/src/index.ts', import.meta.url)),
      },
      {
        find: /^@contextd\/client\/ai-sdk$/,
        replacement: fileURLToPath(new URL('client/src/ai-sdk.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Hang guards, not speed limits: every test bounds its work, and how long that takes depends on
    // how loaded the machine is (an app's setup takes 30 s at a load of 20 on two cores).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
