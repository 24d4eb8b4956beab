// Once per run: with TEST_DATABASE_URL, build a migrated template database that every test file
// of this run clones (CREATE DATABASE … TEMPLATE). Names carry the run's start time, so
// concurrent runs never touch each other's databases; leftovers of runs older than two hours
// (crashed or killed) are dropped.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { databaseUrl, TEST_DATABASE_URL, TEST_DB_PREFIX, TEST_PGBOUNCER } from './env.js';
import { startPgBouncer } from './pgbouncer.js';

const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

declare module 'vitest' {
  export interface ProvidedContext {
    testRunId: string;
    /** The run's PgBouncer (TEST_PGBOUNCER); 0: none. */
    poolerPort: number;
  }
}

async function dropDatabases(admin: postgres.Sql, keep: (name: string) => boolean) {
  const rows = await admin<{ datname: string }[]>`
    select datname from pg_database where datname like ${TEST_DB_PREFIX + '%'}`;
  for (const { datname } of rows) {
    if (!keep(datname)) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
  }
}

export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  project.provide('testRunId', runId);
  project.provide('poolerPort', 0);
  if (!TEST_DATABASE_URL) return;
  const runPrefix = `${TEST_DB_PREFIX}${runId}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await dropDatabases(admin, (name) => {
      const started = parseInt(name.slice(TEST_DB_PREFIX.length).split('_')[0] ?? '', 36);
      return Number.isFinite(started) && Date.now() - started < STALE_AFTER_MS;
    });
    await admin.unsafe(`create database "${runPrefix}_template"`);
  } finally {
    await admin.end();
  }
  const template = await openDatabase({
    databaseUrl: databaseUrl(TEST_DATABASE_URL, `${runPrefix}_template`),
    dataDir: '',
  });
  try {
    await runMigrations(template);
  } finally {
    await template.close();
  }
  const pooler = TEST_PGBOUNCER
    ? await startPgBouncer({ serverUrl: TEST_DATABASE_URL, poolMode: TEST_PGBOUNCER })
    : null;
  if (pooler) project.provide('poolerPort', pooler.port);
  return async () => {
    pooler?.stop();
    const cleanup = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    await dropDatabases(cleanup, (name) => !name.startsWith(runPrefix));
    await cleanup.end();
  };
}
