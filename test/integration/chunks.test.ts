// Transcript chunks: indexed incrementally by the append hook, searchable, rebuilt when the channel
// message a turn is gets edited or deleted, removed with their session.
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelMessages, transcriptChunks, transcriptEntries } from '../../src/db/schema.js';
import { createRetriever } from '../../src/modules/context/context.retrieve.js';
import { createChunksRepository } from '../../src/modules/memory/chunks.repository.js';
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

async function chunksOf(tenantId: string, sessionId: string) {
  return ctx.deps.database.db
    .select({
      firstSeq: transcriptChunks.firstSeq,
      lastSeq: transcriptChunks.lastSeq,
      laneKey: transcriptChunks.laneKey,
      text: transcriptChunks.text,
    })
    .from(transcriptChunks)
    .where(and(eq(transcriptChunks.tenantId, tenantId), eq(transcriptChunks.sessionId, sessionId)))
    .orderBy(asc(transcriptChunks.laneKey), asc(transcriptChunks.firstSeq));
}

async function newSession(tenant: TestTenant, key: string) {
  const { session } = await ctx.app.services.sessions.getOrCreate({
    tenantId: tenant.tenantId,
    sessionKey: key,
  });
  return session;
}

describe('chunk indexing on append', () => {
  it('builds turn pairs as turns arrive, completing an open pair with its reply', async () => {
    const session = await newSession(t, 'agent:a:slack:channel:C1');
    const append = (turns: Parameters<typeof ctx.app.services.transcript.appendTurns>[0]['turns']) =>
      ctx.app.services.transcript.appendTurns({ tenantId: t.tenantId, sessionId: session.id, turns });
    await append([{ role: 'user', content: 'What is the deploy freeze date?', author: { name: 'Alice' } }]);
    expect((await chunksOf(t.tenantId, session.id)).map((c) => [c.firstSeq, c.lastSeq])).toEqual([[1, 1]]);
    ctx.clock.advance(60_000);
    await append([
      { role: 'assistant', content: [{ type: 'text', text: 'The freeze starts on December 18.' }] },
    ]);
    const afterReply = await chunksOf(t.tenantId, session.id);
    expect(afterReply.map((c) => [c.firstSeq, c.lastSeq])).toEqual([[1, 2]]);
    expect(afterReply[0]!.text).toMatch(
      /User \(Alice\): What is the deploy freeze date\?\n\[.*\] Assistant: The freeze starts/,
    );
    ctx.clock.advance(60_000);
    await append([
      { role: 'user', content: 'And the holiday on-call rota?' },
      { role: 'assistant', content: 'Bob covers the first week.' },
    ]);
    expect((await chunksOf(t.tenantId, session.id)).map((c) => [c.firstSeq, c.lastSeq])).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const found = (
      await t.inject({
        method: 'POST',
        url: '/v1/memories/search',
        payload: { query: 'freeze date', filters: { session_key: 'agent:a:slack:channel:C1' } },
      })
    ).json();
    expect(found.results[0]).toMatchObject({
      kind: 'transcript_chunk',
      source: { first_seq: 1, last_seq: 2 },
    });
  });

  it('rebuilds only the chunk of a channel message that is edited or deleted', async () => {
    const session = await newSession(t, 'agent:a:slack:channel:C2');
    const db = ctx.deps.database.db;
    const source = (id: string) => ({ platform: 'slack', channel_id: 'C2', message_id: id });
    for (const id of ['m1', 'm2']) {
      await db.insert(channelMessages).values({
        tenantId: t.tenantId,
        platform: 'slack',
        channelId: 'C2',
        messageId: id,
        laneKey: 'root:C2',
        ts: ctx.clock.now(),
        text: `original ${id}`,
      });
    }
    await ctx.app.services.transcript.appendTurns({
      tenantId: t.tenantId,
      sessionId: session.id,
      turns: [
        { role: 'user', content: 'original m1 about invoices', source: source('m1') },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: 'original m2 about passwords', source: source('m2') },
        { role: 'assistant', content: 'ok' },
      ],
    });
    const before = await chunksOf(t.tenantId, session.id);
    expect(before).toHaveLength(2);

    await db
      .update(channelMessages)
      .set({ deletedAt: ctx.clock.now() })
      .where(and(eq(channelMessages.tenantId, t.tenantId), eq(channelMessages.messageId, 'm2')));
    await db
      .update(channelMessages)
      .set({ editedAt: ctx.clock.now(), text: 'edited m1 about receipts' })
      .where(and(eq(channelMessages.tenantId, t.tenantId), eq(channelMessages.messageId, 'm1')));
    const rebuilt = await db.transaction((tx) =>
      ctx.app.services.chunks.onChannelMessagesChanged(tx, {
        tenantId: t.tenantId,
        messages: [
          { platform: 'slack', channelId: 'C2', messageId: 'm1' },
          { platform: 'slack', channelId: 'C2', messageId: 'm2' },
        ],
      }),
    );
    expect(rebuilt).toBe(2);
    const after = await chunksOf(t.tenantId, session.id);
    expect(after.map((c) => [c.firstSeq, c.lastSeq])).toEqual([
      [1, 2],
      [4, 4],
    ]);
    expect(after[0]!.text).toContain('edited m1 about receipts');
    expect(after.map((c) => c.text).join('\n')).not.toContain('passwords');
    // The transcript itself is untouched.
    const entries = await db
      .select({ seq: transcriptEntries.seq })
      .from(transcriptEntries)
      .where(and(eq(transcriptEntries.tenantId, t.tenantId), eq(transcriptEntries.sessionId, session.id)));
    expect(entries).toHaveLength(4);
    // A later append keeps the deleted text out (rebuilds read the channel state again).
    await ctx.app.services.transcript.appendTurns({
      tenantId: t.tenantId,
      sessionId: session.id,
      turns: [{ role: 'user', content: 'follow-up' }],
    });
    expect((await chunksOf(t.tenantId, session.id)).map((c) => c.text).join('\n')).not.toContain('passwords');
  });

  it('removes a deleted session chunks and keeps other tenants apart', async () => {
    const other = await ctx.tenant();
    const mine = await newSession(t, 'agent:a:slack:channel:C3');
    const theirs = await newSession(other, 'agent:a:slack:channel:C3');
    for (const [tenant, session] of [
      [t, mine],
      [other, theirs],
    ] as const) {
      await ctx.app.services.transcript.appendTurns({
        tenantId: tenant.tenantId,
        sessionId: session.id,
        turns: [{ role: 'user', content: 'shared words about zebras' }],
      });
    }
    const theirSearch = (
      await other.inject({ method: 'POST', url: '/v1/memories/search', payload: { query: 'zebras' } })
    ).json();
    expect(theirSearch.results).toHaveLength(1);
    expect(theirSearch.results[0].source.session_id).toBe(theirs.id);
    const removed = await ctx.deps.database.db.transaction((tx) =>
      ctx.app.services.chunks.removeSessionChunks(tx, { tenantId: t.tenantId, sessionId: mine.id }),
    );
    expect(removed).toBe(1);
    expect(await chunksOf(t.tenantId, mine.id)).toEqual([]);
    expect(await chunksOf(other.tenantId, theirs.id)).toHaveLength(1);
  });
});

describe('chunk rebuilds driven by channel ingest', () => {
  it('rebuilds a chunk when POST /v1/events edits or deletes the channel message a turn quoted', async () => {
    const session = await newSession(t, 'agent:a:slack:channel:C9');
    const ts = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    const post = (events: unknown[]) => t.inject({ method: 'POST', url: '/v1/events', payload: { events } });
    const created = await post([
      {
        type: 'message.created',
        platform: 'slack',
        channel_id: 'C9',
        message_id: 'q1',
        ts: ts(1),
        author: { id: 'U1', name: 'Ana' },
        text: 'the vault code name is bluefinch',
      },
    ]);
    expect(created.statusCode).toBe(200);
    await ctx.app.services.transcript.appendTurns({
      tenantId: t.tenantId,
      sessionId: session.id,
      turns: [
        {
          role: 'user',
          content: 'the vault code name is bluefinch',
          source: { platform: 'slack', channel_id: 'C9', message_id: 'q1' },
        },
        { role: 'assistant', content: 'noted' },
      ],
    });
    expect((await chunksOf(t.tenantId, session.id))[0]!.text).toContain('bluefinch');

    const edited = await post([
      {
        type: 'message.edited',
        platform: 'slack',
        channel_id: 'C9',
        message_id: 'q1',
        ts: ts(2),
        text: 'never mind',
      },
    ]);
    expect(edited.json().results[0].outcome).toBe('updated');
    const after = await chunksOf(t.tenantId, session.id);
    expect(after[0]!.text).toContain('never mind');
    expect(after[0]!.text).not.toContain('bluefinch');
  });
});

describe('adjacent exchanges of a transcript hit (context retrieval)', () => {
  it('brings the exchange before and after a hit at half its score, when that passes the relevance rule', async () => {
    const session = await newSession(t, 'agent:a:slack:dm:adjacent');
    const exchanges = [
      ['How was your weekend?', 'Quiet, I painted the fence.'],
      ['Did you finally adopt the puppy?', 'Tell me, did you?'],
      ['Yes! We named him Oscar.', 'Lovely name.'],
      ['Lunch today?', 'Sure, at noon.'],
    ];
    for (const [user, assistant] of exchanges) {
      ctx.clock.advance(60_000);
      await ctx.app.services.transcript.appendTurns({
        tenantId: t.tenantId,
        sessionId: session.id,
        turns: [
          { role: 'user', content: user! },
          { role: 'assistant', content: assistant! },
        ],
      });
    }
    const retrieve = createRetriever({
      memorySearch: ctx.app.services.memorySearch,
      chunks: createChunksRepository(ctx.deps.database.db),
    });
    const run = (least: number) =>
      retrieve({
        session,
        laneKey: 'main',
        query: 'adopt a puppy',
        lexemes: null,
        now: ctx.clock.now(),
        limit: 20,
        minScore: () => least,
        include: {},
      });
    const { items } = await run(0.01);
    const hit = items[0]!;
    expect(hit.id).toBe(`${session.id}:3`);
    // The exchanges before (seq 1–2) and after (5–6) at half the hit's score; seq 7's is not adjacent.
    expect(items.map((i) => [i.id, i.seq_range])).toEqual([
      [`${session.id}:3`, [3, 4]],
      [`${session.id}:1`, [1, 2]],
      [`${session.id}:5`, [5, 6]],
    ]);
    expect(items[1]!.score).toBeCloseTo(hit.score / 2, 5);
    expect(items[2]!.text).toContain('We named him Oscar.');
    // A least score over half the hit's: the hit alone.
    const strict = await run(hit.score * 0.6);
    expect(strict.items.map((i) => i.id)).toEqual([hit.id]);
  });
});
