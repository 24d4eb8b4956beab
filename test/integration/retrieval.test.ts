// Retrieval in the context call (issue 15): never repeat what the payload already shows, use the
// budget and say why room was left, bad queries retrieve nothing and say so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';
import { at, ingest } from '../helpers/channel.js';

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

async function session(channelId = `R${++channelSeq}`) {
  const response = await t.inject({
    method: 'POST',
    url: '/v1/sessions',
    payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: channelId },
  });
  expect(response.statusCode).toBeLessThan(300);
  return { id: response.json().session.id as string, channelId };
}

const contextCall = (sessionId: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/context`, payload });

const TOPICS = ['rollout', 'database', 'billing', 'invoice', 'deploy', 'migration', 'backup', 'latency'];
const WORDS = ['friday', 'staging', 'postgres', 'customer', 'pipeline', 'schema', 'snapshot', 'region'];

interface Reply {
  turn_seq: number;
  context: { retrieved: { id: string }[]; lane: { first_sent_seq: number | null } };
  budget: { unused: { tokens: number; reason: string }; components: { memories: number } };
  notes: string[];
}

describe('never repeat: retrieved rows', () => {
  it('30 turns: each payload holds one retrieved block, its own, and no earlier one piles up in history', async () => {
    const s = await session();
    // Channel messages and memories that many of the questions below match.
    await ingest(
      t,
      s.channelId,
      Array.from({ length: 48 }, (_, i) => ({
        message_id: `m${i}`,
        ts: at(i),
        text: `${TOPICS[i % 8]} note ${i}: the ${WORDS[(i * 3) % 8]} and the ${WORDS[(i * 5 + 1) % 8]} are ready`,
      })),
    );
    for (let i = 0; i < 12; i += 1) {
      const created = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: {
          scope: 'channel',
          scope_key: `slack:${s.channelId}`,
          type: 'fact',
          text: `Decision ${i}: ${TOPICS[(i * 3) % 8]} uses ${WORDS[i % 8]} from now on`,
        },
      });
      expect(created.statusCode).toBeLessThan(300);
    }
    const replies: (Reply & { payload: { messages: unknown[] } })[] = [];
    let repeatedBefore = 0;
    for (let turn = 0; turn < 30; turn += 1) {
      const question = `What about the ${TOPICS[turn % 8]} and ${WORDS[(turn * 7) % 8]} (${turn})?`;
      const response = await contextCall(s.id, {
        message: { content: question, time: at(60 + turn) },
        budget: { max_context_tokens: 2_500 },
      });
      expect(response.statusCode).toBe(200);
      const reply = response.json() as Reply & { payload: { messages: unknown[] } };
      replies.push(reply);
      // The bot answers, and the answer is appended like a bot does.
      const appended = await t.inject({
        method: 'POST',
        url: `/v1/sessions/${s.id}/turns`,
        payload: { turns: [{ role: 'assistant', content: `Answer ${turn}.` }] },
      });
      expect(appended.statusCode).toBeLessThan(300);
      repeatedBefore += reply.context.retrieved.length;
    }
    // Retrieval ran: the test says something.
    expect(repeatedBefore).toBeGreaterThanOrEqual(40);
    for (const reply of replies) {
      const history = JSON.stringify(reply.payload.messages.slice(0, -1));
      const turn = JSON.stringify(reply.payload.messages.at(-1));
      // Retrieved material is the payload's own: never in the history it repeats.
      expect(history, `turn ${reply.turn_seq}`).not.toContain('<retrieved_context');
      expect(turn.split('<retrieved_context').length - 1).toBe(reply.context.retrieved.length > 0 ? 1 : 0);
    }
  });

  it('a channel message an earlier snapshot attached is not retrieved while that turn is sent', async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'a1', ts: at(1), text: 'The kestrel migration runs on Friday' },
      { message_id: 'a2', ts: at(2), text: 'Who owns the kestrel migration?' },
      { message_id: 'a3', ts: at(3), text: 'Is the kestrel migration still on?' },
    ]);
    const source = (id: string) => ({ platform: 'slack', channel_id: s.channelId, message_id: id });
    const first = await contextCall(s.id, {
      message: { content: 'Who owns the kestrel migration?', source: source('a2') },
    });
    expect(first.json().context.snapshot).toBe('attached');
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${s.id}/turns`,
      payload: { turns: [{ role: 'assistant', content: 'Nobody yet.' }] },
    });
    const second = await contextCall(s.id, {
      message: { content: 'Is the kestrel migration still on?', source: source('a3') },
    });
    expect(second.statusCode).toBe(200);
    // a1 is in the first turn's snapshot, a2 is the first turn's own text: neither comes back.
    const ids = (second.json() as Reply).context.retrieved.map((r) => r.id);
    expect(ids).not.toContain(`slack:${s.channelId}:a1`);
    expect(ids).not.toContain(`slack:${s.channelId}:a2`);
  });
});

describe('use the budget', () => {
  it('an 8,000-token cap over a busy channel is filled down to the last row that fits', async () => {
    const s = await session();
    const events = Array.from({ length: 600 }, (_, i) => ({
      message_id: `b${i}`,
      ts: new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 50), 9, i % 50)).toISOString(),
      text: `The heron release ${i} needs ${['tests', 'docs', 'review', 'a changelog'][i % 4]} before Friday`,
    }));
    for (let i = 0; i < events.length; i += 200) await ingest(t, s.channelId, events.slice(i, i + 200));
    const response = await contextCall(s.id, {
      message: { content: 'What does the heron release need?', time: at(59) },
      budget: { max_context_tokens: 8_000 },
      dry_run: true,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json() as Reply & { budget: { added: number } };
    expect(body.budget.unused.reason).toBe('next_item_too_large');
    // A row here costs about 20 tokens: less than one row's worth is left.
    expect(body.budget.unused.tokens).toBeLessThan(40);
    expect(body.budget.added).toBeGreaterThan(7_900);
  });
});

describe('ranking', () => {
  it("neighbour expansion: a hit's next turns in its lane come with it, a distant one does not", async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      {
        message_id: 'n1',
        ts: at(1),
        text: 'Did you finally adopt the puppy?',
        author: { id: 'U2', name: 'Mel' },
      },
      { message_id: 'n2', ts: at(2), text: 'Yes! We named him Oscar.' },
      { message_id: 'n3', ts: at(3), text: 'Unrelated chatter about lunch' },
      {
        message_id: 'n4',
        ts: new Date(Date.UTC(2026, 0, 2)).toISOString(),
        text: 'Next day: weather is fine',
      },
    ]);
    const response = await contextCall(s.id, {
      message: { content: 'Did they adopt a puppy?' },
      dry_run: true,
    });
    const retrieved = (response.json() as Reply).context.retrieved as { id: string; score: number }[];
    const id = (m: string) => `slack:${s.channelId}:${m}`;
    // n2 and n3 follow n1 within 30 minutes (at 1/2 and 1/4 of its score); n4 is the next day.
    expect(retrieved.map((r) => r.id)).toEqual([id('n1'), id('n2'), id('n3')]);
    expect(retrieved[1]!.score).toBeCloseTo(retrieved[0]!.score / 2, 5);
    expect(retrieved[2]!.score).toBeCloseTo(retrieved[0]!.score / 4, 5);
  });
});

describe('bad input to retrieval', () => {
  it('an empty or stop-word-only message retrieves nothing and says so', async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'w1', ts: at(1), text: 'What is it, and what was that about?' },
    ]);
    for (const content of [
      'What is it, and what was that about?',
      '?! …',
      [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
    ]) {
      const response = await contextCall(s.id, { message: { content }, dry_run: true });
      expect(response.statusCode, JSON.stringify(content)).toBe(200);
      const body = response.json() as Reply;
      expect(body.context.retrieved).toEqual([]);
      expect(body.budget.unused.reason).toBe('retrieval_skipped');
      expect(body.notes.join(' ')).toMatch(
        /Nothing was retrieved: the message has no (words|text) to search with/,
      );
    }
  });

  it('a 100 kB message searches with a bounded set of its first terms', async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'k1', ts: at(1), text: 'The kestrel build is green' },
      { message_id: 'k2', ts: at(50), text: 'The zanzibar build is red' },
    ]);
    const filler = Array.from({ length: 16_000 }, (_, i) => `filler${i.toString(36)}`).join(' ');
    const content = `kestrel status? ${filler} zanzibar`;
    expect(content.length).toBeGreaterThan(100_000);
    // With a cap: every hit best first (without one, a hit matching 2 of the bounded terms is noise).
    const response = await contextCall(s.id, {
      message: { content },
      budget: { max_context_tokens: 4_000 },
      dry_run: true,
    });
    expect(response.statusCode).toBe(200);
    const ids = (response.json() as Reply).context.retrieved.map((r) => r.id);
    expect(ids).toContain(`slack:${s.channelId}:k1`);
    // The last word is far past the bound: it is not searched.
    expect(ids).not.toContain(`slack:${s.channelId}:k2`);
  });

  it('a long message that opens with stop words still searches with its words', async () => {
    const s = await session();
    await ingest(t, s.channelId, [{ message_id: 'p1', ts: at(1), text: 'The pelican deploy is done' }]);
    const stop =
      'i me my myself we our ours ourselves you your yours yourself he him his himself she her hers herself it its itself they them their what which who whom this that these those am is are was were be been';
    const response = await contextCall(s.id, {
      message: { content: `${stop} pelican?` },
      dry_run: true,
    });
    expect((response.json() as Reply).context.retrieved.map((r) => r.id)).toEqual([
      `slack:${s.channelId}:p1`,
    ]);
  });

  it('Cyrillic and CJK queries find exact matches', async () => {
    const s = await session();
    await ingest(t, s.channelId, [
      { message_id: 'c1', ts: at(1), text: 'Развёртывание назначено на пятницу' },
      { message_id: 'c2', ts: at(40), text: '東京の会議は金曜日です' },
      { message_id: 'c3', ts: new Date(Date.UTC(2026, 0, 3)).toISOString(), text: 'Nothing to see here' },
    ]);
    const ask = async (content: string) =>
      (
        (await contextCall(s.id, { message: { content }, dry_run: true })).json() as Reply
      ).context.retrieved.map((r) => r.id);
    expect(await ask('Когда развёртывание?')).toEqual([`slack:${s.channelId}:c1`]);
    expect(await ask('東京の会議は金曜日です')).toEqual([`slack:${s.channelId}:c2`]);
  });
});
