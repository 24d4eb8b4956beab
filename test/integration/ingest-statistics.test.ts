// Planner statistics after bulk loads (ingest-statistics.ts): a table ingest fills that was never
// analyzed is analyzed after the first batch, in the background, so prepared statements do not
// take their plans from empty statistics.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTableStatisticsRepository } from '../../src/modules/channels/table-statistics.repository.js';
import { at } from '../helpers/channel.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const reltuples = async (table: string) =>
  Number(
    (
      await queryRows<{ n: number }>(
        ctx.deps.database.db,
        sql`select reltuples::float8 as n from pg_class where relname = ${table} and relnamespace = 'public'::regnamespace`,
      )
    )[0]!.n,
  );

describe('statistics of the tables ingest fills', () => {
  it('analyzes a never-analyzed table after the first batch', async () => {
    const statistics = createTableStatisticsRepository(ctx.deps.database.db);
    expect(await reltuples('channel_messages')).toBeLessThan(0);
    expect(await statistics.dueForAnalyze()).toContain('channel_messages');
    // In a caller's transaction (as POST /v1/events runs it): no check may start before the commit,
    // or its ANALYZE (another connection) counts none of the batch's rows and the table is left
    // "analyzed" with 0 tuples. The check is awaited inside the transaction to give it that chance.
    const events = Array.from({ length: 120 }, (_, i) => ({
      type: 'message.created' as const,
      platform: 'slack',
      channel_id: 'C1',
      message_id: `m${i}`,
      ts: at(i % 60),
      author: { id: 'U1' },
      text: `line ${i}`,
    }));
    await ctx.deps.database.db.transaction(async (tx) => {
      await ctx.app.services.ingest.ingest({ tenantId: t.tenantId, events }, tx);
      await ctx.app.services.ingestStatistics.settled();
    });
    await ctx.app.services.ingestStatistics.settled();
    expect(await reltuples('channel_messages')).toBeGreaterThanOrEqual(120);
    expect(await reltuples('ingest_events')).toBeGreaterThanOrEqual(0);
  });
});
