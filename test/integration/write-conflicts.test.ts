// A transaction the server rolls back for a deadlock or a serialization failure runs again, a
// bounded number of times; past that the client gets 503 storage.write_conflict with Retry-After,
// never a 500, and nothing is written. A real deadlock is forced on PostgreSQL; on both drivers a
// trigger makes the context call's transcript write fail with the server's own SQLSTATEs.
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import {
  createTestApp,
  errorOf,
  usesRealPostgres,
  type TestContext,
  type TestTenant,
} from '../helpers/app.js';

let ctx: TestContext;
let tenant: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  tenant = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const db = () => ctx.deps.database.db;

/** Makes the next `failures` inserts into transcript_entries fail with `sqlstate`; counts every try. */
async function failTranscriptWrites(sqlstate: '40P01' | '40001', failures: number) {
  await db().execute(sql.raw(`drop trigger if exists forced_conflict on transcript_entries`));
  await db().execute(sql.raw(`drop sequence if exists forced_conflict_tries`));
  await db().execute(sql.raw(`create sequence forced_conflict_tries`));
  // A sequence is not rolled back with the transaction that advanced it: it counts the tries.
  await db().execute(
    sql.raw(`create or replace function forced_conflict() returns trigger language plpgsql as $$
      begin
        if nextval('forced_conflict_tries') <= ${failures} then
          raise exception 'forced conflict' using errcode = '${sqlstate}';
        end if;
        return new;
      end $$`),
  );
  await db().execute(
    sql.raw(`create trigger forced_conflict before insert on transcript_entries
             for each row execute function forced_conflict()`),
  );
}

async function triesAndStop(): Promise<number> {
  const [row] = await queryRows<{ n: string }>(db(), sql`select last_value as n from forced_conflict_tries`);
  await db().execute(sql.raw(`drop trigger forced_conflict on transcript_entries`));
  return Number(row!.n);
}

async function contextCall(channel: string) {
  const created = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channel },
  });
  const sessionId = created.json().session.id as string;
  const response = await tenant.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/context`,
    payload: { message: { content: 'When do we ship?' } },
  });
  const transcript = await tenant.inject({ url: `/v1/sessions/${sessionId}/transcript` });
  return { response, entries: (transcript.json() as { entries: unknown[] }).entries };
}

describe('write conflicts', () => {
  it.each(['40P01', '40001'] as const)(
    'a context call whose transaction is rolled back (%s) twice is retried and answers 200',
    async (sqlstate) => {
      await failTranscriptWrites(sqlstate, 2);
      const { response, entries } = await contextCall(`C-${sqlstate}`);
      expect(await triesAndStop()).toBe(3);
      expect(response.statusCode, response.body).toBe(200);
      expect(entries).toHaveLength(1);
    },
  );

  it('past the retries the answer is 503 storage.write_conflict with Retry-After, and nothing is written', async () => {
    await failTranscriptWrites('40P01', 1_000);
    const { response, entries } = await contextCall('C-always');
    expect(await triesAndStop()).toBe(4);
    expect(response.statusCode).toBe(503);
    expect(errorOf(response).code).toBe('storage.write_conflict');
    expect(response.headers['retry-after']).toBe('1');
    expect(entries).toEqual([]);
  });

  it.runIf(usesRealPostgres)(
    'a real deadlock: the transaction the server picks is run again and commits',
    async () => {
      await db().execute(sql.raw(`create table deadlock_rows (id int primary key, v int not null)`));
      await db().execute(sql.raw(`insert into deadlock_rows values (1, 0), (2, 0)`));
      const other = postgres(ctx.testDb.url!, { max: 1, onnotice: () => {} });
      try {
        const conn = await other.reserve();
        // The other transaction waits long before checking for a deadlock, so ours (the default
        // 1 s) is the one the server rolls back.
        await conn`begin`;
        await conn`set local deadlock_timeout = '60s'`;
        await conn`update deadlock_rows set v = v + 1 where id = 2`;
        let otherUpdate: Promise<unknown> | undefined;
        let attempts = 0;
        const ours = db().transaction(async (tx) => {
          attempts += 1;
          await tx.execute(sql`update deadlock_rows set v = v + 10 where id = 1`);
          if (attempts === 1) {
            otherUpdate = conn`update deadlock_rows set v = v + 1 where id = 1`.then((r) => r);
            // Until the other transaction waits for our row: then ours waiting for its row is a cycle.
            for (let i = 0; i < 10_000; i += 1) {
              const [waiting] = await queryRows<{ n: number }>(
                db(),
                sql`select count(*)::int as n from pg_stat_activity
                  where wait_event_type = 'Lock' and query like 'update deadlock_rows set v = v + 1 where id = 1%'`,
              );
              if (waiting!.n > 0) break;
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          }
          await tx.execute(sql`update deadlock_rows set v = v + 10 where id = 2`);
        });
        // Our first try is rolled back, so the other transaction gets row 1 and commits; the retry
        // then takes both rows.
        while (!otherUpdate) await new Promise((resolve) => setTimeout(resolve, 5));
        await otherUpdate;
        await conn`commit`;
        conn.release();
        await ours;
        expect(attempts).toBe(2);
        const rows = await queryRows<{ id: number; v: number }>(
          db(),
          sql`select id, v from deadlock_rows order by id`,
        );
        expect(rows.map((r) => Number(r.v))).toEqual([11, 11]);
      } finally {
        await other.end();
      }
    },
  );
});
