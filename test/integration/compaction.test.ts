// Compaction through the API on real storage: POST /compact (wait, 202 job, 409, 404s, bad input),
// GET /lanes/{lane} with its expansion, the summary as the lane's first message with a stable
// prefix afterwards, a blocked payload compacted before the reply, compact_context, history_turns,
// edits and deletes (stale summaries, deleted text in no later payload), and the job worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;
let channelSeq = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => ctx?.close());

async function session(tenant: TestTenant = t, channelId = `CC${++channelSeq}`) {
  const response = await tenant.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId, lane: `root:${channelId}` };
}

/** n turns alternating user/assistant, each naming a build, a path and a ticket. */
async function appendTurns(sessionId: string, n: number, from = 0, words = 0) {
  const turns = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `Step ${i}: build ${2000 + i} touches /srv/svc-${i}/config.yaml for ticket OPS-${i}. ${'More detail follows here. '.repeat(words)}`,
    };
  });
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    payload: { turns },
  });
  expect(response.statusCode).toBe(201);
}

const compact = (sessionId: string, payload: Record<string, unknown> = { wait: true }, tenant = t) =>
  tenant.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/compact`, payload });
const laneUrl = (sessionId: string, lane: string, query = '') =>
  `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(lane)}${query}`;
const contextCall = (sessionId: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/context`, payload });

describe('POST /v1/sessions/{id}/compact', () => {
  it('summarizes the older entries, records it, and shows the lane with its expansion', async () => {
    const s = await session();
    await appendTurns(s.id, 24);
    const response = await compact(s.id);
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result).toMatchObject({ session_id: s.id, before_messages: 24, strategies_run: ['summarize'] });
    const lane = result.lanes[0];
    expect(lane).toMatchObject({
      lane_key: s.lane,
      outcome: 'committed',
      summarizer: 'extractive',
      fallback_reason: 'no_api_key',
      summary_version: 1,
    });
    expect(result.after_messages).toBeLessThanOrEqual(10);
    // Every identifier of the summarized entries is in the summary verbatim.
    expect(lane.identifiers.kept / lane.identifiers.total).toBeGreaterThanOrEqual(0.95);

    const view = await t.inject({ url: laneUrl(s.id, s.lane, '?expand=true&limit=5') });
    expect(view.statusCode).toBe(200);
    const body = view.json();
    expect(body.summary).toContain('## Facts');
    expect(body.summary).toContain('OPS-3');
    expect(body.first_kept_seq).toBe(lane.first_kept_seq);
    expect(body.summarized_through_seq).toBe(lane.first_kept_seq - 1);
    expect(body.compactions).toBe(1);
    expect(body.expanded.entries.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    const page2 = await t.inject({
      url: laneUrl(s.id, s.lane, `?expand=true&after=${body.expanded.next_cursor}`),
    });
    expect(page2.json().expanded.entries[0].seq).toBe(6);
    expect(page2.json().expanded.entries.at(-1).seq).toBe(body.summarized_through_seq);

    // The record in the transcript and the lane-summary memory.
    const transcript = await t.inject({ url: `/v1/sessions/${s.id}/transcript?limit=100` });
    const records = transcript.json().entries.filter((e: { kind: string }) => e.kind === 'compaction');
    expect(records).toHaveLength(1);
    expect(records[0].content).toMatchObject({
      strategies: ['summarize'],
      first_kept_seq: lane.first_kept_seq,
      summarizer: 'extractive',
      covers: { from_seq: 1, through_seq: lane.first_kept_seq - 1 },
    });
    const memories = await t.inject({ url: '/v1/memories?type=lane_summary&scope=session' });
    expect(memories.statusCode).toBe(200);
    expect(
      memories
        .json()
        .memories.some((m: { metadata: { lane_key: string } }) => m.metadata.lane_key === s.lane),
    ).toBe(true);
    const sessionView = await t.inject({ url: `/v1/sessions/${s.id}` });
    expect(sessionView.json().compaction_count).toBe(1);
  });

  it('queues a job without wait (202), one per session, and reports it', async () => {
    const s = await session();
    await appendTurns(s.id, 4);
    const first = await compact(s.id, {});
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ session_id: s.id, state: 'created', deduplicated: false });
    const again = await compact(s.id, {});
    expect(again.statusCode).toBe(202);
    expect(again.json().deduplicated).toBe(true);
    const job = await t.inject({ url: `/v1/sessions/${s.id}/compact/jobs/${first.json().job_id}` });
    expect(job.statusCode).toBe(200);
    expect(job.json()).toMatchObject({ job_id: first.json().job_id, session_id: s.id });
    const foreign = await other.inject({ url: `/v1/sessions/${s.id}/compact/jobs/${first.json().job_id}` });
    expect(foreign.statusCode).toBe(404);
    const unknown = await t.inject({
      url: `/v1/sessions/${s.id}/compact/jobs/00000000-0000-7000-8000-000000000000`,
    });
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown).code).toBe('compaction.job_not_found');
  });

  it('is a 409 with the holder age while another compaction runs, unless wait', async () => {
    const s = await session();
    await appendTurns(s.id, 14);
    const held = await ctx.deps.locks.acquire(`compaction:${t.tenantId}:${s.id}`, { ttlMs: 30_000 });
    expect(held).not.toBeNull();
    try {
      const now = await compact(s.id, {});
      expect(now.statusCode).toBe(409);
      expect(errorOf(now).code).toBe('compaction.running');
      expect(errorOf(now).details).toHaveProperty('holder_age_ms');
      // wait: true blocks until the holder releases (below), then compacts.
      const waiting = compact(s.id, { wait: true });
      await new Promise((r) => setTimeout(r, 100));
      await held!.release();
      const done = await waiting;
      expect(done.statusCode).toBe(200);
      expect(done.json().lanes[0].outcome).toBe('committed');
    } finally {
      await held?.release();
    }
  });

  it("404 for another tenant's session, an unknown session or lane; 400 for bad input", async () => {
    const s = await session();
    await appendTurns(s.id, 2);
    expect((await compact(s.id, { wait: true }, other)).statusCode).toBe(404);
    expect(errorOf(await compact(s.id, { wait: true }, other)).code).toBe('session.not_found');
    expect((await compact('00000000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await other.inject({ url: laneUrl(s.id, s.lane) })).statusCode).toBe(404);
    const noLane = await t.inject({ url: laneUrl(s.id, 'thread:nowhere:1') });
    expect(noLane.statusCode).toBe(404);
    expect(errorOf(noLane).code).toBe('lane.not_found');
    for (const bad of [{ wait: 'yes' }, { lanes: 'root:x' }, { lanes: [] }, { extra: 1 }]) {
      const response = await compact(s.id, bad);
      expect(response.statusCode).toBe(400);
      expect(errorOf(response).code).toBe('request.invalid');
    }
    const badQuery = await t.inject({ url: laneUrl(s.id, s.lane, '?limit=0') });
    expect(badQuery.statusCode).toBe(400);
    expect(
      (await t.inject({ method: 'POST', url: '/v1/sessions/not-a-uuid/compact', payload: {} })).statusCode,
    ).toBe(400);
  });
});

describe('assembly after compaction', () => {
  it('sends the summary as the first, labelled message with a breakpoint, and keeps the prefix stable', async () => {
    const s = await session();
    await appendTurns(s.id, 30);
    expect((await compact(s.id)).statusCode).toBe(200);
    const first = await contextCall(s.id, { message: { content: 'Which ticket touched svc-4?' } });
    expect(first.statusCode).toBe(200);
    const payload = first.json().payload;
    const summaryText = JSON.stringify(payload.messages[0]);
    expect(summaryText).toContain('lane_summary');
    expect(summaryText).toContain('OPS-4');
    expect(payload.messages[0].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(first.json().budget.components.summary).toBeGreaterThan(0);
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'It was OPS-4.' }] },
    });
    const second = await contextCall(s.id, { message: { content: 'Thanks. And svc-5?' } });
    const before = first.json().payload.messages;
    const after = second.json().payload.messages;
    // Between compactions, every message before this turn repeats byte for byte.
    const strip = (m: unknown) => JSON.stringify(m).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '');
    expect(after.slice(0, before.length - 1).map(strip)).toEqual(before.slice(0, -1).map(strip));
  });

  it('compacts a blocked payload before replying (auto), and says so', async () => {
    const s = await session();
    await appendTurns(s.id, 12, 0, 60);
    const response = await contextCall(s.id, {
      message: { content: 'Summarize where we are.' },
      budget: { total: 5_000, max_output_tokens: 500 },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.compaction.action).toBe('compacted');
    expect(body.compaction.result.lanes[0].outcome).toBe('committed');
    expect(body.budget.state).not.toBe('blocked');
    const never = await contextCall(s.id, {
      message: { content: 'again' },
      // Room for the system prompt, the tools and the message, not for the lane's history.
      budget: { total: 2_600, max_output_tokens: 500 },
      compaction: 'never',
      dry_run: true,
    });
    expect(never.statusCode, never.body).toBe(413);
  });

  it('history_turns sends only the latest turns, never splitting a tool pair', async () => {
    const s = await session();
    await appendTurns(s.id, 4);
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'run the check' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'check', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'all green' }] },
          { role: 'assistant', content: 'All green.' },
        ],
      },
    });
    const response = await contextCall(s.id, {
      message: { content: 'ok, next?' },
      history_turns: 2,
      dry_run: true,
    });
    expect(response.statusCode).toBe(200);
    const text = JSON.stringify(response.json().payload.messages);
    expect(text).toContain('tu_1');
    expect(text).toContain('all green');
    expect(text).not.toContain('Step 3');
    const bad = await contextCall(s.id, { message: { content: 'x' }, history_turns: 0 });
    expect(bad.statusCode).toBe(400);
  });

  it("an agent's history_turns default applies when a call sets none; the request's wins", async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'terse-bot', platform: 'slack', chat_type: 'dm', user_id: 'U-terse' },
    });
    const id = created.json().session.id as string;
    await appendTurns(id, 8);
    const settingsUrl = '/v1/agents/terse-bot/settings';
    expect((await t.inject({ url: settingsUrl })).json()).toEqual({
      agent_id: 'terse-bot',
      history_turns: null,
      updated_at: null,
    });
    const sent = async (payload: Record<string, unknown>) => {
      const response = await contextCall(id, { message: { content: 'next?' }, dry_run: true, ...payload });
      expect(response.statusCode).toBe(200);
      return JSON.stringify(response.json().payload.messages);
    };
    expect(await sent({})).toContain('Step 0:');

    const put = await t.inject({ method: 'PUT', url: settingsUrl, payload: { history_turns: 2 } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ agent_id: 'terse-bot', history_turns: 2 });
    const byDefault = await sent({});
    expect(byDefault).toContain('Step 7:');
    expect(byDefault).not.toContain('Step 5:');
    // The request's own limit wins, and naming the agent on the call reads the same default.
    expect(await sent({ history_turns: 4 })).toContain('Step 4:');
    expect(await sent({ agent_id: 'terse-bot' })).not.toContain('Step 5:');

    // Another tenant has its own (empty) settings for the same agent id and cannot change ours.
    expect((await other.inject({ url: settingsUrl })).json().history_turns).toBeNull();
    await other.inject({ method: 'PUT', url: settingsUrl, payload: { history_turns: 50 } });
    expect((await t.inject({ url: settingsUrl })).json().history_turns).toBe(2);

    for (const payload of [{ history_turns: 0 }, { history_turns: 'all' }, {}, { history_turns: 2, x: 1 }]) {
      const bad = await t.inject({ method: 'PUT', url: settingsUrl, payload });
      expect(bad.statusCode).toBe(400);
      expect(errorOf(bad).code).toBe('request.invalid');
    }
    const badId = await t.inject({
      method: 'PUT',
      url: '/v1/agents/bad%20id/settings',
      payload: { history_turns: 1 },
    });
    expect(badId.statusCode).toBe(400);

    expect(
      (await t.inject({ method: 'PUT', url: settingsUrl, payload: { history_turns: null } })).json(),
    ).toMatchObject({ history_turns: null });
    expect(await sent({})).toContain('Step 0:');
  });
});

describe('edits and deletes', () => {
  it('a deleted message is in no later payload: its lane compacts first', async () => {
    const s = await session();
    const secret = 'The launch code name for the Q3 partner event is BLUEBIRD-42, keep it quiet';
    await ingest(t, s.channelId, [
      { message_id: 'm1', ts: at(1), text: 'Planning thread for the partner event' },
      { message_id: 'm2', ts: at(2), text: secret },
      { message_id: 'm3', ts: at(3), text: 'What is the launch code name?' },
    ]);
    const first = await contextCall(s.id, {
      message: {
        content: 'What is the launch code name?',
        source: { platform: 'slack', channel_id: s.channelId, message_id: 'm3' },
      },
    });
    expect(first.statusCode).toBe(200);
    expect(JSON.stringify(first.json().payload)).toContain('BLUEBIRD-42');
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'It is BLUEBIRD-42.' }] },
    });
    const deleted = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.deleted',
            platform: 'slack',
            channel_id: s.channelId,
            message_id: 'm2',
            ts: at(4),
          },
        ],
      },
    });
    expect(deleted.statusCode).toBe(200);
    const lane = await t.inject({ url: laneUrl(s.id, s.lane) });
    expect(lane.json().purge_pending).toBe(true);

    const next = await contextCall(s.id, { message: { content: 'Anything else for the event?' } });
    expect(next.statusCode).toBe(200);
    const body = next.json();
    expect(body.compaction.action).toBe('compacted');
    expect(JSON.stringify(body.payload)).not.toContain('launch code name for the Q3');
    const after = await t.inject({ url: laneUrl(s.id, s.lane) });
    expect(after.json().purge_pending).toBe(false);
    expect(after.json().summary).not.toContain('launch code name for the Q3');
    // The assistant's own words are the agent's turn, not the deleted message: they may remain.
  });

  it('an edit of a summarized message marks the summary stale; the next compaction rebuilds it', async () => {
    const s = await session();
    const original = 'The budget for the offsite is 12,000 EUR and the venue is Lisbon';
    await ingest(t, s.channelId, [{ message_id: 'e1', ts: at(1), text: original }]);
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: {
        turns: [
          {
            role: 'user',
            content: original,
            source: { platform: 'slack', channel_id: s.channelId, message_id: 'e1' },
          },
          { role: 'assistant', content: 'Noted.' },
        ],
      },
    });
    await appendTurns(s.id, 12, 2);
    expect((await compact(s.id)).statusCode).toBe(200);
    // A small lane's summary may hold the fact only as its terms (it never outgrows what left the view).
    expect((await t.inject({ url: laneUrl(s.id, s.lane) })).json().summary).toContain('12,000');
    await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.edited',
            platform: 'slack',
            channel_id: s.channelId,
            message_id: 'e1',
            text: 'The budget for the offsite is 9,000 EUR',
            ts: at(5),
          },
        ],
      },
    });
    expect((await t.inject({ url: laneUrl(s.id, s.lane) })).json().summary_stale).toBe(true);
    const rebuilt = await compact(s.id);
    expect(rebuilt.json().lanes[0].outcome).toBe('committed');
    const lane = (await t.inject({ url: laneUrl(s.id, s.lane) })).json();
    expect(lane.summary_stale).toBe(false);
    expect(lane.summary_version).toBe(2);
  });
});

describe('background jobs', () => {
  it(
    'a worker picks up queued compactions and stores their result',
    async () => {
      const worker = await createTestApp({ testDb: ctx.testDb, env: { COMPACTION_WORKERS: '1' } });
      try {
        const tenant = await worker.tenant();
        const created = await tenant.inject({
          method: 'POST',
          url: '/v1/sessions',
          payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CJOB' },
        });
        const id = created.json().session.id as string;
        const turns = Array.from({ length: 32 }, (_, i) => ({
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: `job turn ${i}: deploy ${3000 + i}`,
        }));
        // 32 entries: over the 30-entry threshold, and the session has made no context call: the
        // append itself queues a job.
        await tenant.inject({ method: 'POST', url: `/v1/sessions/${id}/turns`, payload: { turns } });
        const lane = async () => (await tenant.inject({ url: laneUrl(id, 'root:CJOB') })).json();
        await waitUntil(async () => (await lane()).summary_version !== 0, { intervalMs: 200 });
        expect((await lane()).summary_version).toBe(1);
        const queued = await tenant.inject({
          method: 'POST',
          url: `/v1/sessions/${id}/compact`,
          payload: {},
        });
        expect(queued.statusCode).toBe(202);
        let job = queued.json();
        while (job.state !== 'completed' && job.state !== 'failed') {
          await new Promise((r) => setTimeout(r, 200));
          job = (
            await tenant.inject({ url: `/v1/sessions/${id}/compact/jobs/${queued.json().job_id}` })
          ).json();
        }
        expect(job.state).toBe('completed');
        expect(job.result.session_id).toBe(id);
      } finally {
        await worker.close();
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});
