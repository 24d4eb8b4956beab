// Tests: unit tests of pure logic and integration tests through app.inject against a real
// database (PGlite by default; PostgreSQL and Redis when TEST_DATABASE_URL / TEST_REDIS_URL are set).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace's @contextd/client resolves to its TypeScript source, not its build (client/dist).
  ssr: { resolve: { conditions: ['@contextd/source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
