// Which real services the suite may use. Tests read the environment here and nowhere else.
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
/**
 * `transaction`: the run starts a PgBouncer in transaction mode in front of TEST_DATABASE_URL's
 * server (global-setup.ts) and every test app reaches its database through it, with
 * DATABASE_POOL_MODE=transaction; the tests' own checks still connect directly.
 */
export const TEST_PGBOUNCER = process.env.TEST_PGBOUNCER === 'transaction' ? 'transaction' : undefined;
export const TEST_DB_PREFIX = 'contextd_test_';

/** Connection string for another database on the same server. */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}
