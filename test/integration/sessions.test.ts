// Sessions through HTTP: get-or-create by key parts or explicit key, freshness, reset, list,
// hard delete with cascade, tenant isolation, restarts and one live session per key under races.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { SESSION_MAX_AGE_MS: '3600000' } });
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const dm = (userId: string) => ({ agent_id: 'bot', platform: 'telegram', chat_type: 'dm', user_id: userId });

async function createSession(tenant: TestTenant, payload: Record<string, unknown>) {
  const response = await tenant.inject({ method: 'POST', url: '/v1/sessions', payload });
  expect([200, 201]).toContain(response.statusCode);
  return response.json() as {
    session: Record<string, unknown> & { id: string };
    created: boolean;
    reason: string;
  };
}

describe('POST /v1/sessions', () => {
  it('creates from key parts (peer = user for DMs, channel otherwise), then returns the same session', async () => {
    const first = await createSession(t, dm('u1'));
    expect(first).toMatchObject({ created: true, reason: 'new' });
    expect(first.session.session_key).toBe('agent:bot:telegram:dm:u1');
    const again = await createSession(t, dm('u1'));
    expect(again).toMatchObject({ created: false, reason: 'existing' });
    expect(again.session.id).toBe(first.session.id);

    const group = await createSession(t, {
      agent_id: 'bot',
      platform: 'slack',
      chat_type: 'channel',
      channel_id: 'C1',
      user_id: 'ignored',
    });
    expect(group.session.session_key).toBe('agent:bot:slack:channel:C1');
    expect(group.session).toMatchObject({ channel_id: 'C1', platform: 'slack', chat_type: 'channel' });
  });

  it('accepts an explicit key', async () => {
    const first = await createSession(t, { session_key: 'telegram:chat:42' });
    expect(first.session.session_key).toBe('telegram:chat:42');
    expect((await createSession(t, { session_key: 'telegram:chat:42' })).session.id).toBe(first.session.id);
  });

  it('rejects missing key parts with the field path', async () => {
    const response = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'telegram', chat_type: 'dm' },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'body.user_id' })]),
    );
    const none = await t.inject({ method: 'POST', url: '/v1/sessions', payload: {} });
    expect(none.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(none).details)).toContain('body.agent_id');
  });

  it('replaces a stale session: ends it, links back and carries compaction_count', async () => {
    const first = await createSession(t, dm('stale-user'));
    await ctx.deps.database.db.execute(
      sql`update sessions set compaction_count = 3 where tenant_id = ${t.tenantId} and id = ${first.session.id}`,
    );
    // A turn renews freshness; measured from the last turn with the injected clock.
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${first.session.id}/turns`,
      payload: { turns: [{ role: 'user', content: 'hello' }] },
    });
    ctx.clock.advance(3_000_000);
    expect((await createSession(t, dm('stale-user'))).reason).toBe('existing');
    ctx.clock.advance(3_600_001 - 3_000_000 + 1);
    const replaced = await createSession(t, dm('stale-user'));
    expect(replaced).toMatchObject({ created: true, reason: 'stale' });
    expect(replaced.session).toMatchObject({
      reset_from: first.session.id,
      compaction_count: 3,
      turn_count: 0,
    });
    const old = (await t.inject({ url: `/v1/sessions/${first.session.id}` })).json();
    expect(old.ended_at).toBe(ctx.clock.now().toISOString());
    expect(old.live).toBe(false);
    // A per-request max_age_ms overrides the configured one.
    ctx.clock.advance(1000);
    const short = await createSession(t, { ...dm('stale-user'), max_age_ms: 500 });
    expect(short).toMatchObject({ reason: 'stale' });
    expect(short.session.reset_from).toBe(replaced.session.id);
  });
});

describe('GET, list, reset and delete', () => {
  it('gets by id and lists by key with cursor paging', async () => {
    const first = await createSession(t, dm('lister'));
    const reset = await t.inject({ method: 'POST', url: `/v1/sessions/${first.session.id}/reset` });
    expect(reset.statusCode).toBe(201);
    const second = reset.json();
    expect(second).toMatchObject({ created: true, reason: 'reset' });
    expect(second.session.reset_from).toBe(first.session.id);
    const aliased = await t.inject({ method: 'POST', url: `/v1/sessions/${second.session.id}/new` });
    expect(aliased.statusCode).toBe(201);
    const third = aliased.json();

    const again = await t.inject({ method: 'POST', url: `/v1/sessions/${first.session.id}/reset` });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).code).toBe('session.ended');
    // With an Idempotency-Key, a retried reset replays its first reply.
    const keyed = { 'idempotency-key': 'reset-1' };
    const resetOnce = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${third.session.id}/reset`,
      headers: keyed,
    });
    const resetTwice = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${third.session.id}/reset`,
      headers: keyed,
    });
    expect(resetTwice.statusCode).toBe(201);
    expect(resetTwice.body).toBe(resetOnce.body);
    const fourth = resetOnce.json();

    const key = encodeURIComponent('agent:bot:telegram:dm:lister');
    const page1 = (await t.inject({ url: `/v1/sessions?key=${key}&limit=2` })).json();
    expect(page1.sessions.map((s: { id: string }) => s.id)).toEqual([fourth.session.id, third.session.id]);
    expect(page1.next_cursor).toBe(third.session.id);
    const page2 = (
      await t.inject({ url: `/v1/sessions?key=${key}&limit=2&cursor=${page1.next_cursor}` })
    ).json();
    expect(page2.sessions.map((s: { id: string }) => s.id)).toEqual([second.session.id, first.session.id]);
    expect(page2.next_cursor).toBeNull();
    const live = (await t.inject({ url: `/v1/sessions?key=${key}&live=true` })).json();
    expect(live.sessions.map((s: { id: string }) => s.id)).toEqual([fourth.session.id]);
  });

  it('404s unknown and other tenants’ ids, 400s malformed ids', async () => {
    const mine = await createSession(t, dm('private'));
    const other = await ctx.tenant();
    for (const [method, url] of [
      ['GET', `/v1/sessions/${mine.session.id}`],
      ['POST', `/v1/sessions/${mine.session.id}/reset`],
      ['DELETE', `/v1/sessions/${mine.session.id}`],
      ['GET', `/v1/sessions/${mine.session.id}/transcript`],
      ['GET', `/v1/sessions/${mine.session.id}/attachments`],
    ] as const) {
      const response = await other.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(errorOf(response).code).toBe('session.not_found');
    }
    const turns = await other.inject({
      method: 'POST',
      url: `/v1/sessions/${mine.session.id}/turns`,
      payload: { turns: [{ role: 'user', content: 'hi' }] },
    });
    expect(turns.statusCode).toBe(404);
    const listed = (await other.inject({ url: `/v1/sessions?key=agent:bot:telegram:dm:private` })).json();
    expect(listed.sessions).toEqual([]);
    // Their own session with the same key parts is a different session.
    expect((await createSession(other, dm('private'))).session.id).not.toBe(mine.session.id);
    expect((await t.inject({ url: '/v1/sessions/not-a-uuid' })).statusCode).toBe(400);
    // Still intact for the owner.
    expect((await t.inject({ url: `/v1/sessions/${mine.session.id}` })).statusCode).toBe(200);
  });

  it('hard-deletes a session with everything it owns, in one go', async () => {
    const doomed = await createSession(t, dm('doomed'));
    const kept = await createSession(t, dm('kept'));
    const id = doomed.session.id;
    const db = ctx.deps.database.db;
    for (const sessionId of [id, kept.session.id]) {
      const append = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/turns`,
        payload: {
          turns: [
            { role: 'user', content: 'run it' },
            {
              role: 'assistant',
              content: [{ type: 'tool_use', id: `call_${sessionId.slice(-6)}`, name: 'sh', input: {} }],
            },
            {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: `call_${sessionId.slice(-6)}`,
                  content: `${sessionId} `.repeat(200),
                },
              ],
            },
          ],
        },
      });
      expect(append.statusCode).toBe(201);
      await db.execute(
        sql`insert into lane_states (tenant_id, session_id, lane_key) values (${t.tenantId}, ${sessionId}, 'root:session')`,
      );
      await db.execute(sql`insert into transcript_chunks (tenant_id, session_id, first_seq, last_seq, lane_key, session_key, text)
        values (${t.tenantId}, ${sessionId}, 1000, 1001, 'root:session', 'k', 'chunk') on conflict do nothing`);
      await db.execute(sql`insert into context_log (tenant_id, session_id, turn_seq, lane_key, lane_version, payload_sha256, budget)
        values (${t.tenantId}, ${sessionId}, 1, 'root:session', 0, 'x', '{}'::jsonb)`);
      await ctx.app.services.manifest.record({
        tenantId: t.tenantId,
        sessionId,
        artifactId: ctx.deps.ids.next(),
        contentHash: 'abc',
        includedAtTurn: 1,
      });
    }
    const counts = async (sessionId: string) => {
      const [row] = await queryRows<Record<string, number>>(
        db,
        sql`select
          (select count(*)::int from transcript_entries where session_id = ${sessionId}) as entries,
          (select count(*)::int from lane_states where session_id = ${sessionId}) as lanes,
          (select count(*)::int from attachment_manifest where session_id = ${sessionId}) as manifest,
          (select count(*)::int from blobs where session_id = ${sessionId}) as blobs,
          (select count(*)::int from transcript_chunks where session_id = ${sessionId}) as chunks,
          (select count(*)::int from context_log where session_id = ${sessionId}) as log,
          (select count(*)::int from sessions where id = ${sessionId}) as sessions`,
      );
      return row!;
    };
    const before = await counts(id);
    expect(before.chunks).toBeGreaterThanOrEqual(1);
    expect({ ...before, chunks: 1 }).toEqual({
      entries: 3,
      lanes: 1,
      manifest: 1,
      blobs: 1,
      chunks: 1,
      log: 1,
      sessions: 1,
    });
    const deleted = await t.inject({ method: 'DELETE', url: `/v1/sessions/${id}` });
    expect(deleted.statusCode).toBe(204);
    expect(await counts(id)).toEqual({
      entries: 0,
      lanes: 0,
      manifest: 0,
      blobs: 0,
      chunks: 0,
      log: 0,
      sessions: 0,
    });
    expect(await counts(kept.session.id)).toEqual(before);
    expect((await t.inject({ method: 'DELETE', url: `/v1/sessions/${id}` })).statusCode).toBe(404);
    // The key gets a fresh session afterwards.
    expect((await createSession(t, dm('doomed'))).reason).toBe('new');
  });
});

describe('restarts and concurrency', () => {
  it('reads sessions back from a second app instance on the same database', async () => {
    const made = await createSession(t, dm('restart'));
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${made.session.id}/turns`,
      payload: { turns: [{ role: 'user', content: 'remember me' }] },
    });
    const second = await createTestApp({ testDb: ctx.testDb, clock: ctx.clock });
    try {
      const response = await second.app.inject({
        url: `/v1/sessions/${made.session.id}`,
        headers: t.headers,
      });
      expect(response.json()).toMatchObject({ id: made.session.id, turn_count: 1, next_seq: 2 });
      const again = await second.app.inject({
        method: 'POST',
        url: '/v1/sessions',
        headers: t.headers,
        payload: dm('restart'),
      });
      expect(again.json()).toMatchObject({
        created: false,
        reason: 'existing',
        session: { id: made.session.id },
      });
    } finally {
      await second.close();
    }
  });

  it('keeps one live session per key under parallel creates from two app instances', async () => {
    const second = await createTestApp({
      testDb: ctx.testDb,
      clock: ctx.clock,
      env: { SESSION_MAX_AGE_MS: '3600000' },
    });
    try {
      const apps = [ctx.app, second.app];
      const fire = (payload: Record<string, unknown>) =>
        Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            apps[i % 2]!.inject({ method: 'POST', url: '/v1/sessions', headers: t.headers, payload }),
          ),
        );
      const created = await fire(dm('race'));
      const bodies = created.map((r) => r.json());
      expect(new Set(bodies.map((b) => b.session.id)).size).toBe(1);
      expect(bodies.filter((b) => b.created)).toHaveLength(1);

      // Stale replacement races too: exactly one successor.
      ctx.clock.advance(3_600_001);
      const replaced = (await fire(dm('race'))).map((r) => r.json());
      expect(new Set(replaced.map((b) => b.session.id)).size).toBe(1);
      expect(replaced.filter((b) => b.reason === 'stale')).toHaveLength(1);
      const [row] = await queryRows<{ live: number; total: number }>(
        ctx.deps.database.db,
        sql`select count(*) filter (where ended_at is null)::int as live, count(*)::int as total
            from sessions where tenant_id = ${t.tenantId} and session_key = 'agent:bot:telegram:dm:race'`,
      );
      expect(row).toEqual({ live: 1, total: 2 });
    } finally {
      await second.close();
    }
  });
});
