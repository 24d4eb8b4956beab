// Three instances behind a real PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction, no
// Redis: the PostgreSQL lease locks), under a mixed load of ingest, memories, context calls, turns,
// searches and compactions: every acknowledged write is stored and no reply is a 5xx. The pooler has
// fewer server connections than the instances have clients, so consecutive transactions of one
// client land on different backends. Needs TEST_DATABASE_URL and /usr/sbin/pgbouncer.
import { sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { databaseOptions } from '../../src/deps.js';
import { uuidV7Ids } from '../../src/shared/clock.js';
import {
  createTestApp,
  createTestDatabase,
  testConfig,
  type TestContext,
  type TestDatabase,
} from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/env.js';
import { pgbouncerAvailable, startPgBouncer, type PrivatePgBouncer } from '../helpers/pgbouncer.js';

const INSTANCES = 3;
const ROUNDS = 16;
const CHANNELS = 4;
const SESSIONS_PER_INSTANCE = 2;

describe.skipIf(!TEST_DATABASE_URL || (!pgbouncerAvailable && !process.env.CI))(
  'three instances through PgBouncer in transaction mode (needs TEST_DATABASE_URL and pgbouncer)',
  () => {
    let server: TestDatabase;
    let pooler: PrivatePgBouncer;
    let direct: postgres.Sql;
    const instances: TestContext[] = [];

    beforeAll(async () => {
      server = await createTestDatabase();
      await server.database.close();
      // Four server connections for 3 × 6 client connections: backends are swapped constantly.
      pooler = await startPgBouncer({ serverUrl: TEST_DATABASE_URL!, poolMode: 'transaction', poolSize: 4 });
      const url = pooler.url(server.url!);
      for (let i = 0; i < INSTANCES; i += 1) {
        const env = {
          DATABASE_URL: url,
          DATABASE_POOL_MODE: 'transaction',
          DATABASE_MAX_CONNECTIONS: '6',
          LOG_LEVEL: 'error',
        };
        const database = await openDatabase(databaseOptions(testConfig(env)));
        const testDb: TestDatabase = {
          database,
          url: server.url!,
          appUrl: url,
          poolMode: 'transaction',
          drop: () => database.close(),
        };
        // Real UUIDv7 ids: the harness's sequential ids would repeat across instances.
        instances.push(
          await createTestApp({
            testDb,
            redis: false,
            env,
            extend: (deps) => ({ ...deps, ids: uuidV7Ids }),
            logger: {
              stream: {
                write: (line: string) =>
                  line.includes('"level":50') ? void console.error(line.slice(0, 1500)) : undefined,
              },
            },
          }),
        );
      }
      direct = postgres(server.url!, { max: 2, onnotice: () => {} });
    });
    afterAll(async () => {
      for (const instance of instances) {
        await instance.close();
        await instance.testDb.drop();
      }
      await direct?.end();
      pooler?.stop();
      await server?.drop();
    });

    it('refuses the generic-plan connections DATABASE_POOL_MODE=transaction turns off', async () => {
      const url = pooler.url(server.url!);
      const generic = await openDatabase({
        databaseUrl: url,
        dataDir: '',
        prepare: true,
        genericPlans: true,
      });
      try {
        await expect(
          generic.kind === 'postgres' ? generic.genericPlanDb.execute(sql`select 1`) : null,
        ).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/unsupported startup parameter: plan_cache_mode/) },
        });
      } finally {
        await generic.close();
      }
      for (const instance of instances) {
        const database = instance.deps.database;
        expect(database.kind === 'postgres' && database.genericPlanDb === database.db).toBe(true);
      }
    });

    it('keeps lease locks exclusive through the pooler, and releases them', async () => {
      const managers = instances.map((instance) => instance.deps.locks);
      expect(managers.map((m) => m.kind)).toEqual(Array.from({ length: INSTANCES }, () => 'postgres'));
      const resource = `pooled-${Date.now()}`;
      let inside = 0;
      let maxInside = 0;
      await Promise.all(
        Array.from({ length: 12 }, async (_, k) => {
          const handle = await managers[k % INSTANCES]!.acquire(resource, { tenantId: 't', waitMs: 60_000 });
          inside += 1;
          maxInside = Math.max(maxInside, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside -= 1;
          await handle!.release();
        }),
      );
      expect(maxInside).toBe(1);
      const [row] = await direct<{ held: number }[]>`
        select count(*)::int as held from lock_leases where resource = ${resource}`;
      expect(row?.held).toBe(0);
    });

    it('stores every acknowledged message, memory and turn, with no 5xx', async () => {
      expect(instances.map((i) => [i.deps.config.DATABASE_GENERIC_PLANS, i.deps.locks.kind])).toEqual(
        Array.from({ length: INSTANCES }, () => [false, 'postgres']),
      );
      const tenant = await instances[0]!.tenant();
      const statuses = new Map<number, number>();
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const acked = { messages: new Set<string>(), memories: new Set<string>(), turns: new Set<string>() };
      const sessions: string[][] = [];
      const failures: string[] = [];
      for (const [i, instance] of instances.entries()) {
        sessions[i] = [];
        for (let s = 0; s < SESSIONS_PER_INSTANCE; s += 1) {
          const reply = await instance.app.inject({
            method: 'POST',
            url: '/v1/sessions',
            headers: tenant.headers,
            payload: { agent_id: 'bot', platform: 'api', chat_type: 'dm', user_id: `U${i}-${s}` },
          });
          expect(reply.statusCode, reply.body).toBe(201);
          sessions[i]!.push(reply.json().session.id as string);
        }
      }
      const at = (round: number, i: number) => new Date(Date.UTC(2026, 0, 1, 10, round, i)).toISOString();

      // One worker per instance and session: its session's writes are in order, everything else
      // (channels, memory scopes, the tenant) is shared with the other instances.
      const work = async (i: number, s: number) => {
        const instance = instances[i]!;
        const sessionId = sessions[i]![s]!;
        const call = async (options: InjectOptions) => {
          const reply = await instance.app.inject({ ...options, headers: tenant.headers });
          count(reply.statusCode);
          if (reply.statusCode >= 500)
            failures.push(`${options.method ?? 'GET'} ${options.url}: ${reply.body}`);
          return reply;
        };
        for (let round = 0; round < ROUNDS; round += 1) {
          const tag = `${i}-${s}-${round}`;
          const channelId = `C${(round + i) % CHANNELS}`;
          const events = [0, 1].map((k) => ({
            type: 'message.created',
            platform: 'slack',
            channel_id: channelId,
            message_id: `m${tag}-${k}`,
            ts: at(round, i * 10 + s * 2 + k),
            author: { id: `U${i}`, name: 'Ana' },
            text: `note ${tag} ${k} about the deploy`,
            ...(k === 1 ? { reply_to_id: `m${tag}-0` } : {}),
          }));
          const [ingest, memory, context] = await Promise.all([
            call({ method: 'POST', url: '/v1/events', payload: { events } }),
            call({
              method: 'POST',
              url: '/v1/memories',
              payload: { scope: 'tenant', type: 'fact', text: `fact ${tag} deploy window` },
            }),
            call({
              method: 'POST',
              url: `/v1/sessions/${sessionId}/context`,
              payload: { message: { content: `question ${tag} about the deploy` } },
            }),
          ]);
          if (ingest.statusCode === 200)
            for (const result of ingest.json().results as { message_id: string; outcome: string }[])
              if (result.outcome === 'created') acked.messages.add(`${channelId}/${result.message_id}`);
          if (memory.statusCode === 201) acked.memories.add(memory.json().memory.id as string);
          if (context.statusCode === 200) acked.turns.add(`question ${tag} about the deploy`);
          const turn = await call({
            method: 'POST',
            url: `/v1/sessions/${sessionId}/turns`,
            payload: { turns: [{ role: 'assistant', content: `answer ${tag}` }] },
          });
          if (turn.statusCode === 201) acked.turns.add(`answer ${tag}`);
          await Promise.all([
            call({ method: 'POST', url: '/v1/memories/search', payload: { query: `deploy ${tag}` } }),
            call({ url: `/v1/channels/slack/${channelId}/messages?limit=50` }),
            round % 4 === 3
              ? call({ method: 'POST', url: `/v1/sessions/${sessionId}/compact`, payload: { wait: true } })
              : null,
          ]);
        }
      };
      await Promise.all(
        instances.flatMap((_, i) => Array.from({ length: SESSIONS_PER_INSTANCE }, (_, s) => work(i, s))),
      );

      const stored = {
        messages: new Set(
          (
            await direct<{ key: string }[]>`
              select channel_id || '/' || message_id as key from channel_messages where tenant_id = ${tenant.tenantId}`
          ).map((r) => r.key),
        ),
        memories: new Set(
          (await direct<{ id: string }[]>`select id from memories where tenant_id = ${tenant.tenantId}`).map(
            (r) => r.id,
          ),
        ),
        turns: (
          await direct<{ content: string }[]>`
            select e.content::text as content from transcript_entries e
            where e.tenant_id = ${tenant.tenantId} and e.kind = 'message'`
        ).map((r) => r.content),
      };
      const lost = {
        messages: [...acked.messages].filter((k) => !stored.messages.has(k)),
        memories: [...acked.memories].filter((id) => !stored.memories.has(id)),
        turns: [...acked.turns].filter((text) => !stored.turns.some((content) => content.includes(text))),
      };
      const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
      const failed = [...statuses].filter(([status]) => status >= 500);
      if (failures.length > 0) console.error(failures.join('\n'));
      console.warn(
        `pooler mixed load: ${requests} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
          `acked/stored messages ${acked.messages.size}/${stored.messages.size}, memories ` +
          `${acked.memories.size}/${stored.memories.size}, turns ${acked.turns.size} acked`,
      );
      expect(failed).toEqual([]);
      expect(lost).toEqual({ messages: [], memories: [], turns: [] });
      const workers = INSTANCES * SESSIONS_PER_INSTANCE;
      expect(acked.messages.size).toBe(workers * ROUNDS * 2);
      expect(acked.memories.size).toBe(workers * ROUNDS);
      expect(acked.turns.size).toBe(workers * ROUNDS * 2);
    });
  },
);
