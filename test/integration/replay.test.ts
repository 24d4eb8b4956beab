// Replay of logged context calls on real storage: 50 turns with compactions (before a blocked
// reply, and on request), each logged payload returned byte for byte with the logged SHA-256,
// system sections and tool definitions stored once per tenant, the call's time apart from the
// anchor's, and the 404s and 400s of GET /v1/sessions/{id}/context-log/{seq}/payload.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const system = [
  {
    name: 'base',
    text: `You are the release assistant. ${'Keep answers short and cite ticket ids. '.repeat(20)}`,
  },
  { name: 'style', text: 'Answer in English.' },
];
const tools = [
  {
    name: 'deploy_status',
    description: `Look up a deployment by id. ${'Returns the state and the last log lines. '.repeat(10)}`,
    input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
];

async function newSession(tenant: TestTenant) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `C${Math.random()}` },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

const payloadUrl = (sessionId: string, seq: number | string) =>
  `/v1/sessions/${sessionId}/context-log/${seq}/payload`;

describe('GET /v1/sessions/{id}/context-log/{seq}/payload', () => {
  let sessionId: string;
  const replies: { seq: number; sha: string; body: string }[] = [];

  beforeAll(async () => {
    sessionId = await newSession(t);
    let compactedBeforeReply = 0;
    for (let i = 0; i < 50; i++) {
      ctx.clock.advance(60_000);
      const response = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/context`,
        payload: {
          message: {
            content: `Turn ${i}: what changed in build ${3000 + i} (ticket OPS-${i})? ${'Details of the change. '.repeat(30)}`,
            time: new Date(Date.UTC(2026, 10, 1, 9, i)).toISOString(),
          },
          system,
          tools,
          budget: { total: 9_000, max_output_tokens: 500 },
          ...(i % 10 === 9 ? { format: 'openai' } : {}),
        },
      });
      expect(response.statusCode).toBe(200);
      const reply = response.json();
      if (reply.compaction.action === 'compacted') compactedBeforeReply += 1;
      replies.push({ seq: reply.turn_seq, sha: reply.payload_sha256, body: JSON.stringify(reply.payload) });
      const turns = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${sessionId}/turns`,
        payload: {
          turns: [
            {
              role: 'assistant',
              content: `Build ${3000 + i} changed /srv/svc-${i}/config.yaml. ${'More. '.repeat(40)}`,
            },
          ],
        },
      });
      expect(turns.statusCode).toBe(201);
      if (i === 24) {
        const compact = await t.inject({
          method: 'POST',
          url: `/v1/sessions/${sessionId}/compact`,
          payload: { wait: true, force: true },
        });
        expect(compact.statusCode).toBe(200);
      }
    }
    // The session was compacted along the way, so later payloads differ from a growing history.
    expect(compactedBeforeReply).toBeGreaterThan(0);
    // 50 context calls, 50 appends and a compaction: longer than the default hook timeout on a
    // loaded machine.
  }, 300_000);

  it('returns every logged payload byte for byte, with the logged SHA-256', async () => {
    const log = await t.inject({ url: `/v1/sessions/${sessionId}/context-log?limit=100` });
    const entries = log.json().entries as { turn_seq: number; payload_sha256: string; replayable: boolean }[];
    expect(entries).toHaveLength(50);
    for (const [k, entry] of entries.entries()) {
      const replay = await t.inject({ url: payloadUrl(sessionId, entry.turn_seq) });
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['content-type']).toMatch(/^application\/json/);
      expect(sha256(replay.body)).toBe(entry.payload_sha256);
      expect(replay.headers['payload-sha256']).toBe(entry.payload_sha256);
      // The same bytes the context call returned at that turn.
      expect(replies[k]!.seq).toBe(entry.turn_seq);
      expect(replay.body).toBe(replies[k]!.body);
      expect(entry.replayable).toBe(true);
    }
  });

  it('stores system sections and tool definitions once, and each message once while it is unchanged', async () => {
    const rows = await queryRows<{ n: number | string; bytes: number | string }>(
      ctx.deps.database.db,
      sql`select count(*)::int as n, coalesce(sum(length(body)), 0)::int as bytes
          from payload_parts where tenant_id = ${t.tenantId}`,
    );
    const storedBytes = Number(rows[0]!.bytes);
    const payloadBytes = replies.reduce((sum, r) => sum + r.body.length, 0);
    // Exactly one copy of each distinct element of the payloads' arrays is stored…
    const distinct = new Set<string>();
    for (const r of replies) {
      for (const value of Object.values(JSON.parse(r.body) as Record<string, unknown>)) {
        if (Array.isArray(value)) for (const element of value) distinct.add(JSON.stringify(element));
      }
    }
    expect(Number(rows[0]!.n)).toBe(distinct.size);
    expect(storedBytes).toBe([...distinct].reduce((sum, body) => sum + body.length, 0));
    // …which, with the system prompt and the tools in every payload, is well under per-turn copies.
    expect(storedBytes).toBeLessThan(payloadBytes * 0.6);
    const toolPart = JSON.stringify({ ...tools[0] });
    const held = await queryRows<{ n: number | string }>(
      ctx.deps.database.db,
      sql`select count(*)::int as n from payload_parts where tenant_id = ${t.tenantId} and body = ${toolPart}`,
    );
    expect(Number(held[0]!.n)).toBe(1);
  });

  it("logs the call's time as created_at and the anchor's time apart", async () => {
    const s = await newSession(t);
    ctx.clock.set('2026-12-01T12:00:00.000Z');
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s}/context`,
      payload: { message: { content: 'hello', time: '2026-11-30T08:00:00.000Z' } },
    });
    expect(response.statusCode).toBe(200);
    const entry = (await t.inject({ url: `/v1/sessions/${s}/context-log` })).json().entries[0];
    expect(entry.created_at).toBe('2026-12-01T12:00:00.000Z');
    expect(entry.anchor_at).toBe('2026-11-30T08:00:00.000Z');
  });

  it("another tenant's session is a 404; an unlogged turn and a dry run are 404s", async () => {
    const foreign = await other.inject({ url: payloadUrl(sessionId, replies[0]!.seq) });
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign).code).toBe('session.not_found');
    // An assistant turn's seq has no context call.
    const missing = await t.inject({ url: payloadUrl(sessionId, replies[0]!.seq + 1) });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('context_log.not_found');

    const s = await newSession(t);
    const dry = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s}/context`,
      payload: { message: { content: 'just looking' }, dry_run: true },
    });
    expect(dry.json().turn_seq).toBeNull();
    expect((await t.inject({ url: payloadUrl(s, 1) })).statusCode).toBe(404);
  });

  it('a call logged before payloads were stored is a 404 of its own', async () => {
    await ctx.deps.database.db.execute(
      sql`update context_log set payload_layout = null, payload_parts = null
          where tenant_id = ${t.tenantId} and session_id = ${sessionId} and turn_seq = ${replies[1]!.seq}`,
    );
    const response = await t.inject({ url: payloadUrl(sessionId, replies[1]!.seq) });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('context_log.payload_not_stored');
    const log = await t.inject({ url: `/v1/sessions/${sessionId}/context-log?limit=2` });
    expect(log.json().entries[1].replayable).toBe(false);
  });

  it('a bad seq is a 400 with the field path', async () => {
    for (const seq of ['abc', '0', '-3', '1.5']) {
      const response = await t.inject({ url: payloadUrl(sessionId, seq) });
      expect(response.statusCode).toBe(400);
      const error = errorOf(response);
      expect(error.code).toBe('request.invalid');
      expect((error.details as { path: string }[]).map((d) => d.path)).toContain('params.seq');
    }
  });
});
