// Planner statistics after bulk loads (ingest-statistics.ts): a table ingest fills that was never
// analyzed is analyzed after the first batch, in the background, so prepared statements do not
// take their plans from empty statistics.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTableStatisticsRepository } from '../../src/modules/channels/table-statistics.repository.js';
import { at, ingest } from '../helpers/channel.js';
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
    await ingest(
      t,
      'C1',
      Array.from({ length: 120 }, (_, i) => ({ message_id: `m${i}`, ts: at(i % 60), text: `line ${i}` })),
    );
    await ctx.app.services.ingestStatistics.settled();
    expect(await reltuples('channel_messages')).toBeGreaterThanOrEqual(120);
    expect(await reltuples('ingest_events')).toBeGreaterThanOrEqual(0);
  });
});
