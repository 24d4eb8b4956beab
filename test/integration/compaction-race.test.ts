// The fence under lease expiry: two compactors of one lane, the first paused past its lease after
// summarizing and before committing, the second taking the lock meanwhile. Correctness must come
// from the compare-and-set on lane_states.version, not from the lock: every race ends with exactly
// one commit, and the transcript's compaction records agree with the lane state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.js';
import { createMemoryLockManager } from '../../src/coord/memory-lock.js';
import { createRedisLockManager } from '../../src/coord/redis-lock.js';
import type { LockManager } from '../../src/coord/lock.js';
import { createCompactionModule } from '../../src/modules/compaction/compaction.module.js';
import { compactionDefaults } from '../../src/modules/compaction/core/types.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { SLOW_TEST_TIMEOUT_MS } from '../helpers/wait.js';

// Every race is forced (the first compactor is paused past its lease until the second has finished),
// so each one exercises the same interleaving: 200 prove it as well as 1000 (set COMPACTION_RACES to
// run more) and keep the file's work bounded on a loaded machine.
const RACES = Number(process.env.COMPACTION_RACES ?? 200);
const TTL_MS = 5_000;

describe('compaction fencing under lease expiry', () => {
  let ctx: TestContext;
  let tenant: TestTenant;

  beforeAll(async () => {
    ctx = await createTestApp();
    tenant = await ctx.tenant();
  });
  afterAll(async () => ctx?.close());

  it(
    `${RACES} races of two compactors: 0 lost and 0 double commits, records consistent with the lane`,
    async () => {
      // The lock backend the deployment would use: Redis when the suite has one (the paused
      // holder's key is expired in Redis), else in-process leases on a clock the test moves.
      let offset = 0;
      let locks: LockManager;
      let expire: (resource: string) => Promise<void>;
      const redis = ctx.deps.redis;
      if (redis) {
        const prefix = `${ctx.deps.redisPrefix}race:`;
        locks = createRedisLockManager(redis, { prefix });
        expire = async (resource) => {
          await redis.pexpire(`${prefix}lock:${resource}`, 1);
          await new Promise((r) => setTimeout(r, 3));
        };
      } else {
        locks = createMemoryLockManager(() => Date.now() + offset);
        expire = async () => {
          offset += TTL_MS + 1;
        };
      }
      const { compaction } = createCompactionModule(
        { ...ctx.deps, locks, metrics: createMetrics() },
        ctx.app.services,
        { settings: { ...compactionDefaults, keepRecent: 1 }, lockTtlMs: TTL_MS, startQueue: false },
      );

      const created = await tenant.inject({
        method: 'POST',
        url: '/v1/sessions',
        payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CRACE' },
      });
      expect(created.statusCode).toBe(201);
      const sessionId = created.json().session.id as string;
      const params = { tenantId: tenant.tenantId, sessionId, force: true } as const;

      let lost = 0;
      let double = 0;
      let aFenced = 0;
      for (let race = 0; race < RACES; race += 1) {
        await ctx.app.services.transcript.appendTurns({
          tenantId: tenant.tenantId,
          sessionId,
          turns: [
            { role: 'user', content: `race ${race}: deploy build ${1000 + race} to /srv/app-${race}` },
            { role: 'assistant', content: `race ${race}: deployed build ${1000 + race}, ticket OPS-${race}` },
          ],
        });
        let summarized!: () => void;
        const aSummarized = new Promise<void>((resolve) => (summarized = resolve));
        let bFinished!: () => void;
        const bDone = new Promise<void>((resolve) => (bFinished = resolve));
        const first = compaction.compact({
          ...params,
          trigger: 'job',
          beforeCommit: async () => {
            // Paused past the lease: the lock expires and the second compactor takes it.
            await expire(`compaction:${tenant.tenantId}:${sessionId}`);
            summarized();
            await bDone;
          },
        });
        await aSummarized;
        const second = await compaction.compact({ ...params, trigger: 'job' }).finally(() => bFinished());
        const a = (await first).lanes[0]!;
        const b = second.lanes[0]!;
        const commits = [a, b].filter((l) => l.outcome === 'committed').length;
        if (commits === 0) lost += 1;
        if (commits > 1) double += 1;
        if (a.outcome === 'fenced') aFenced += 1;
      }

      const lane = await tenant.inject({
        method: 'GET',
        url: `/v1/sessions/${sessionId}/lanes/${encodeURIComponent('root:CRACE')}`,
      });
      const session = await tenant.inject({ method: 'GET', url: `/v1/sessions/${sessionId}` });
      const records = await compaction.records({ tenantId: tenant.tenantId, sessionId });
      const versions = records.map((r) => (r.content as { lane_version: number }).lane_version);
      const summaryVersions = records.map((r) => (r.content as { summary_version: number }).summary_version);

      console.warn(
        `compaction races: ${RACES} races, lost commits ${lost}, double commits ${double}, paused holder fenced ${aFenced}, records ${records.length}`,
      );
      expect({ lost, double, aFenced }).toEqual({ lost: 0, double: 0, aFenced: RACES });
      expect(records).toHaveLength(RACES);
      expect(versions).toEqual(versions.map((_, i) => versions[0]! + i));
      expect(summaryVersions).toEqual(summaryVersions.map((_, i) => i + 1));
      expect(lane.json().version).toBe(versions.at(-1));
      expect(lane.json().summary_version).toBe(RACES);
      expect(session.json().compaction_count).toBe(RACES);
      await locks.close();
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});
