// The statements a warm context call sends on PostgreSQL (counted by the client wrapper's
// onStatement): what it reads once is not read again. An anchor that roots a thread is the thread's
// root, so the thread read takes its row from the load instead of reading it by id; the thread's
// replies come with the load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { at, ingest } from '../helpers/channel.js';
import {
  createTestApp,
  createTestDatabase,
  usesRealPostgres,
  type TestContext,
  type TestDatabase,
  type TestTenant,
} from '../helpers/app.js';

const CHANNEL = 'C-stmts';
let ctx: TestContext;
let owned: TestDatabase;
let t: TestTenant;
let sessionId: string;
const sent: string[] = [];

describe.skipIf(!usesRealPostgres)('statements of a context call', () => {
  beforeAll(async () => {
    owned = await createTestDatabase();
    const database = await openDatabase({
      databaseUrl: owned.url!,
      dataDir: '',
      maxConnections: 4,
      onStatement: (query) => sent.push(query),
    });
    ctx = await createTestApp({
      testDb: { database, url: owned.url!, drop: () => database.close() },
    });
    t = await ctx.tenant();
    const messages: Record<string, unknown>[] = [];
    for (let r = 0; r < 4; r += 1) {
      messages.push({
        message_id: `r${r}`,
        ts: at(10 * r),
        text: `deploy question ${r} about the staging rollout`,
      });
      for (let k = 1; k <= 3; k += 1)
        messages.push({
          message_id: `r${r}-${k}`,
          ts: at(10 * r + k),
          thread_id: `r${r}`,
          text: `reply ${k} on the staging rollout ${r}`,
        });
    }
    await ingest(t, CHANNEL, messages);
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: CHANNEL },
    });
    sessionId = created.json().session.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await owned?.drop();
  });

  const call = (anchor: string) =>
    t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: {
        message: {
          content: 'what happened with the staging rollout?',
          source: { platform: 'slack', channel_id: CHANNEL, message_id: anchor },
        },
        dry_run: true,
      },
    });

  it('reads a thread root that is the anchor once', async () => {
    expect((await call('r0')).statusCode).toBe(200);
    sent.length = 0;
    const response = await call('r2');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('reply 3 on the staging rollout 2');
    // A read of one message by id: `… from channel_messages where <scope> and message_id = $n`.
    const byId = sent.filter((q) =>
      /from channel_messages where [^()]* and message_id = \$\d+$/.test(q.replace(/\s+/g, ' ').trim()),
    );
    expect(byId).toEqual([]);
    // The thread's replies come with the load too: no read of its own.
    const replies = sent.filter((q) =>
      /order by ts desc, message_id desc limit \$\d+$/.test(q.replace(/\s+/g, ' ').trim()),
    );
    expect(replies).toEqual([]);
  });
});
