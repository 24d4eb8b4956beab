// Rules the context call's load statement repeats in SQL agree with their TypeScript home: the turn's
// lane (session-keys.ts turnLaneKey) and the memory scopes a session sees
// (memory/core/visible-scopes.ts), over sessions with and without a channel, a user, a last lane; the
// thread an anchor belongs to or starts (channels.service.ts threadRootFor), over every kind of anchor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { threadRootFor } from '../../src/modules/channels/channels.service.js';
import { createContextRepository } from '../../src/modules/context/context.repository.js';
import { visibleMemoryScopes } from '../../src/modules/memory/core/visible-scopes.js';
import { turnLaneKey } from '../../src/modules/sessions/core/session-keys.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

/** Sessions of every shape the rules distinguish. */
const SHAPES = [
  { name: 'no channel, no user', parts: null },
  { name: 'channel', parts: { agentId: 'bot', platform: 'slack', chatType: 'channel', channelId: 'C9' } },
  {
    name: 'channel and user',
    parts: { agentId: 'bot', platform: 'slack', chatType: 'channel', channelId: 'C8', userId: 'U8' },
  },
  { name: 'direct messages', parts: { agentId: 'bot', platform: 'telegram', chatType: 'dm', userId: 'U7' } },
];

async function sessionOf(shape: (typeof SHAPES)[number], n: number) {
  const services = ctx.app.services;
  const { session } = await services.sessions.getOrCreate(
    shape.parts
      ? { tenantId: t.tenantId, parts: shape.parts }
      : { tenantId: t.tenantId, sessionKey: `rules-in-sql-${n}-${Date.now()}` },
  );
  return session;
}

describe('rules the load statement repeats in SQL', () => {
  it('picks the lane turnLaneKey picks and the scopes visibleMemoryScopes names', async () => {
    const repo = createContextRepository(ctx.deps.database.db);
    const load = (sessionId: string, laneKey: string | null) =>
      repo.loadTurn({
        tenantId: t.tenantId,
        sessionId,
        anchor: null,
        snapshot: false,
        laneKey,
        agentId: null,
        lexemeText: null,
        laneRead: null,
      });
    let checked = 0;
    for (const [n, shape] of SHAPES.entries()) {
      const session = await sessionOf(shape, n);
      // Before any turn (no last lane), then after a turn in a named lane (the lane it continues).
      for (const lastLane of [null, `thread:${n}:1`]) {
        if (lastLane) {
          await ctx.app.services.transcript.appendTurns({
            tenantId: t.tenantId,
            sessionId: session.id,
            turns: [{ role: 'user', content: 'hello', lane_key: lastLane }],
          });
        }
        for (const requested of [null, 'thread:requested:2']) {
          const loaded = (await load(session.id, requested))!;
          expect(loaded.session.turnState.last_lane_key).toBe(lastLane);
          expect(loaded.laneKey, `${shape.name}, last ${lastLane}, asked ${requested}`).toBe(
            turnLaneKey(null, requested, loaded.session),
          );
          const memoryKeys = Object.keys(loaded.scopeVersions)
            .filter((key) => key.startsWith('memories '))
            .sort();
          expect(memoryKeys, shape.name).toEqual(
            visibleMemoryScopes(loaded.session)
              .map((s) => `memories ${s.scope}:${s.scopeKey}`)
              .sort(),
          );
          expect(loaded.scopeVersions[`transcript_chunks ${loaded.session.sessionKey}`]).toBeTypeOf('number');
          checked += 1;
        }
      }
    }
    expect(checked).toBe(SHAPES.length * 4);
  });
});

describe('the thread root the load statement finds', () => {
  it('is the root threadRootFor finds, for every kind of anchor', async () => {
    const channel = 'C-roots';
    await ingest(t, channel, [
      { message_id: 'plain', ts: at(1), text: 'a message nobody answered' },
      { message_id: 'root', ts: at(2), text: 'a thread root' },
      { message_id: 'in-thread', ts: at(3), thread_id: 'root', text: 'a reply in the thread' },
      { message_id: 'topic', ts: at(4), topic_id: 'topic-7', text: 'a message in a forum topic' },
      { message_id: 'asked', ts: at(5), text: 'a question answered by reply' },
      { message_id: 'answer', ts: at(6), reply_to_id: 'asked', text: 'an answer' },
      { message_id: 'answer-2', ts: at(7), reply_to_id: 'answer', text: 'an answer to the answer' },
      { message_id: 'fetched', ts: at(8), text: 'a root fetched from the platform with its reply count' },
    ]);
    // What a backfilled root knows of its replies before any is stored (platforms/history.ts).
    await ctx.deps.database.db.execute(
      sql`update channel_messages set metadata = metadata || '{"platform_reply_count": 3}'::jsonb
          where tenant_id = ${t.tenantId} and channel_id = ${channel} and message_id = 'fetched'`,
    );
    const { session } = await ctx.app.services.sessions.getOrCreate({
      tenantId: t.tenantId,
      parts: { agentId: 'bot', platform: 'slack', chatType: 'channel', channelId: channel },
    });
    const repo = createContextRepository(ctx.deps.database.db);
    const roots: Record<string, string | null> = {};
    for (const messageId of [
      'plain',
      'root',
      'in-thread',
      'topic',
      'asked',
      'answer',
      'answer-2',
      'fetched',
    ]) {
      const loaded = (await repo.loadTurn({
        tenantId: t.tenantId,
        sessionId: session.id,
        anchor: { platform: 'slack', channelId: channel, messageId },
        snapshot: true,
        laneKey: null,
        agentId: null,
        lexemeText: null,
        laneRead: null,
      }))!;
      const expected = threadRootFor(loaded.anchor!);
      expect(loaded.thread?.rootId ?? null, messageId).toBe(expected);
      roots[messageId] = expected;
    }
    // Every branch of the rule was taken.
    expect(roots).toEqual({
      plain: null,
      root: 'root',
      'in-thread': 'root',
      topic: 'topic-7',
      asked: 'asked',
      answer: 'asked',
      'answer-2': 'asked',
      fetched: 'fetched',
    });
  });
});
