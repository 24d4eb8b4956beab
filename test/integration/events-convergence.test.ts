// Property through the HTTP API: an event set delivered in shuffled batches, with repeats (one
// across batches), leaves the same stored rows and the same channel reads as in-order delivery.
// The work is bounded, not the time: RUNS cases of at most MAX_EVENTS_PER_SET events each (a
// delivery repeats at most half of them once, plus one), so the test has no timeout and passes on
// a loaded machine as on an idle one; the count of events sent is checked against the bound.
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/shared/channel-events.js';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { MAX_EVENTS_PER_SET, eventSet, shuffledDelivery } from '../helpers/event-sets.js';

/** Cases generated and checked (fast-check's numRuns). */
const RUNS = 60;
/** No time limit on the hooks or the test (0): the work above is what is bounded. */
const NO_TIME_LIMIT = 0;

let ctx: TestContext;
let eventsSent = 0;
beforeAll(async () => {
  ctx = await createTestApp();
}, NO_TIME_LIMIT);
afterAll(async () => {
  await ctx?.close();
}, NO_TIME_LIMIT);

async function deliver(tenant: TestTenant, batches: ChannelEvent[][]) {
  for (const events of batches) {
    if (events.length === 0) continue;
    eventsSent += events.length;
    const response = await tenant.inject({ method: 'POST', url: '/v1/events', payload: { events } });
    expect(response.statusCode).toBe(200);
  }
}

/** Every stored row of the channel, placeholders included. */
const storedRows = (tenant: TestTenant, channelId: string) =>
  queryRows(
    ctx.deps.database.db,
    sql`select message_id, thread_id, reply_to_id, lane_key, ts, author_id, author_name, metadata,
          text, reactions, media, reply_count, last_reply_ts, edited_at, deleted_at, is_placeholder,
          token_estimate, reaction_state
        from channel_messages
        where tenant_id = ${tenant.tenantId} and platform = 'slack' and channel_id = ${channelId}
        order by message_id`,
  );

async function channelRead(tenant: TestTenant, channelId: string) {
  const response = await tenant.inject({ url: `/v1/channels/slack/${channelId}/messages?limit=500` });
  expect(response.statusCode).toBe(200);
  return response.json();
}

describe('POST /v1/events convergence (property)', () => {
  it(
    'shuffled batches with repeats store what in-order delivery stores',
    async () => {
      // Two tenants, so that one channel id is delivered twice (event ids are deduplicated per tenant).
      const [inOrder, shuffled] = [await ctx.tenant(), await ctx.tenant()];
      let run = 0;
      const cases = fc
        .nat()
        .map(() => `C${++run}`)
        .chain((channelId) =>
          eventSet(channelId).chain((events) =>
            fc.tuple(fc.constant(channelId), fc.constant(events), shuffledDelivery(events, 4)),
          ),
        );
      await fc.assert(
        fc.asyncProperty(cases, async ([channelId, events, batches]) => {
          await deliver(inOrder, [events]);
          await deliver(shuffled, batches);
          const expected = await storedRows(inOrder, channelId);
          expect(expected.length).toBeGreaterThan(0);
          expect(await storedRows(shuffled, channelId)).toEqual(expected);
          expect(await channelRead(shuffled, channelId)).toEqual(await channelRead(inOrder, channelId));
        }),
        { numRuns: RUNS },
      );
      // Each case sends its set once in order and once shuffled with repeats.
      expect(eventsSent).toBeLessThanOrEqual(
        RUNS * (MAX_EVENTS_PER_SET + (MAX_EVENTS_PER_SET >> 1) + 1 + MAX_EVENTS_PER_SET),
      );
    },
    NO_TIME_LIMIT,
  );
});
