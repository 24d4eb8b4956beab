// Rules the context call's load statement repeats in SQL agree with their TypeScript home: the turn's
// lane (session-keys.ts turnLaneKey) and the memory scopes a session sees
// (memory/core/visible-scopes.ts), over sessions with and without a channel, a user, a last lane.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextRepository } from '../../src/modules/context/context.repository.js';
import { visibleMemoryScopes } from '../../src/modules/memory/core/visible-scopes.js';
import { turnLaneKey } from '../../src/modules/sessions/core/session-keys.js';
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
