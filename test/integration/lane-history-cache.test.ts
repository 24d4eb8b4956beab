// The context call's per-process cache of a lane's entries (issue 16): after the first read it reads
// only the entries from the last one it holds, and reads the lane again whole when the session's
// count of deleted entries (entries_removed, kept by a trigger) moved since its copy was read. What
// it returns is always what a plain read returns.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { transcriptEntries } from '../../src/db/schema.js';
import { createLaneHistoryCache } from '../../src/modules/context/lane-history-cache.js';
import { createContextRepository, type LaneReadAhead } from '../../src/modules/context/context.repository.js';
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

/** The session row's count of its deleted transcript entries. */
async function removed(sessionId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ctx.deps.database.db,
    sql`select entries_removed::int as n from sessions where tenant_id = ${t.tenantId} and id = ${sessionId}`,
  );
  return Number(row!.n);
}

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
    const seqs = async () => (await cache.laneEntries(scope, await removed(session.id))).map((e) => e.seq);

    await append(0, 4);
    expect(await seqs()).toEqual(await plain());
    expect(reads).toEqual({ whole: 1, from: 0 });
    // Nothing new: one read from the last held entry, the same array back.
    const held = await cache.laneEntries(scope, 0);
    expect(await cache.laneEntries(scope, 0)).toBe(held);
    expect(reads).toEqual({ whole: 1, from: 2 });

    await append(4, 3);
    expect(await seqs()).toEqual(await plain());
    expect((await cache.laneEntries(scope, 0)).map((e) => e.content)).toEqual(
      (await transcript.laneEntries(scope)).map((e) => e.content),
    );
    expect(reads.whole).toBe(1);

    // Held entries are shared with later calls: frozen, so a change fails instead of leaking.
    const entries = await cache.laneEntries(scope, 0);
    expect(() => {
      (entries[0] as { content: unknown }).content = 'changed';
    }).toThrow(TypeError);

    // Retention deletes an entry the cache holds: the session's count of deleted entries moves,
    // and the lane is read again.
    const db = ctx.deps.database.db;
    expect(await removed(session.id)).toBe(0);
    await db
      .delete(transcriptEntries)
      .where(
        and(
          eq(transcriptEntries.tenantId, t.tenantId),
          eq(transcriptEntries.sessionId, session.id),
          eq(transcriptEntries.seq, entries[1]!.seq),
        ),
      );
    expect(await removed(session.id)).toBe(1);
    const wholeBefore = reads.whole;
    expect(await seqs()).toEqual(await plain());
    expect(reads.whole).toBe(wholeBefore + 1);
    // Told the count it held, the cache would have served the deleted entry: the count is the check.
    expect((await cache.laneEntries(scope, 1)).map((e) => e.seq)).toEqual(await plain());

    // The last held entry deleted: read again too.
    const last = (await plain()).at(-1)!;
    await db.execute(
      sql`delete from transcript_entries where tenant_id = ${t.tenantId} and session_id = ${session.id} and seq = ${last}`,
    );
    expect(await seqs()).toEqual(await plain());
    expect(reads.whole).toBe(wholeBefore + 2);

    // Another tenant's read of the same session id finds nothing.
    const other = await ctx.tenant();
    expect(await cache.laneEntries({ ...scope, tenantId: other.tenantId }, 0)).toEqual([]);
  });

  it("counts a session's deleted entries in the deleting transaction, and only that session's", async () => {
    const transcript = ctx.app.services.transcript;
    const open = async (key: string) =>
      (
        await ctx.app.services.sessions.getOrCreate({
          tenantId: t.tenantId,
          sessionKey: `${key}-${Date.now()}`,
        })
      ).session.id;
    const [a, b] = [await open('removed-a'), await open('removed-b')];
    for (const id of [a, b])
      await transcript.appendTurns({
        tenantId: t.tenantId,
        sessionId: id,
        turns: Array.from({ length: 6 }, (_, i) => ({
          role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: `turn ${i}`,
          lane_key: LANE,
        })),
      });
    const db = ctx.deps.database.db;
    // One statement over both sessions: three of a's entries, one of b's.
    await db.execute(
      sql`delete from transcript_entries where tenant_id = ${t.tenantId}
        and ((session_id = ${a} and seq <= 3) or (session_id = ${b} and seq = 6))`,
    );
    expect([await removed(a), await removed(b)]).toEqual([3, 1]);
    // A rolled-back delete counts nothing; a delete of nothing neither.
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(
          sql`delete from transcript_entries where tenant_id = ${t.tenantId} and session_id = ${a}`,
        );
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await db.execute(
      sql`delete from transcript_entries where tenant_id = ${t.tenantId} and session_id = ${a} and seq = 1`,
    );
    expect([await removed(a), await removed(b)]).toEqual([3, 1]);
  });
});

describe('lane entries read ahead by the first statement', () => {
  it('reads what laneEntriesFrom reads, and the cache uses it without a statement of its own', async () => {
    const transcript = ctx.app.services.transcript;
    const context = createContextRepository(ctx.deps.database.db);
    const { session } = await ctx.app.services.sessions.getOrCreate({
      tenantId: t.tenantId,
      sessionKey: `lane-ahead-${Date.now()}`,
    });
    const scope = { tenantId: t.tenantId, sessionId: session.id, laneKey: LANE, fromSeq: 0 };
    // Every column filled somewhere: strings that read as JSON, blocks, author, source, time, usage.
    const append = async (n: number, from: number) => {
      await transcript.appendTurns({
        tenantId: t.tenantId,
        sessionId: session.id,
        turns: Array.from({ length: n }, (_, k) => {
          const i = from + k;
          return i % 2 === 0
            ? {
                role: 'user' as const,
                content: [`42`, '{"answer": true}', 'plain <b>&</b> text'][i % 3]!,
                lane_key: LANE,
                author: { id: `U${i}`, name: `user ${i}` },
                source: { platform: 'slack', channel_id: 'C1', message_id: `m${i}` },
                time: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 123)).toISOString(),
              }
            : {
                role: 'assistant' as const,
                content: [{ type: 'text' as const, text: `answer ${i}` }],
                lane_key: LANE,
                model: 'claude-test',
              };
        }),
      });
      // Usage is taken only after a context call (this session makes none): the column is set here.
      await ctx.deps.database.db.execute(
        sql`update transcript_entries set usage = jsonb_build_object('input_tokens', 10 + seq, 'output_tokens', 2)
          where tenant_id = ${t.tenantId} and session_id = ${session.id} and role = 'assistant' and usage is null`,
      );
    };
    const reads = { whole: 0, from: 0 };
    const cache = createLaneHistoryCache({
      transcript: {
        laneEntries: (p) => ((reads.whole += 1), transcript.laneEntries(p)),
        laneEntriesFrom: (p) => ((reads.from += 1), transcript.laneEntriesFrom(p)),
      },
    });
    const load = (laneRead: LaneReadAhead | null) =>
      context.loadTurn({
        tenantId: t.tenantId,
        sessionId: session.id,
        anchor: null,
        snapshot: false,
        laneKey: LANE,
        agentId: null,
        lexemeText: null,
        laneRead,
      });

    await append(6, 0);
    expect(cache.readAhead(t.tenantId, session.id)).toBeNull();
    await cache.laneEntries(scope, 0);
    const ahead = cache.readAhead(t.tenantId, session.id)!;
    expect(ahead).toEqual({ laneKey: LANE, fromSeq: 0, atSeq: 6 });

    // The carried read equals laneEntriesFrom's rows, column for column.
    await append(4, 6);
    const loaded = (await load({ ...ahead, atSeq: 2 }))!;
    const plain = await transcript.laneEntriesFrom({ ...scope, atSeq: 2 });
    expect(loaded.laneRead!.rows).toEqual(plain);
    // Turns whose text reads as JSON come back as the strings they were (one layer parses).
    const contents = loaded.laneRead!.rows.map((r) => r.content);
    expect(contents).toContain('42');
    expect(contents).toContain('{"answer": true}');

    // The cache takes the new entries from the load: no statement of its own.
    const before = { ...reads };
    const aheadLoad = (await load(ahead))!;
    const read = aheadLoad.laneRead;
    // The load's session row carries the count the cache checks.
    expect(aheadLoad.session.entriesRemoved).toBe(0);
    const entries = await cache.laneEntries(scope, aheadLoad.session.entriesRemoved, read);
    expect(reads).toEqual(before);
    expect(entries.map((e) => e.seq)).toEqual((await transcript.laneEntries(scope)).map((e) => e.seq));
    expect(entries).toEqual(await transcript.laneEntries(scope));

    // A read ahead of another lane, or from an entry no longer the last held, is not used.
    await cache.laneEntries(scope, 0, { ...read!, laneKey: 'root:other' });
    expect(reads.from).toBe(before.from + 1);
    await cache.laneEntries(scope, 0, read);
    expect(reads.from).toBe(before.from + 2);

    // A held entry deleted: the load's session row shows it, and the lane is read again whole.
    await ctx.deps.database.db.execute(
      sql`delete from transcript_entries where tenant_id = ${t.tenantId} and session_id = ${session.id} and seq = 3`,
    );
    const afterDelete = (await load(cache.readAhead(t.tenantId, session.id)))!;
    expect(afterDelete.session.entriesRemoved).toBe(1);
    const wholeBefore = reads.whole;
    expect(
      (await cache.laneEntries(scope, afterDelete.session.entriesRemoved, afterDelete.laneRead)).map(
        (e) => e.seq,
      ),
    ).toEqual((await transcript.laneEntries(scope)).map((e) => e.seq));
    expect(reads.whole).toBe(wholeBefore + 1);
  });
});
