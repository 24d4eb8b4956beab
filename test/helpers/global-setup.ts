// Once per run: with TEST_DATABASE_URL, build a migrated template database that every test file
// clones (CREATE DATABASE … TEMPLATE), and drop the clones of earlier runs.
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { databaseUrl, TEMPLATE_DB, TEST_DATABASE_URL, TEST_DB_PREFIX } from './env.js';

export default async function setup() {
  if (!TEST_DATABASE_URL) return;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like ${TEST_DB_PREFIX + '%'}`;
    for (const { datname } of stale) {
      await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    }
    await admin.unsafe(`create database "${TEMPLATE_DB}"`);
  } finally {
    await admin.end();
  }
  const template = await openDatabase({
    databaseUrl: databaseUrl(TEST_DATABASE_URL, TEMPLATE_DB),
    dataDir: '',
  });
  try {
    await runMigrations(template);
  } finally {
    await template.close();
  }
  return async () => {
    const cleanup = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    const left = await cleanup<{ datname: string }[]>`
      select datname from pg_database where datname like ${TEST_DB_PREFIX + '%'}`;
    for (const { datname } of left) await cleanup.unsafe(`drop database if exists "${datname}" with (force)`);
    await cleanup.end();
  };
}
