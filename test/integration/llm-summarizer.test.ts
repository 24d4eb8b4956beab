// The LLM summarizer with the real @anthropic-ai/sdk against a local fake of the Messages API:
// every request within 40% of the summarizer's window (a 200k-token tool result, 2,000 short
// turns), staged updates of the running summary, spend counted per tenant from reported usage,
// the monthly cap, and the extractive fallback on 529, timeouts, garbage and invalid output.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmSummarizer } from '../../src/modules/compaction/llm-summarizer.js';
import { chunkForSummarizer } from '../../src/modules/compaction/core/chunking.js';
import {
  completeSummary,
  finalizeSummary,
  summarizeExtractive,
} from '../../src/modules/compaction/core/extractive.js';
import { parseSummary } from '../../src/modules/compaction/core/summary-doc.js';
import {
  compactionDefaults,
  SUMMARY_SECTIONS,
  type LaneEntry,
} from '../../src/modules/compaction/core/types.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import {
  startFakeAnthropic,
  summaryEchoingIdentifiers,
  type FakeAnthropic,
} from '../../examples/fake-anthropic.js';

const estimator = createTokenEstimator();
let fake: FakeAnthropic;
let ctx: TestContext;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  ctx = await createTestApp({
    extend: (deps) => ({
      ...deps,
      llm: new Anthropic({ apiKey: 'test-key', baseURL: fake.baseURL, maxRetries: 0, timeout: 1_500 }),
    }),
  });
  t = await ctx.tenant();
  other = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

const entry = (seq: number, role: 'user' | 'assistant', content: unknown): LaneEntry => ({
  seq,
  kind: 'message',
  role,
  content,
  tokenEstimate: estimator.content(content),
  at: Date.UTC(2026, 0, 1) + seq * 1000,
});

function summarizer(windowTokens: number, spent: { input: number; output: number }[] = []) {
  const settings = { ...compactionDefaults, summarizerWindowTokens: windowTokens };
  return createLlmSummarizer({
    client: new Anthropic({ apiKey: 'test-key', baseURL: fake.baseURL, maxRetries: 0, timeout: 1_500 }),
    tenantId: 'tenant-x',
    model: 'claude-haiku-4-5',
    settings,
    estimator,
    spend: {
      isOverCap: async () => false,
      record: async (_tenant, usage) => {
        spent.push({ input: usage.inputTokens, output: usage.outputTokens });
      },
    },
    chunk: (entries, maxTokens, roleNames) =>
      chunkForSummarizer(entries, { maxTokens, estimator, roleNames }),
    extractive: (request) => summarizeExtractive(request, settings, estimator),
    finalize: (text) => finalizeSummary(text, settings),
    complete: (text, request) => completeSummary(text, request, settings, estimator),
    maxOutputTokens: 2_000,
  });
}

/** The estimated input of a request the fake received. */
const requestTokens = (r: { system?: unknown; messages: unknown }) =>
  estimator.text(JSON.stringify(r.system ?? '')) + estimator.text(JSON.stringify(r.messages));

describe('LLM summarizer', () => {
  it('keeps every request within 40% of the window for a single 200k-token tool result', async () => {
    fake.mode = 'ok';
    fake.requests.length = 0;
    const huge = Array.from({ length: 40_000 }, (_, i) => `row ${i} status=ok id=R-${i}`).join('\n');
    expect(estimator.text(huge)).toBeGreaterThan(200_000);
    const entries = [
      entry(1, 'user', 'dump the table'),
      entry(2, 'assistant', [{ type: 'tool_use', id: 'tu_1', name: 'dump', input: {} }]),
      entry(3, 'user', [{ type: 'tool_result', tool_use_id: 'tu_1', content: huge }]),
      entry(4, 'assistant', 'The table has 40,000 rows.'),
    ];
    const result = await summarizer(50_000).summarize({ laneKey: 'root:C', previousSummary: null, entries });
    expect(result.summarizer).toBe('llm');
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
    for (const request of fake.requests) expect(requestTokens(request)).toBeLessThanOrEqual(0.4 * 50_000);
    expect(result.text.length).toBeLessThanOrEqual(16_000);
  });

  it('2,000 short turns: staged updates, each bounded, usage summed and recorded', async () => {
    fake.mode = 'ok';
    fake.requests.length = 0;
    const entries = Array.from({ length: 2_000 }, (_, i) =>
      entry(
        i + 1,
        i % 2 ? 'assistant' : 'user',
        `turn ${i}: ticket OPS-${i} is ${i % 3 ? 'open' : 'closed'}`,
      ),
    );
    const spent: { input: number; output: number }[] = [];
    const result = await summarizer(30_000, spent).summarize({
      laneKey: 'root:C',
      previousSummary: '## Important facts\n- the service is svc-main',
      entries,
    });
    expect(result.summarizer).toBe('llm');
    expect(result.calls).toBe(fake.requests.length);
    expect(result.calls).toBeGreaterThan(1);
    for (const request of fake.requests) expect(requestTokens(request)).toBeLessThanOrEqual(0.4 * 30_000);
    // Each stage reads the summary the previous stage wrote (update, not restart).
    expect(JSON.stringify(fake.requests[0]!.messages)).toContain('svc-main');
    expect(JSON.stringify(fake.requests[1]!.messages)).toContain('OPS-');
    expect(result.usage.inputTokens).toBe(spent.reduce((s, x) => s + x.input, 0));
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it.each([
    ['overloaded', 'overloaded'],
    ['error500', 'error:500'],
    ['garbage', 'error'],
    ['hang', 'timeout'],
  ] as const)('falls back to the extractive summarizer when the API is %s', async (mode, reason) => {
    fake.mode = mode;
    const result = await summarizer(200_000).summarize({
      laneKey: 'root:C',
      previousSummary: null,
      entries: [entry(1, 'user', 'We decided to ship build 4711 on Friday.')],
    });
    fake.mode = 'ok';
    expect(result).toMatchObject({ summarizer: 'extractive', fallbackReason: reason });
    expect(result.text).toContain('4711');
  });

  it('asks for an analysis first and keeps only the summary; names, absolute dates and every term survive the target', async () => {
    fake.mode = 'ok';
    fake.requests.length = 0;
    const said = (seq: number, role: 'user' | 'assistant', name: string, text: string): LaneEntry => ({
      ...entry(seq, role, text),
      author: { name },
      at: Date.UTC(2026, 4, 8, 9) + seq * 60_000,
    });
    const entries = [
      said(
        1,
        'user',
        'Dana',
        'Yesterday the VPN gateway vpn-eu-2 dropped 37 sessions; please open a ticket.',
      ),
      said(2, 'assistant', 'Helpbot', 'Opened NET-4410 for vpn-eu-2. I will check the logs next Friday.'),
      said(3, 'user', 'Dana', 'Thanks! Also ask Priya Raman in Lisbon about the 2026-04-30 outage.'),
    ];
    // The model leaves out most of what was said: the summary is made whole from the entries.
    fake.respond = () =>
      [
        '<analysis>Dana reported an outage; Helpbot opened a ticket.</analysis>',
        '<summary>',
        ...SUMMARY_SECTIONS.flatMap((section) => [`## ${section}`, '- (none)']),
        '</summary>',
      ].join('\n');
    const result = await summarizer(200_000).summarize({
      laneKey: 'dm:D1',
      previousSummary: null,
      entries,
      targetTokens: 400,
    });
    fake.respond = summaryEchoingIdentifiers;
    expect(result.summarizer).toBe('llm');
    const request = fake.requests.at(-1)!;
    expect(String(request.system)).toContain('<analysis>');
    expect(String(request.system)).toContain('Current work and next step');
    const sent = JSON.stringify(request.messages);
    // Speakers by name, relative dates resolved against the turn's day, the word target.
    expect(sent).toContain('Dana (user)');
    expect(sent).toContain('Helpbot (assistant)');
    expect(sent).toContain('{Yesterday = 2026-05-07}');
    expect(sent).toContain('{next Friday = 2026-05-15}');
    expect(sent).toMatch(/at most 300 words/);
    expect(result.text).not.toContain('<analysis>');
    expect(result.text).not.toContain('Dana reported');
    const sections = parseSummary(result.text);
    expect(sections.get('Participants')).toEqual(['- Dana (user)', '- Helpbot (assistant)']);
    for (const term of ['vpn-eu-2', '37', 'NET-4410', 'Priya Raman', 'Lisbon', '2026-04-30'])
      expect(sections.get('Names, numbers and dates')!.join('\n')).toContain(term);
    expect(estimator.text(result.text)).toBeLessThanOrEqual(400);
  });

  it('treats output without the sections as invalid', async () => {
    fake.respond = () => 'Sure! Here is a summary: things happened.';
    const result = await summarizer(200_000).summarize({
      laneKey: 'root:C',
      previousSummary: null,
      entries: [entry(1, 'user', 'Deploy 1234 failed with ECONNREFUSED on port 5432.')],
    });
    fake.respond = summaryEchoingIdentifiers;
    expect(result).toMatchObject({ summarizer: 'extractive', fallbackReason: 'invalid_output' });
    expect(result.text).toContain('ECONNREFUSED');
  });
});

describe('compaction with the LLM, spend and the monthly cap', () => {
  const session = async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: `CL${Math.random()}` },
    });
    const id = created.json().session.id as string;
    const turns = Array.from({ length: 16 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `step ${i}: ticket OPS-${100 + i} for /srv/app-${i}`,
    }));
    await t.inject({ method: 'POST', url: `/v1/sessions/${id}/turns`, payload: { turns } });
    return id;
  };

  it('summarizes with the LLM, counts the spend, and uses the extractive summarizer past the cap', async () => {
    fake.mode = 'ok';
    const first = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${await session()}/compact`,
      payload: { wait: true },
    });
    expect(first.statusCode).toBe(200);
    const lane = first.json().lanes[0];
    expect(lane).toMatchObject({ summarizer: 'llm', fallback_reason: null, outcome: 'committed' });
    expect(lane.summarizer_tokens.input).toBeGreaterThan(0);
    const budget = await t.inject({ url: '/v1/tenant/summarizer' });
    expect(budget.json()).toMatchObject({
      monthly_token_cap: null,
      input_tokens: lane.summarizer_tokens.input,
      output_tokens: lane.summarizer_tokens.output,
    });
    expect((await other.inject({ url: '/v1/tenant/summarizer' })).json().input_tokens).toBe(0);

    const capped = await t.inject({
      method: 'PUT',
      url: '/v1/tenant/summarizer',
      payload: { monthly_token_cap: 10 },
    });
    expect(capped.statusCode).toBe(200);
    expect(capped.json().monthly_token_cap).toBe(10);
    const sent = fake.requests.length;
    const second = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${await session()}/compact`,
      payload: { wait: true },
    });
    expect(second.json().lanes[0]).toMatchObject({ summarizer: 'extractive', fallback_reason: 'spend_cap' });
    expect(fake.requests.length).toBe(sent);
    const record = (await t.inject({ url: `/v1/sessions/${second.json().session_id}/transcript?limit=100` }))
      .json()
      .entries.find((e: { kind: string }) => e.kind === 'compaction');
    expect(record.content).toMatchObject({ summarizer: 'extractive', fallback_reason: 'spend_cap' });

    for (const bad of [
      { monthly_token_cap: -1 },
      { monthly_token_cap: 1.5 },
      {},
      { monthly_token_cap: '5' },
    ]) {
      const response = await t.inject({ method: 'PUT', url: '/v1/tenant/summarizer', payload: bad });
      expect(response.statusCode).toBe(400);
      expect(errorOf(response).code).toBe('request.invalid');
    }
    const cleared = await t.inject({
      method: 'PUT',
      url: '/v1/tenant/summarizer',
      payload: { monthly_token_cap: null },
    });
    expect(cleared.json().monthly_token_cap).toBeNull();
  });
});
