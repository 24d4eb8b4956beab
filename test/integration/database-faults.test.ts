// The database failing under the service: backends terminated (pg_terminate_backend) and a frozen
// server (SIGSTOP on a private PostgreSQL). Reads are retried once; what cannot be retried is a 503
// with Retry-After and a stable code, never a 500; /readyz answers 503 within its deadline.
import type { LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { READY_CHECK_TIMEOUT_MS } from '../../src/http/health.routes.js';
import { DatabaseTimeoutError } from '../../src/shared/errors.js';
import {
  createTestApp,
  createTestDatabase,
  errorOf,
  usesRealPostgres,
  type TestContext,
  type TestTenant,
} from '../helpers/app.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';

// A frozen server never answers: a reply within this shows the deadline (1 s) held, with room for a
// loaded machine's timers.
const ANSWERED_WITHIN_MS = 10_000;

const memory = (text: string) => ({ scope: 'user', scope_key: 'U1', type: 'fact', text });

describe.skipIf(!usesRealPostgres)('terminated backends (needs TEST_DATABASE_URL)', () => {
  let ctx: TestContext;
  let t: TestTenant;
  let admin: postgres.Sql;
  beforeAll(async () => {
    // One pooled connection: the request after a termination runs on the terminated connection.
    // The deadlines are hang guards here, not what is tested (the frozen server below tests them):
    // under the full suite's load, a write right after the termination (its BEGIN, reconnects and
    // retries under one deadline) once answered 503 storage.timeout with 5 s and a 2 s connect.
    const testDb = await createTestDatabase();
    await testDb.database.close();
    const database = await openDatabase({
      databaseUrl: testDb.url,
      dataDir: '',
      maxConnections: 1,
      statementTimeoutMs: 60_000,
      connectTimeoutMs: 20_000,
    });
    ctx = await createTestApp({ redis: false, testDb: { ...testDb, database } });
    t = await ctx.tenant();
    admin = postgres(testDb.url!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await admin?.end();
    await ctx?.close();
    await ctx?.testDb.drop();
  });

  const terminateBackends = async () => {
    const rows = await admin`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and application_name = 'contextd'`;
    expect(rows.length).toBeGreaterThan(0);
  };

  it('retries a read and a BEGIN on a new connection; nothing is a 500', async () => {
    for (let round = 0; round < 3; round += 1) {
      expect((await t.inject({ url: '/v1/memories' })).statusCode).toBe(200);
      await terminateBackends();
      const list = await t.inject({ url: '/v1/memories' });
      expect(list.statusCode, list.body).toBe(200);
      await terminateBackends();
      // The cut is found at BEGIN, before anything ran, so the transaction runs again; a cut
      // inside a transaction would be a 503 to retry.
      const write = await t.inject({ method: 'POST', url: '/v1/memories', payload: memory(`w${round}`) });
      if (write.statusCode === 503) {
        expect(errorOf(write).code).toBe('storage.unavailable');
        expect(write.headers['retry-after']).toBe('1');
      } else {
        expect(write.statusCode, write.body).toBe(201);
      }
      // The service recovers: the next write succeeds, at worst after one retry of a 503 (the
      // answer a client retries on).
      let next = await t.inject({ method: 'POST', url: '/v1/memories', payload: memory(`n${round}`) });
      if (next.statusCode === 503) {
        expect(next.headers['retry-after']).toBe('1');
        // Another text: a write cut at its COMMIT may have committed.
        next = await t.inject({ method: 'POST', url: '/v1/memories', payload: memory(`n${round}-retry`) });
      }
      expect(next.statusCode, next.body).toBe(201);
    }
  });
});

describe.skipIf(!usesRealPostgres)('a frozen PostgreSQL (private server; needs TEST_DATABASE_URL)', () => {
  let pg: PrivatePostgres;
  let ctx: TestContext;
  let t: TestTenant;
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    const database = await openDatabase({
      databaseUrl: pg.url,
      dataDir: '',
      maxConnections: 4,
      statementTimeoutMs: 1_000,
      connectTimeoutMs: 1_000,
    });
    await runMigrations(database);
    ctx = await createTestApp({
      redis: false,
      testDb: { database, url: pg.url, drop: () => database.close() },
    });
    t = await ctx.tenant();
  });
  afterAll(async () => {
    pg?.thaw();
    await ctx?.close();
    await ctx?.testDb.drop();
    pg?.stop();
  });

  it('answers 503 storage.timeout within the deadline and /readyz 503, then recovers', async () => {
    expect((await t.inject({ url: '/v1/memories' })).statusCode).toBe(200);
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'C1' },
    });
    const sessionId = created.json().session.id as string;
    pg.freeze();
    try {
      const timed = async (request: () => Promise<LightMyRequestResponse>) => {
        const started = Date.now();
        const response = await request();
        return { response, ms: Date.now() - started };
      };
      const read = await timed(() => t.inject({ url: '/v1/memories' }));
      expect(read.response.statusCode).toBe(503);
      expect(read.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      const write = await timed(() =>
        t.inject({ method: 'POST', url: '/v1/memories', payload: memory('x') }),
      );
      expect(write.response.statusCode).toBe(503);
      expect(write.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect(errorOf(write.response).code).toBe('storage.timeout');
      expect(write.response.headers['retry-after']).toBe('1');
      // A write under a session lock (a PostgreSQL lease row without Redis).
      const turns = await timed(() =>
        t.inject({
          method: 'POST',
          url: `/v1/sessions/${sessionId}/turns`,
          payload: { turns: [{ role: 'user', content: 'hello' }] },
        }),
      );
      expect(turns.response.statusCode).toBe(503);
      expect(turns.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      // Compaction takes the session's lock (a lease row here) after reading the session.
      const compact = await timed(() =>
        t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/compact`, payload: { wait: true } }),
      );
      // (It answered 404 session.not_found: the session lookup took any failure for "missing".)
      expect(compact.response.statusCode, compact.response.body).toBe(503);
      expect(compact.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      // The lease lock (the lock backend without Redis) is held to the same deadline.
      const lockStarted = Date.now();
      await expect(ctx.deps.locks.acquire('frozen-resource', { ttlMs: 5_000 })).rejects.toBeInstanceOf(
        DatabaseTimeoutError,
      );
      expect(Date.now() - lockStarted).toBeLessThan(ANSWERED_WITHIN_MS);
      const ready = await timed(() => ctx.app.inject({ url: '/readyz' }));
      expect(ready.response.statusCode).toBe(503);
      expect(ready.ms).toBeLessThan(READY_CHECK_TIMEOUT_MS + ANSWERED_WITHIN_MS);
    } finally {
      pg.thaw();
    }
    // Thawed: the service answers again without a restart.
    let status = 0;
    for (let i = 0; i < 50 && status !== 201; i += 1) {
      status = (await t.inject({ method: 'POST', url: '/v1/memories', payload: memory('thawed') }))
        .statusCode;
      if (status !== 201) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(201);
    expect((await ctx.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const lock = await ctx.deps.locks.acquire('frozen-resource', { ttlMs: 5_000, waitMs: 5_000 });
    await lock!.release();
  });
});
