// The context call's per-process cache of a lane's entries (issue 16): after the first read it reads
// only the entries from the last one it holds, and reads the lane again whole when the count the
// database returns shows that held entries were deleted (retention) or that one was committed out
// of seq order. What it returns is always what a plain read returns.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transcriptEntries } from '../../src/db/schema.js';
import { createLaneHistoryCache } from '../../src/modules/context/lane-history-cache.js';
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

const LANE = 'root:C1';

describe('lane history cache', () => {
  it('reads only new entries, re-reads after a deletion, and matches a plain read', async () => {
    const transcript = ctx.app.services.transcript;
    const { session } = await ctx.app.services.sessions.getOrCreate({
      tenantId: t.tenantId,
      sessionKey: `lane-cache-${Date.now()}`,
    });
    const scope = { tenantId: t.tenantId, sessionId: session.id, laneKey: LANE, fromSeq: 0 };
    const append = (from: number, n: number) =>
      transcript.appendTurns({
        tenantId: t.tenantId,
        sessionId: session.id,
        turns: Array.from({ length: n }, (_, i) => ({
          role: (from + i) % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: `turn ${from + i}`,
          lane_key: LANE,
        })),
      });
    const reads = { whole: 0, from: 0 };
    const cache = createLaneHistoryCache({
      transcript: {
        laneEntries: (p) => {
          reads.whole += 1;
          return transcript.laneEntries(p);
        },
        laneEntriesFrom: (p) => {
          reads.from += 1;
          return transcript.laneEntriesFrom(p);
        },
      },
    });
    const plain = async () => (await transcript.laneEntries(scope)).map((e) => e.seq);
    const seqs = async () => (await cache.laneEntries(scope)).map((e) => e.seq);

    await append(0, 4);
    expect(await seqs()).toEqual(await plain());
    expect(reads).toEqual({ whole: 1, from: 0 });
    // Nothing new: one read from the last held entry, the same array back.
    const held = await cache.laneEntries(scope);
    expect(await cache.laneEntries(scope)).toBe(held);
    expect(reads).toEqual({ whole: 1, from: 2 });

    await append(4, 3);
    expect(await seqs()).toEqual(await plain());
    expect((await cache.laneEntries(scope)).map((e) => e.content)).toEqual(
      (await transcript.laneEntries(scope)).map((e) => e.content),
    );
    expect(reads.whole).toBe(1);

    // Held entries are shared with later calls: frozen, so a change fails instead of leaking.
    const entries = await cache.laneEntries(scope);
    expect(() => {
      (entries[0] as { content: unknown }).content = 'changed';
    }).toThrow(TypeError);

    // Retention deletes an entry the cache holds: the count differs, the lane is read again.
    const db = ctx.deps.database.db;
    await db
      .delete(transcriptEntries)
      .where(
        and(
          eq(transcriptEntries.tenantId, t.tenantId),
          eq(transcriptEntries.sessionId, session.id),
          eq(transcriptEntries.seq, entries[1]!.seq),
        ),
      );
    const wholeBefore = reads.whole;
    expect(await seqs()).toEqual(await plain());
    expect(reads.whole).toBe(wholeBefore + 1);

    // The last held entry deleted: read again too.
    const last = (await plain()).at(-1)!;
    await db.execute(
      sql`delete from transcript_entries where tenant_id = ${t.tenantId} and session_id = ${session.id} and seq = ${last}`,
    );
    expect(await seqs()).toEqual(await plain());
    expect(reads.whole).toBe(wholeBefore + 2);

    // Another tenant's read of the same session id finds nothing.
    const other = await ctx.tenant();
    expect(await cache.laneEntries({ ...scope, tenantId: other.tenantId })).toEqual([]);
  });
});
