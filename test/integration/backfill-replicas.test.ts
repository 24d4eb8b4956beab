// Three app instances (three buildApp on one PostgreSQL and one Redis) backfilling for one Slack
// workspace: together they never make more platform calls than the shared limit, whatever each
// would allow alone, and a thread all three find cold at once is fetched once. The fake records
// each call's time. Needs TEST_DATABASE_URL and TEST_REDIS_URL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  usesRealPostgres,
  usesRealRedis,
  type TestContext,
  type TestTenant,
} from '../helpers/app.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';

const BASE_S = 1_767_261_600;
const rootTs = (i: number) => `${BASE_S + i * 60}.000100`;
const THREADS = 40;

describe.skipIf(!usesRealPostgres || !usesRealRedis)('backfill across three replicas', () => {
  let slack: FakeSlack;
  const apps: TestContext[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack();
    const messages = [];
    for (let i = 0; i < THREADS; i += 1) {
      messages.push({ ts: rootTs(i), user: 'U1', text: `root ${i}` });
      messages.push({
        ts: `${BASE_S + i * 60 + 1}.000200`,
        user: 'U2',
        text: `old ${i}`,
        thread_ts: rootTs(i),
      });
    }
    slack.channels.set('CREP', messages);
    const redisPrefix = `contextd-test:${randomUUID()}:`;
    const env = {
      SLACK_API_URL: slack.apiUrl,
      PLATFORM_FETCH_ALLOW: '127.0.0.1',
      // 2 per minute is held as 1 call per 60 s window: one replica alone would allow 1, three
      // unshared replicas 3, which is over the limit.
      PLATFORM_RATE_LIMIT_PER_MINUTE: '2',
      PLATFORM_RATE_OVERFLOW: 'degrade',
    };
    apps.push(await createTestApp({ env, redisPrefix }));
    for (let i = 0; i < 2; i += 1)
      apps.push(await createTestApp({ env, redisPrefix, testDb: apps[0]!.testDb }));
  });

  afterAll(async () => {
    for (const app of apps.slice(1)) await app.close();
    await apps[0]?.close();
    await slack?.close();
  });

  /** A tenant with the Slack token, and a reply event in each thread (their roots are not stored). */
  async function tenantWithColdThreads(): Promise<TestTenant> {
    const tenant = await apps[0]!.tenant();
    const put = await tenant.inject({
      method: 'PUT',
      url: '/v1/platforms/slack/credentials',
      payload: { bot_token: slack.token, workspace_id: slack.teamId },
    });
    expect(put.statusCode).toBeLessThan(300);
    // Names pushed, so no users.info lookup shares the workspace's limit with the backfill here.
    const users = ['U1', 'U2', 'U3'].map((id) => ({ user_id: id, display_name: `user ${id}` }));
    const pushed = await tenant.inject({
      method: 'PUT',
      url: '/v1/platforms/slack/users',
      payload: { users },
    });
    expect(pushed.statusCode).toBe(200);
    const events = Array.from({ length: THREADS }, (_, i) => ({
      type: 'message.created',
      platform: 'slack',
      channel_id: 'CREP',
      message_id: `${BASE_S + i * 60 + 2}.000300`,
      thread_id: rootTs(i),
      ts: new Date((BASE_S + i * 60 + 2) * 1000).toISOString(),
      author: { id: 'U3' },
      text: `new ${i}`,
    }));
    expect((await tenant.inject({ method: 'POST', url: '/v1/events', payload: { events } })).statusCode).toBe(
      200,
    );
    return tenant;
  }

  const readThread = (app: TestContext, tenant: TestTenant, i: number) =>
    app.app.inject({
      method: 'GET',
      url: `/v1/channels/slack/CREP/threads/${rootTs(i)}`,
      headers: tenant.headers,
    });

  it('hammering cold threads of one workspace: never more calls than the limit', async () => {
    const tenant = await tenantWithColdThreads();
    const from = slack.requests.length;
    let next = 0;
    const replies: { status: number; notes?: string[] }[] = [];
    const until = Date.now() + 5_000;
    await Promise.all(
      apps.flatMap((app) =>
        [0, 1, 2].map(async () => {
          while (Date.now() < until && next < THREADS) {
            const response = await readThread(app, tenant, next++);
            replies.push({ status: response.statusCode, notes: response.json().notes });
          }
        }),
      ),
    );
    const made = slack.requests.slice(from);
    expect(made.length).toBeGreaterThanOrEqual(1);
    // Within one 60 s span (the run lasts 5 s): at most the limit of 2.
    expect(made.length).toBeLessThanOrEqual(2);
    expect(Math.max(...made.map((r) => r.at)) - Math.min(...made.map((r) => r.at))).toBeLessThan(60_000);
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const stale = replies.filter((r) => r.notes?.some((n) => n.includes('rate limited')));
    expect(stale.length).toBe(replies.length - made.length);
  });

  it('a thread three replicas find cold at once is fetched once', async () => {
    const tenant = await tenantWithColdThreads();
    const from = slack.requests.length;
    const reads = await Promise.all(apps.map((app) => readThread(app, tenant, 7)));
    expect(slack.requests.length - from).toBe(1);
    for (const read of reads) {
      expect(read.statusCode).toBe(200);
      expect(read.json().notes).toBeUndefined();
      expect(read.json().replies.map((r: { text: string }) => r.text)).toEqual(['old 7', 'new 7']);
    }
  });
});
