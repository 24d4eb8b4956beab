// What a lane summary keeps across many compactions, through the API on real storage (extractive
// summarizer): a 150-turn session naming one new ticket per turn, compacted every 25 turns, still
// names its tickets, early ones too; speakers by name and relative dates as days; records report
// cumulative survival; and a compaction never makes the lane bigger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => ctx?.close());

const TOPICS = [
  'the login page times out on Safari',
  'invoices show the wrong VAT rate',
  'search returns stale results',
  'password reset emails never arrive',
  'the March dashboard chart is empty',
  'exports to CSV drop the last row',
];

async function dmSession(key: string) {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { session_key: key, agent_id: 'Helpbot' },
  });
  expect(response.statusCode).toBeLessThan(300);
  return response.json().session.id as string;
}

async function append(sessionId: string, turns: Record<string, unknown>[]) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    payload: { turns },
  });
  expect(response.statusCode).toBe(201);
}

async function compact(sessionId: string) {
  const response = await t.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/compact`,
    payload: { wait: true, force: true },
  });
  expect(response.statusCode).toBe(200);
  return response.json().lanes[0] as {
    outcome: string;
    before_tokens: number;
    after_tokens: number;
    key_terms: { cumulative: { total: number; kept: number } } | null;
  };
}

const laneOf = async (sessionId: string) => {
  const lanes = await t.inject({ url: `/v1/sessions/${sessionId}/transcript?limit=1` });
  const lane = lanes.json().entries[0].lane_key as string;
  return (await t.inject({ url: `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(lane)}` })).json();
};

describe('lane summaries across compactions', () => {
  it('150 turns naming one ticket each, compacted every 25: ≥ 90% of all tickets and of the first 50 remain', async () => {
    const id = await dmSession('tickets-150');
    const day = Date.UTC(2026, 5, 1, 9);
    for (let turn = 0; turn < 150; turn += 1) {
      const time = new Date(day + turn * 3_600_000).toISOString();
      await append(id, [
        {
          role: 'user',
          author: { name: 'Dana' },
          time,
          content: `Thanks! Next one: please open ticket TCK-${1000 + turn}, ${TOPICS[turn % TOPICS.length]} for customer Acme${turn % 9}.`,
        },
        { role: 'assistant', time, content: 'Done, it is open and assigned to the web team. Anything else?' },
      ]);
      if ((turn + 1) % 25 === 0) {
        const lane = await compact(id);
        expect(lane.outcome).toBe('committed');
        // A compaction never makes the lane bigger, and the record reports what of everything
        // ever summarized is still in the summary.
        expect(lane.after_tokens).toBeLessThanOrEqual(lane.before_tokens);
        expect(lane.key_terms!.cumulative.kept / lane.key_terms!.cumulative.total).toBeGreaterThanOrEqual(
          0.9,
        );
      }
    }
    const { summary } = await laneOf(id);
    const tickets = Array.from({ length: 150 }, (_, i) => `TCK-${1000 + i}`);
    const named = (list: string[]) => list.filter((ticket) => summary.includes(ticket)).length / list.length;
    expect(named(tickets)).toBeGreaterThanOrEqual(0.9);
    expect(named(tickets.slice(0, 50))).toBeGreaterThanOrEqual(0.9);
    expect(summary.length).toBeLessThanOrEqual(16_000);
    // Speakers by name (the user's from the turns, the assistant's from the session's agent).
    expect(summary).toContain('- Dana (user)');
    expect(summary).toContain('- Helpbot (assistant)');
    expect(summary).not.toMatch(/\[#\d+ (?:user|assistant) /);
    // Pleasantries leave first: none of the assistant's identical replies is kept.
    expect(summary).not.toContain('Anything else?');
  });

  it('resolves relative dates against the turn, files by content, and keeps tool results as outcomes', async () => {
    const id = await dmSession('dates-and-tools');
    const time = '2026-05-08T10:00:00Z';
    const rows = Array.from({ length: 40 }, (_, i) => `row ${i}: order ORD-${5000 + i} status=shipped`).join(
      '\n',
    );
    await append(id, [
      { role: 'user', author: { name: 'Caroline' }, time, content: "Let's all find our own bliss." },
      {
        role: 'user',
        author: { name: 'Caroline' },
        time,
        content:
          'Yesterday I went to the LGBTQ support group in Boston. We decided to meet again next Friday.',
      },
      {
        role: 'assistant',
        time,
        content: [
          { type: 'text', text: 'Let me list the shipped orders.' },
          { type: 'tool_use', id: 'toolu_1', name: 'list_orders', input: { status: 'shipped' } },
        ],
      },
      { role: 'user', time, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: rows }] },
      { role: 'assistant', time, content: 'There are 40 shipped orders.' },
      ...Array.from({ length: 12 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        time,
        content: `Filler turn ${i} about the weather.`,
      })),
    ]);
    expect((await compact(id)).outcome).toBe('committed');
    const { summary } = await laneOf(id);
    expect(summary).toContain(
      '[#2 Caroline 2026-05-08] Yesterday I went to the LGBTQ support group in Boston.',
    );
    expect(summary).toContain('{Yesterday = 2026-05-07; next Friday = 2026-05-15}');
    // No cue word files small talk: nothing says "bliss", let alone under the decisions.
    expect(summary).not.toContain('bliss');
    // One outcome line for the tool result, not forty facts.
    const outcome = summary.split('\n').filter((line: string) => line.includes('list_orders'));
    expect(outcome.join('\n')).toContain('→ ok, 40 lines');
    expect(
      summary.split('\n').filter((line: string) => line.includes('status=shipped')).length,
    ).toBeLessThanOrEqual(1);
  });

  it('never makes a lane bigger, even when what leaves the view is shorter than its bullets', async () => {
    const id = await dmSession('never-bigger');
    await append(
      id,
      Array.from({ length: 24 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `ok A-${i}` })),
    );
    for (let round = 0; round < 3; round += 1) {
      const lane = await compact(id);
      expect(lane.after_tokens).toBeLessThanOrEqual(lane.before_tokens);
      await append(id, [
        { role: 'user', content: `ok B-${round}` },
        { role: 'assistant', content: `ok C-${round}` },
      ]);
    }
  });
});
