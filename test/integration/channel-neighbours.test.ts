// A retrieval hit's neighbours (channels repository `neighbours`) on a busy channel: the messages
// just before and after it in its own lane, read through the lane index. A lane filter no index can
// serve makes the read walk every message of the channel in the time window (all lanes), so its
// cost grows with the channel's traffic rather than with the lane's.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import {
  createChannelsRepository,
  neighboursStatement,
} from '../../src/modules/channels/channels.repository.js';
import { createTestApp, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let tenantId: string;
const CHANNEL = 'C-busy';
/** A message a second, round-robin over LANES lanes (as in a busy IRC channel). */
const MESSAGES = 3_000;
const LANES = 30;
const BASE = Date.UTC(2026, 0, 1);
const laneOf = (i: number) => `thread:${CHANNEL}:r${i % LANES}`;
const idOf = (i: number) => `m${String(i).padStart(5, '0')}`;
const HITS = [5, 700, 701, 1_500, 2_990].map(idOf);
const WITHIN_MS = 5 * 60_000;
const SPAN = 3;

beforeAll(async () => {
  ctx = await createTestApp();
  tenantId = (await ctx.tenant()).tenantId;
  const db = ctx.deps.database.db;
  await db.execute(sql`insert into channel_messages (tenant_id, platform, channel_id, message_id, lane_key, ts, text)
    select ${tenantId}, 'slack', ${CHANNEL}, 'm' || lpad(i::text, 5, '0'),
      'thread:' || ${CHANNEL} || ':r' || (i % ${LANES}), to_timestamp(${BASE / 1000} + i), 'line ' || i
    from generate_series(0, ${MESSAGES - 1}) i`);
  // Another channel's traffic in the same window, and a deleted message in a hit's lane.
  await db.execute(sql`insert into channel_messages (tenant_id, platform, channel_id, message_id, lane_key, ts, text)
    select ${tenantId}, 'slack', 'C-other', 'o' || i, 'thread:C-other:r' || (i % ${LANES}),
      to_timestamp(${BASE / 1000} + i), 'other ' || i
    from generate_series(0, ${MESSAGES - 1}) i`);
  await db.execute(sql`update channel_messages set deleted_at = now()
    where tenant_id = ${tenantId} and channel_id = ${CHANNEL} and message_id = ${idOf(760)}`);
  await db.execute(sql`analyze channel_messages`);
});
afterAll(async () => {
  await ctx?.close();
});

const scope = () => ({
  tenantId,
  platform: 'slack',
  channelId: CHANNEL,
  ids: HITS,
  withinMs: WITHIN_MS,
  span: SPAN,
});

/** The neighbours of each hit computed from the seeding rule: same lane, within the window, visible. */
function expectedNeighbours(): { hitId: string; messageId: string; distance: number }[] {
  const out: { hitId: string; messageId: string; distance: number }[] = [];
  for (const hitId of HITS) {
    const hit = Number(hitId.slice(1));
    for (const direction of [-1, 1]) {
      let distance = 0;
      for (let i = hit + direction; i >= 0 && i < MESSAGES && distance < SPAN; i += direction) {
        if (laneOf(i) !== laneOf(hit) || i === 760) continue;
        if (Math.abs(i - hit) * 1000 > WITHIN_MS) break;
        distance += 1;
        out.push({ hitId, messageId: idOf(i), distance });
      }
    }
  }
  return out;
}

describe('neighbours of retrieval hits', () => {
  it("returns each hit's nearest visible messages of its own lane within the window", async () => {
    const rows = await createChannelsRepository(ctx.deps.database.db).neighbours(scope());
    const got = rows.map((r) => ({ hitId: r.hitId, messageId: r.messageId, distance: r.distance }));
    const order = (a: { hitId: string; messageId: string }, b: { hitId: string; messageId: string }) =>
      a.hitId.localeCompare(b.hitId) || a.messageId.localeCompare(b.messageId);
    expect(got.sort(order)).toEqual(expectedNeighbours().sort(order));
    // The first and last hits have no neighbours on one side; the deleted one is skipped over.
    expect(got.length).toBe(HITS.length * 2 * SPAN - 2 * SPAN);
    expect(rows.every((r) => r.laneKey === laneOf(Number(r.hitId.slice(1))))).toBe(true);
  });

  it('reads each lane through the lane index in (ts, message_id) order (no sort)', async () => {
    // The statement as it runs (built once, values filled in per call), its values inlined.
    const { sql: text, params } = neighboursStatement(ctx.deps.database.db).getQuery();
    const values: Record<string, unknown> = { ...scope(), ids: JSON.stringify(HITS) };
    const literal = (param: unknown) => {
      const value = values[(param as { name: string }).name];
      return typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
    };
    const inlined = text.replace(/\$(\d+)/g, (_, i: string) => literal(params[Number(i) - 1]));
    const rows = await queryRows<Record<string, string>>(ctx.deps.database.db, sql.raw(`explain ${inlined}`));
    const plan = rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).toContain('channel_messages_lane_idx');
    expect(plan).toMatch(/Index Cond: .*lane_key = a\.lane_key/);
    // The index ends in message_id: each side stops at its span, with no sort of the hit's rows.
    expect(plan).not.toContain('Sort');
  });
});
