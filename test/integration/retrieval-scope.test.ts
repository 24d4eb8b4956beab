// Retrieval reads only what a session can see (docs/memory.md, "Cost per call"): memories of the
// session's visible scopes and the chunks of its own session, each through an index, so a tenant's
// other data neither costs the call anything nor crowds out what it can see. Before, the memories
// of every scope were ranked and the invisible ones dropped afterwards (a tenant memory lost among
// 2,500 other users' memories), and no index served a session's chunks.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Executor } from '../../src/db/client.js';
import { visibleMemoryScopes } from '../../src/modules/memory/core/visible-scopes.js';
import { createSearchRepository, type SearchFilters } from '../../src/modules/memory/search.repository.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
let sessionId: string;
let sessionKey: string;
/** The one memory the session can see; longer (so ranked lower) than the others. */
const PRIYA =
  'Priya owns the Lisbon migration rollout, the database cutover and the weekend freeze checklist';
const OTHER_USERS = 2_500;
const OTHER_CHUNKS = 3_000;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  const created = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'C1' },
  });
  expect(created.statusCode).toBeLessThan(300);
  sessionId = created.json().session.id;
  sessionKey = created.json().session.session_key;
  const db = ctx.deps.database.db;
  const old = ctx.clock.now().toISOString();
  await db.execute(sql`insert into memories (tenant_id, id, scope, scope_key, type, text, text_key, updated_at)
    values (${t.tenantId}, gen_random_uuid(), 'tenant', '', 'fact', ${PRIYA},
      md5('priya'), ${old}::timestamptz)`);
  // Other users' memories on the same subject, newer: the session cannot see them.
  await db.execute(sql`insert into memories (tenant_id, id, scope, scope_key, type, text, text_key, updated_at)
    select ${t.tenantId}, gen_random_uuid(), 'user', 'slack:U' || i, 'fact',
      'User ' || i || ' asked who owns the Lisbon migration rollout', md5(i::text),
      ${old}::timestamptz + i * interval '1 second'
    from generate_series(1, ${OTHER_USERS}) i`);
  await db.execute(sql`insert into transcript_chunks (tenant_id, session_id, first_seq, last_seq, lane_key, session_key, text)
    select ${t.tenantId}, gen_random_uuid(), 1, 2, 'root:C' || (i % 50), 'agent:other:slack:channel:C' || (i % 150),
      'User: who owns the Lisbon migration rollout ' || i
    from generate_series(1, ${OTHER_CHUNKS}) i`);
  await db.execute(sql`analyze memories`);
  await db.execute(sql`analyze transcript_chunks`);
});
afterAll(async () => {
  await ctx?.close();
});

/** The plan PostgreSQL picks for the statement scopeCandidates sends for these filters. */
async function scopeReadPlan(
  source: 'memories' | 'transcript_chunks',
  filters: SearchFilters,
): Promise<string> {
  let statement: SQL | undefined;
  const capture = {
    execute: (query: SQLWrapper) => {
      statement = query.getSQL();
      return Promise.resolve([]);
    },
  } as unknown as Executor;
  await createSearchRepository(capture).scopeCandidates({
    tenantId: t.tenantId,
    source,
    terms: [{ lexeme: 'lisbon', query: "'lisbon'" }],
    query: "'lisbon'",
    filters,
    now: ctx.clock.now(),
    perTerm: 100,
    scanLimit: 2_000,
    rankWindow: 500,
    cap: 2_000,
  });
  const rows = await queryRows<Record<string, string>>(ctx.deps.database.db, sql`explain ${statement!}`);
  return rows.map((r) => Object.values(r)[0]).join('\n');
}

describe('retrieval reads what the session can see, through indexes', () => {
  it("finds the tenant's memory among thousands of other users' memories (memory_search tool)", async () => {
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/tools/memory_search`,
      payload: { input: { query: 'Who owns the Lisbon migration rollout?' } },
    });
    expect(response.statusCode).toBe(200);
    const { results } = JSON.parse(response.json().content[0].text) as { results: { text: string }[] };
    expect(results.map((r) => r.text)).toContain(PRIYA);
    expect(results.filter((r) => r.text.includes('asked who owns'))).toEqual([]);
  });

  it("brings the tenant's memory into the context call", async () => {
    const response = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'Who owns the Lisbon migration rollout?' } },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(PRIYA);
    expect(response.body).not.toContain('asked who owns');
  });

  it("reads a session's chunks through transcript_chunks_session_idx", async () => {
    const plan = await scopeReadPlan('transcript_chunks', { sessionKey });
    expect(plan).toContain('transcript_chunks_session_idx');
    expect(plan).not.toMatch(/Seq Scan on transcript_chunks/);
  });

  it('reads each visible memory scope through memories_scope_idx', async () => {
    const session = await ctx.app.services.sessions.getOrCreate({ tenantId: t.tenantId, sessionKey });
    const scopes = visibleMemoryScopes(session.session);
    expect(scopes.map((s) => s.scope)).toEqual(['tenant', 'channel', 'session']);
    const plan = await scopeReadPlan('memories', { scopes });
    expect(plan.match(/memories_scope_idx/g)?.length).toBe(scopes.length);
    expect(plan).not.toMatch(/Seq Scan on memories|memories_tsv_idx|memories_pkey/);
  });
});
