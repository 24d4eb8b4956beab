// Weekly partitions of the context log and its payload parts (src/db/partitions.ts), on PGlite and
// PostgreSQL alike: a call and its parts land in the partitions of the call's week; a row no weekly
// partition covers (far in the past or the future) lands in the default partition and moves out
// when its week is created; retention drops whole weeks past the longest context-log period and
// keeps the newer ones, deleting old rows of the default partition row by row; replays read the
// same bytes wherever the rows are. And migration 0023 on a database that holds rows already.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Executor } from '../../src/db/client.js';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate.js';
import { ensureWeeklyPartitions, listWeeklyPartitions, weekStart } from '../../src/db/partitions.js';
import { contextLog, payloadParts } from '../../src/db/schema.js';
import { createContextRepository } from '../../src/modules/context/context.repository.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { databaseUrl, TEST_DATABASE_URL, TEST_DB_PREFIX } from '../helpers/env.js';

const DAY = 86_400_000;
let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { CONTEXT_LOG_RETENTION_DAYS: '90' } });
  t = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const weeksOf = (...weeks: string[]) =>
  weeks.flatMap((w) => [`context_log_p${w.replaceAll('-', '')}`, `payload_parts_p${w.replaceAll('-', '')}`]);

/** Which partition holds each of the session's calls, and each of the tenant's parts of the call's week. */
async function placement(db: Executor, tenantId: string, sessionId: string) {
  const calls = await queryRows<{ turn_seq: number; part: string; week: string }>(
    db,
    sql`select turn_seq, tableoid::regclass::text as part,
          (date_trunc('week', created_at at time zone 'UTC') at time zone 'UTC')::text as week
        from context_log where tenant_id = ${tenantId} and session_id = ${sessionId} order by turn_seq`,
  );
  const parts = await queryRows<{ part: string; n: number }>(
    db,
    sql`select p.tableoid::regclass::text as part, count(*)::int as n from payload_parts p
        where p.tenant_id = ${tenantId} and exists (select 1 from context_log l
          where l.tenant_id = p.tenant_id and l.session_id = ${sessionId}
            and p.sha256 = any (l.payload_parts)
            and p.week = date_trunc('week', l.created_at at time zone 'UTC') at time zone 'UTC')
        group by 1 order by 1`,
  );
  return { calls: calls.map((c) => `${c.turn_seq}:${c.part}`), parts: parts.map((p) => p.part) };
}

async function newSession() {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: {
      agent_id: 'bot',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: `C${randomBytes(3).toString('hex')}`,
    },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

/** One logged context call at the clock's time; its turn and the payload's bytes. */
async function call(sessionId: string, text: string) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/context`,
    payload: {
      message: { content: text },
      system: [{ name: 'base', text: 'You are the release assistant.' }],
    },
  });
  expect(response.statusCode).toBe(200);
  const reply = response.json();
  return {
    seq: reply.turn_seq as number,
    body: JSON.stringify(reply.payload),
    sha: reply.payload_sha256 as string,
  };
}

async function replay(sessionId: string, seq: number) {
  return t.inject({ url: `/v1/sessions/${sessionId}/context-log/${seq}/payload` });
}

describe('weekly partitions of the context log and its payload parts', () => {
  const march = '2026-03-04T10:00:00.000Z'; // a Wednesday: the week of Monday 2026-03-02
  const april = '2026-04-15T10:00:00.000Z'; // the week of 2026-04-13, not created ahead in March
  let marchSession: string;
  let marchCall: { seq: number; body: string; sha: string };
  let aprilSession: string;
  let aprilCall: { seq: number; body: string; sha: string };

  it('creates the current week and two ahead, and logs a call and its parts in its week', async () => {
    ctx.clock.set(march);
    expect(await ctx.app.services.retention.preparePartitions()).toEqual(
      weeksOf('2026-03-02', '2026-03-09', '2026-03-16'),
    );
    // Again: nothing to do.
    expect(await ctx.app.services.retention.preparePartitions()).toEqual([]);
    marchSession = await newSession();
    marchCall = await call(marchSession, 'What changed in build 3001?');
    const second = await call(marchSession, 'And in build 3002?');
    expect(await placement(ctx.deps.database.db, t.tenantId, marchSession)).toEqual({
      calls: [`${marchCall.seq}:context_log_p20260302`, `${second.seq}:context_log_p20260302`],
      parts: ['payload_parts_p20260302'],
    });
    const replayed = await replay(marchSession, marchCall.seq);
    expect(replayed.statusCode).toBe(200);
    expect(replayed.body).toBe(marchCall.body);
    expect(sha256(replayed.body)).toBe(marchCall.sha);
  });

  it('puts rows no weekly partition covers in the default partition; creating their week moves them', async () => {
    ctx.clock.set(april);
    aprilSession = await newSession();
    aprilCall = await call(aprilSession, 'What changed in build 4001?');
    expect(await placement(ctx.deps.database.db, t.tenantId, aprilSession)).toEqual({
      calls: [`${aprilCall.seq}:context_log_default`],
      parts: ['payload_parts_default'],
    });
    expect((await replay(aprilSession, aprilCall.seq)).body).toBe(aprilCall.body);

    // Far in the past and far in the future: the default partition takes them too.
    const db = ctx.deps.database.db;
    const row = (turnSeq: number, at: string) => ({
      tenantId: t.tenantId,
      sessionId: aprilSession,
      turnSeq,
      laneKey: 'root:session',
      laneVersion: 0,
      payloadSha256: `far-${turnSeq}`,
      budget: {},
      createdAt: new Date(at),
      payloadParts: [`far-part-${turnSeq}`],
    });
    await db.insert(contextLog).values([row(900, '1999-12-31T23:59:59Z'), row(901, '2999-01-01T00:00:00Z')]);
    await db.insert(payloadParts).values(
      [
        [900, '1999-12-31T23:59:59Z'],
        [901, '2999-01-01T00:00:00Z'],
      ].map(([seq, at]) => ({
        tenantId: t.tenantId,
        week: weekStart(new Date(at as string)),
        sha256: `far-part-${seq}`,
        body: '"far"',
        createdAt: new Date(at as string),
      })),
    );
    expect((await placement(db, t.tenantId, aprilSession)).calls).toEqual([
      `${aprilCall.seq}:context_log_default`,
      '900:context_log_default',
      '901:context_log_default',
    ]);

    // The pass of the April week creates it (and two ahead), moving the April rows out of the default.
    expect(await ctx.app.services.retention.preparePartitions()).toEqual(
      weeksOf('2026-04-13', '2026-04-20', '2026-04-27'),
    );
    expect(await placement(db, t.tenantId, aprilSession)).toEqual({
      calls: [`${aprilCall.seq}:context_log_p20260413`, '900:context_log_default', '901:context_log_default'],
      parts: ['payload_parts_default', 'payload_parts_p20260413'],
    });
    const replayed = await replay(aprilSession, aprilCall.seq);
    expect(replayed.body).toBe(aprilCall.body);
  });

  it('drops the weeks past the longest context-log period whole and keeps the newer ones', async () => {
    // 100 days after the March call: its week (ended 2026-03-09) is past 90 days, the next one
    // (ends 2026-03-16, after the cutoff 2026-03-14) is not.
    const now = new Date(new Date(march).getTime() + 100 * DAY);
    ctx.clock.set(now);
    const report = await ctx.app.services.retention.runRetention(now);
    if (!report.ran) throw new Error('the pass did not run');
    expect(report.partitions.dropped).toEqual(weeksOf('2026-03-02'));
    expect(report.partitions.failed).toEqual([]);
    expect(report.partitions.created).toEqual(weeksOf('2026-06-08', '2026-06-15', '2026-06-22'));
    // The 1999 row of the default partition goes row by row, with its part; 2999 stays.
    expect(report.counts.context_log).toBe(1);
    expect(report.counts.payload_parts).toBe(1);

    const weeks = (await listWeeklyPartitions(ctx.deps.database.db)).map((p) => p.name);
    expect(weeks).not.toContain('context_log_p20260302');
    expect(weeks).not.toContain('payload_parts_p20260302');
    expect(weeks).toEqual(
      expect.arrayContaining(weeksOf('2026-03-09', '2026-03-16', '2026-04-13', '2026-06-08')),
    );
    expect(await placement(ctx.deps.database.db, t.tenantId, marchSession)).toEqual({ calls: [], parts: [] });
    expect(errorOf(await replay(marchSession, marchCall.seq)).code).toBe('context_log.not_found');
    // The April call (58 days old) is kept and replays byte for byte.
    expect(await placement(ctx.deps.database.db, t.tenantId, aprilSession)).toEqual({
      calls: [`${aprilCall.seq}:context_log_p20260413`, '901:context_log_default'],
      parts: ['payload_parts_default', 'payload_parts_p20260413'],
    });
    expect((await replay(aprilSession, aprilCall.seq)).body).toBe(aprilCall.body);
    // A call of the new week lands in its partition.
    const june = await call(aprilSession, 'What changed in build 6001?');
    expect((await placement(ctx.deps.database.db, t.tenantId, aprilSession)).calls).toContain(
      `${june.seq}:context_log_p20260608`,
    );
  });

  it('drops no week while a tenant keeps its context log for good', async () => {
    const forever = await ctx.tenant();
    const put = await forever.inject({
      method: 'PUT',
      url: '/v1/tenant/retention',
      payload: { conversation_days: null, context_log_days: 0 },
    });
    expect(put.statusCode).toBe(200);
    const later = new Date(ctx.clock.now().getTime() + 365 * DAY);
    const report = await ctx.app.services.retention.runRetention(later);
    expect(report.ran && report.partitions.dropped).toEqual([]);
    expect((await listWeeklyPartitions(ctx.deps.database.db)).map((p) => p.name)).toContain(
      'context_log_p20260413',
    );
  });
});

describe('instances starting together', () => {
  it('create each partition once: concurrent creators take turns', async () => {
    const now = new Date('2027-03-03T00:00:00.000Z');
    const created = await Promise.all([1, 2, 3].map(() => ctx.app.services.retention.preparePartitions(now)));
    expect(created.flat().sort()).toEqual(weeksOf('2027-03-01', '2027-03-08', '2027-03-15').sort());
  });
});

describe('migration 0023 on a database holding rows', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** The migrations before 0023 in a folder of their own. */
  function migrationsBefore(tag: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'contextd-migrations-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'meta'));
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const index = journal.entries.findIndex((e) => e.tag === tag);
    journal.entries = journal.entries.slice(0, index);
    writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify(journal));
    for (const e of journal.entries)
      copyFileSync(join(MIGRATIONS_FOLDER, `${e.tag}.sql`), join(dir, `${e.tag}.sql`));
    return dir;
  }

  async function freshDatabase() {
    if (!TEST_DATABASE_URL) {
      const database = await openDatabase({ dataDir: 'memory://' });
      return { database, drop: () => database.close() };
    }
    const name = `${TEST_DB_PREFIX}partitions_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const database = await openDatabase({ databaseUrl: databaseUrl(TEST_DATABASE_URL, name), dataDir: '' });
    return {
      database,
      drop: async () => {
        await database.close();
        const cleanup = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
        await cleanup.end();
      },
    };
  }

  it('moves the calls to the default partition and copies each part into every week that names it', async () => {
    const { database, drop } = await freshDatabase();
    try {
      const db = database.db;
      await runMigrations(database, migrationsBefore('0023_partitioned_context_log'));
      const session = '0190b3c2-7d1e-7abc-8def-000000000001';
      // Two calls a week apart (Tuesday 2026-02-03 and Tuesday 2026-02-10), parts x y and y z, and
      // a part no call names.
      await db.execute(sql`insert into context_log (tenant_id, session_id, turn_seq, lane_key, lane_version,
          payload_sha256, budget, created_at, payload_layout, payload_parts) values
        ('acme', ${session}, 1, 'root:session', 0, 'h1', '{}'::jsonb, '2026-02-03T12:00:00Z', '{"layout":1}', array['x', 'y']),
        ('acme', ${session}, 2, 'root:session', 0, 'h2', '{}'::jsonb, '2026-02-10T12:00:00Z', '{"layout":2}', array['y', 'z'])`);
      await db.execute(sql`insert into payload_parts (tenant_id, sha256, body, created_at) values
        ('acme', 'x', '"x"', '2026-02-03T12:00:00Z'), ('acme', 'y', '"y"', '2026-02-03T12:00:00Z'),
        ('acme', 'z', '"z"', '2026-02-10T12:00:00Z'), ('acme', 'orphan', '"o"', '2026-01-01T00:00:00Z')`);

      await runMigrations(database);
      const calls = await queryRows<{ turn_seq: number; part: string }>(
        db,
        sql`select turn_seq, tableoid::regclass::text as part from context_log order by turn_seq`,
      );
      expect(calls).toEqual([
        { turn_seq: 1, part: 'context_log_default' },
        { turn_seq: 2, part: 'context_log_default' },
      ]);
      const parts = await queryRows<{ week: string; sha256: string }>(
        db,
        sql`select to_char(week at time zone 'UTC', 'YYYY-MM-DD') as week, sha256 from payload_parts order by 1, 2`,
      );
      expect(parts).toEqual([
        { week: '2026-02-02', sha256: 'x' },
        { week: '2026-02-02', sha256: 'y' },
        { week: '2026-02-09', sha256: 'y' },
        { week: '2026-02-09', sha256: 'z' },
      ]);
      const repository = createContextRepository(db);
      expect(await repository.loggedPayload({ tenantId: 'acme', sessionId: session, turnSeq: 2 })).toEqual({
        sha256: 'h2',
        layout: '{"layout":2}',
        bodies: ['"y"', '"z"'],
      });
      // Creating the weeks moves the rows out of the default partition.
      await ensureWeeklyPartitions(db, { now: new Date('2026-02-03T00:00:00Z'), ahead: 1 });
      const moved = await queryRows<{ part: string }>(
        db,
        sql`select tableoid::regclass::text as part from payload_parts order by 1`,
      );
      expect(moved.map((r) => r.part)).toEqual([
        'payload_parts_p20260202',
        'payload_parts_p20260202',
        'payload_parts_p20260209',
        'payload_parts_p20260209',
      ]);
      expect(
        (await repository.loggedPayload({ tenantId: 'acme', sessionId: session, turnSeq: 1 }))?.bodies,
      ).toEqual(['"x"', '"y"']);
    } finally {
      await drop();
    }
  });
});
