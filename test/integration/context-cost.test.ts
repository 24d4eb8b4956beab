// The context call's cost policy against a real database: every reply prices its payload under the
// provider's prompt-caching rules against the cache the session's earlier calls left (dry runs leave
// it alone) and the session sums it; retrieved material is this payload's only (after the turn's
// breakpoint, never stored); the sent view changes at a cold cache once the history passes its
// share of the caller's window, and not while the cache is warm; a compaction that commits while a
// call assembles never fails the call.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import postgres from 'postgres';
import { createTestApp, usesRealPostgres, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
let channelSeq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx.close();
});

const T0 = Date.parse('2026-02-01T09:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

async function session() {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `CC${++channelSeq}` },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId: `CC${channelSeq}` };
}

// A cacheable system prompt past the 1,024-token minimum, so the prefix is written and read.
const SYSTEM = [
  { name: 'persona', text: `You are a support bot. ${'Answer briefly and cite the ticket. '.repeat(250)}` },
];

interface Cost {
  cache_read: number;
  cache_write: number;
  uncached: number;
  input_tokens: number;
  billed_input: number;
  basis: string;
}

async function call(id: string, content: string, atMs: number, extra: Record<string, unknown> = {}) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${id}/context`,
    payload: { message: { content, time: iso(atMs) }, system: SYSTEM, ...extra },
  });
  expect(response.statusCode).toBe(200);
  return response.json() as {
    payload: { messages: { role: string; content: { type: string; text?: string }[] }[] };
    budget: { cost: Cost; effective_window: number };
    cache: { breakpoints: { position: string; index: number; block?: number }[] };
    compaction: { action: string; result: { lanes: { strategies_run: string[] }[] } | null };
    turn_seq: number | null;
  };
}

const answer = (id: string, text: string, atMs: number) =>
  t.inject({
    method: 'POST',
    url: `/v1/sessions/${id}/turns`,
    payload: { turns: [{ role: 'assistant', content: text, time: iso(atMs) }] },
  });

async function totals(id: string) {
  const [row] = await queryRows<{ cost_totals: Record<string, number> }>(
    ctx.deps.database.db,
    sql`select cost_totals from sessions where id = ${id}`,
  );
  return row!.cost_totals;
}

describe('the cost report', () => {
  it('prices the first call cold, a call within the TTL warm, one after it expired; dry runs change nothing', async () => {
    const s = await session();
    const first = (await call(s.id, 'first question about ticket T-1', 0)).budget.cost;
    expect(first).toMatchObject({ basis: 'cold', cache_read: 0 });
    expect(first.cache_write).toBeGreaterThan(1024);
    expect(first.cache_write + first.uncached).toBe(first.input_tokens);
    expect(first.billed_input).toBeCloseTo(1.25 * first.cache_write + first.uncached, 1);
    expect((await answer(s.id, 'T-1 is open', 30_000)).statusCode).toBe(201);

    const dry = (await call(s.id, 'second question about ticket T-2', 60_000, { dry_run: true })).budget.cost;
    const second = (await call(s.id, 'second question about ticket T-2', 60_000)).budget.cost;
    // The dry run left the cache state as it was: the call priced the same.
    expect(second).toEqual(dry);
    expect(second.basis).toBe('warm');
    expect(second.cache_read).toBeGreaterThanOrEqual(first.cache_write);
    expect(second.billed_input).toBeLessThan(first.billed_input);
    expect((await answer(s.id, 'T-2 is closed', 90_000)).statusCode).toBe(201);

    const third = (await call(s.id, 'third question about ticket T-3', 60_000 + 10 * 60_000)).budget.cost;
    expect(third).toMatchObject({ basis: 'expired', cache_read: 0 });

    const sum = await totals(s.id);
    expect(sum.calls).toBe(3);
    expect(sum.billed_input).toBeCloseTo(first.billed_input + second.billed_input + third.billed_input, 1);
    expect(sum.cache_read).toBe(first.cache_read + second.cache_read + third.cache_read);
  });
});

describe('retrieved material', () => {
  it("follows the turn's breakpoint and is never stored: the next call repeats the turn without it", async () => {
    const s = await session();
    const created = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: {
        scope: 'channel',
        scope_key: `slack:${s.channelId}`,
        type: 'fact',
        text: 'The staging database password rotation happens every Tuesday at 09:00 UTC',
      },
    });
    expect(created.statusCode).toBeLessThan(300);
    const reply = await call(s.id, 'When does the staging database password rotation happen?', 0);
    const last = reply.payload.messages.at(-1)!;
    const end = reply.cache.breakpoints.find((b) => b.position === 'this_turn')!.block!;
    const after = last.content.slice(end + 1).map((b) => b.text ?? '');
    expect(after.some((text) => text.startsWith('<retrieved_context'))).toBe(true);
    expect(last.content.slice(0, end + 1).some((b) => (b.text ?? '').includes('<retrieved_context'))).toBe(
      false,
    );

    expect((await answer(s.id, 'Every Tuesday.', 30_000)).statusCode).toBe(201);
    const next = await call(s.id, 'thanks', 60_000);
    const history = JSON.stringify(next.payload.messages.slice(0, -1));
    expect(history).toContain('When does the staging database password rotation happen?');
    expect(history).not.toContain('<retrieved_context');
  });
});

describe('when the sent view changes', () => {
  // A 6,000-token window and no system prompt: half the window is 3,000 tokens of history.
  const small = { budget: { total: 7_000, max_output_tokens: 1_000 }, system: [] };
  const chatter = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${from + i}: the deployment of service ${from + i} needs a review of ${'its configuration '.repeat(8)}`,
    }));

  it('at a cold cache once the history passes half the window; never while the cache is warm', async () => {
    // A DM session: no channel tools or guide, so most of the small window is history.
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'dm', user_id: 'UCOST' },
    });
    expect(created.statusCode).toBeLessThan(300);
    const s = { id: created.json().session.id as string };
    const append = async (n: number, from: number) =>
      expect(
        (
          await t.inject({
            method: 'POST',
            url: `/v1/sessions/${s.id}/turns`,
            payload: { turns: chatter(n, from) },
          })
        ).statusCode,
      ).toBe(201);
    await append(90, 0);
    // First call: no cache yet, the history is past half of the window: compacted now.
    const first = await call(s.id, 'status?', 0, small);
    expect(first.compaction.action).toBe('compacted');
    const records = await queryRows<{ trigger: string }>(
      ctx.deps.database.db,
      sql`select content->>'trigger' as trigger from transcript_entries where session_id = ${s.id} and kind = 'compaction'`,
    );
    expect(records).toEqual([{ trigger: 'cold' }]);

    // Within the TTL the history grows past half the window again: the warm prefix is kept.
    await append(40, 100);
    const warm = await call(s.id, 'and now?', 60_000, small);
    expect(warm.compaction.action).not.toBe('compacted');
    // The cache holds live entries (40 turns appended in between are past the 20-block lookback,
    // so none is read: a miss), so it is not cold: the view stays.
    expect(warm.budget.cost.basis).toBe('miss');

    // The cache has gone cold: the view changes before this payload.
    await append(2, 200);
    const cold = await call(s.id, 'after lunch?', 60_000 + 30 * 60_000, small);
    expect(cold.compaction.action).toBe('compacted');
    expect(cold.budget.cost.basis).toBe('expired');
  });

  it("is judged against the caller's max_context_tokens when it is smaller than the window, jobs too", async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'dm', user_id: 'UCAP' },
    });
    const id = created.json().session.id as string;
    const append = async (n: number, from: number) =>
      expect(
        (
          await t.inject({
            method: 'POST',
            url: `/v1/sessions/${id}/turns`,
            payload: { turns: chatter(n, from) },
          })
        ).statusCode,
      ).toBe(201);
    // The default window (far larger than the history), capped at 6,000 tokens of added material.
    const capped = { budget: { max_context_tokens: 6_000 }, system: [] };
    // A first call, so appends queue no compaction of their own.
    expect((await call(id, 'hello', 0, capped)).compaction.action).toBe('none');
    await append(91, 0);
    const HOUR = 3_600_000;
    const first = await call(id, 'status?', HOUR, capped);
    expect(first.budget.effective_window).toBeGreaterThan(100_000);
    // Past half of the cap at a cold cache: compacted before this payload, not truncated by the cap.
    expect(first.compaction.action).toBe('compacted');

    // Warm: the history grows past the cap, the call truncates and queues a job judged against it.
    await append(66, 100);
    await append(66, 166);
    const warm = await call(id, 'and now?', HOUR + 60_000, capped);
    expect(warm.compaction.action).toBe('truncated');
    const jobId = (warm.compaction as unknown as { job_id: string | null }).job_id;
    expect(jobId).not.toBeNull();
    // The test app runs no worker: the job is run here as a worker would run it.
    const { compactionQueue, compaction } = ctx.app.services;
    const job = (await compactionQueue.getJob(jobId!))!;
    expect(job.data.effectiveWindow).toBe(6_000);
    const done = (await compaction.handleJob({ id: job.id, data: job.data })) as {
      result: { lanes: { outcome: string }[] };
    };
    expect(done.result.lanes.map((lane) => lane.outcome)).toEqual(['committed']);
  });

  it('counts the summary in the view: one written for a larger window is refitted to the cap at a cold cache', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'dm', user_id: 'UREFIT' },
    });
    const id = created.json().session.id as string;
    const rows = Array.from({ length: 160 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${i}: Dana moved ticket TCK-${1000 + i} to Berlin on 2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    }));
    // Compacted at the thresholds before any call (no caller's window known): a large summary and
    // a short verbatim view.
    for (let i = 0; i < rows.length; i += 20) {
      await t.inject({
        method: 'POST',
        url: `/v1/sessions/${id}/turns`,
        payload: { turns: rows.slice(i, i + 20) },
      });
      await t.inject({ method: 'POST', url: `/v1/sessions/${id}/compact`, payload: { wait: true } });
    }
    const lane = (await t.inject({ method: 'GET', url: `/v1/sessions/${id}/lanes/root:session` })).json();
    const summaryTokens = ctx.deps.estimator.text(lane.summary as string);
    const cap = 3_000;
    // The history alone is under half of the cap; with its summary the view is over it.
    expect(lane.kept_tokens).toBeLessThan(cap / 2);
    expect(summaryTokens).toBeGreaterThan(cap / 2);
    const capped = { budget: { max_context_tokens: cap }, system: [] };
    const first = (await call(id, 'where did TCK-1010 go?', 3_600_000, capped)) as Awaited<
      ReturnType<typeof call>
    > & { context: { lane: { summary_included: boolean } } };
    expect(first.compaction.action).toBe('compacted');
    const after = (await t.inject({ method: 'GET', url: `/v1/sessions/${id}/lanes/root:session` })).json();
    // Fitted to its share of the cap (5%), and now sent.
    expect(ctx.deps.estimator.text(after.summary as string)).toBeLessThanOrEqual(0.05 * cap);
    expect(after.first_kept_seq).toBe(lane.first_kept_seq);
    expect(first.context.lane.summary_included).toBe(true);
  });
});

describe.skipIf(!usesRealPostgres)("contextd's own background work never fails a bot's turn", () => {
  it('a compaction that commits while a context call assembles: the call assembles again, no 409', async () => {
    const s = await session();
    const turns = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${i}: the rollout of service ${i} is ${i % 3 ? 'done' : 'blocked'}`,
    }));
    expect(
      (await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/turns`, payload: { turns } })).statusCode,
    ).toBe(201);
    // A first compaction gives the lane its state row (the row the race below locks).
    const first = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/compact`,
      payload: { wait: true, force: true },
    });
    expect(first.json().lanes[0].summary_version).toBe(1);
    expect(
      (await t.inject({ method: 'POST', url: `/v1/sessions/${s.id}/turns`, payload: { turns } })).statusCode,
    ).toBe(201);
    const client = postgres(ctx.testDb.url!, { max: 3, onnotice: () => {} });
    const [laneLock, sessionLock] = [await client.reserve(), await client.reserve()];
    const waiting = async (n: number) => {
      for (let polls = 0; polls < 3_000; polls += 1) {
        const [row] = await client<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`;
        if (row!.n >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`fewer than ${n} statements waited for a lock`);
    };
    try {
      // 1. The compaction is held at its commit (the lane's compare-and-set)…
      await laneLock`begin`;
      await laneLock`select 1 from lane_states where session_id = ${s.id} for update`;
      const compacted = t.inject({
        method: 'POST',
        url: `/v1/sessions/${s.id}/compact`,
        payload: { wait: true, force: true },
      });
      await waiting(1);
      // 2. …then at its record's append (the session row's lock), before the call starts…
      await sessionLock`begin`;
      await sessionLock`select 1 from sessions where id = ${s.id} for update`;
      await laneLock`commit`;
      await waiting(1);
      // 3. …so the call loads the session before the record and appends after it.
      const call = t.inject({
        method: 'POST',
        url: `/v1/sessions/${s.id}/context`,
        payload: { message: { content: 'what is blocked?', time: iso(0) } },
      });
      await waiting(2);
      await sessionLock`commit`;
      expect((await compacted).statusCode).toBe(200);
      const response = await call;
      expect(response.statusCode).toBe(200);
      // It assembled again over the compacted lane: the summary the compaction wrote is in it.
      const body = response.json() as {
        context: { lane: { summary_included: boolean; summary_version: number } };
      };
      expect(body.context.lane).toMatchObject({ summary_included: true, summary_version: 2 });
    } finally {
      laneLock.release();
      sessionLock.release();
      await client.end();
    }
  });
});
