// The inspector page (GET /inspect) in a real headless Chromium: the README's "Inspect a turn"
// steps are run as written, the page is opened with the tenant's key, a session and a turn are
// picked, and what it draws (budget bar and numbers, cache, retrieved scores, the payload's
// labelled blocks) is compared with the API. A screenshot is kept in test-artifacts/.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeAnthropic } from '../../examples/fake-anthropic.js';
import type { BotReply } from '../../examples/slack-bot/bot.js';
import { loadRecordedEvents, replay, startExample } from '../../examples/slack-bot/run.js';
import { scriptedSlackModel } from '../../examples/slack-bot/scripted-model.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const hasChromium = existsSync(CHROMIUM);
const skip = !hasChromium && !process.env.CI;
if (skip) console.warn(`inspect.test.ts skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

const COMPONENTS = [
  'system',
  'tools',
  'channel_context',
  'summary',
  'memories',
  'conversation',
  'current_turn',
] as const;

interface LogEntry {
  turn_seq: number;
  lane_key: string;
  budget: {
    components: Record<(typeof COMPONENTS)[number], number>;
    used: number;
    used_with_margin: number;
    effective_window: number;
    percentage: number;
    state: string;
  };
  context: { retrieved: { id: string; score: number }[] } | null;
  cache: { breakpoints: unknown[]; stable_prefix_tokens: number } | null;
}

/** The request bodies of the README's "Inspect a turn" commands, in order (`-d '…'`). */
function readmeBodies(): Record<string, unknown>[] {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.split('## Inspect a turn')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/-d '(\{.*\})'/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
}

const formatTokens = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const formatPercent = (share: number) => `${(share * 100).toFixed(1)}%`;

describe.skipIf(skip)('the inspector page in headless Chromium', () => {
  let ctx: TestContext;
  let t: TestTenant;
  let base: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`${CHROMIUM} is missing: CI must install chromium (.ci/run)`);
    ctx = await createTestApp();
    t = await ctx.tenant();
    // The browser needs a real listener (the only reason this test opens a port).
    base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    // launch() runs Chromium on a fresh temporary --user-data-dir, removed when it closes.
    page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  const logEntry = async (sessionId: string, seq: number) => {
    const log = await t.inject({ method: 'GET', url: `/v1/sessions/${sessionId}/context-log` });
    expect(log.statusCode).toBe(200);
    const entry = (log.json().entries as LogEntry[]).find((e) => e.turn_seq === seq);
    expect(entry).toBeDefined();
    return entry!;
  };

  async function signIn() {
    const response = await page.goto(`${base}/inspect`);
    await page.fill('#api-key', t.key);
    await page.click('#key-form button[type="submit"]');
    return response;
  }

  async function openTurn(sessionId: string, seq: number) {
    await page.click(`[data-session="${sessionId}"]`);
    await page.click(`#turns [data-seq="${seq}"]`);
    await page.waitForSelector('[data-testid="payload"]');
  }

  /** The drawn bar and the numbers written beside it, against the logged budget report. */
  async function expectBudgetDrawn(entry: LogEntry) {
    const b = entry.budget;
    const text = (field: string) => page.textContent(`[data-testid="budget"] [data-field="${field}"]`);
    for (const name of COMPONENTS)
      expect(await text(`component.${name}`)).toBe(formatTokens(b.components[name]));
    expect(await text('component.margin')).toBe(formatTokens(b.used_with_margin - b.used));
    expect(await text('used')).toBe(formatTokens(b.used));
    expect(await text('used_with_margin')).toBe(formatTokens(b.used_with_margin));
    expect(await text('effective_window')).toBe(formatTokens(b.effective_window));
    expect(await text('percentage')).toBe(formatPercent(b.percentage));
    expect(await text('state')).toBe(b.state);

    // Geometry: each segment's width is its tokens' share of the window, the marks sit at their share.
    const bar = (await page.locator('.bar:not(.zoom)').boundingBox())!;
    const drawn = Object.fromEntries(
      await page.$$eval('.bar:not(.zoom) .segment', (nodes) =>
        nodes.map((n) => [n.getAttribute('data-component'), n.getBoundingClientRect().width]),
      ),
    ) as Record<string, number>;
    const inner = bar.width - 2; // the bar's 1px border on each side
    for (const name of COMPONENTS) {
      expect(Math.abs(drawn[name]! - (b.components[name] / b.effective_window) * inner)).toBeLessThan(1);
    }
    const margin = ((b.used_with_margin - b.used) / b.effective_window) * inner;
    expect(Math.abs(drawn.margin! - margin)).toBeLessThan(1);
    const total = Object.values(drawn).reduce((s, w) => s + w, 0);
    expect(Math.abs(total - b.percentage * inner)).toBeLessThan(1.5);
    const marks = await page.$$eval('.bar:not(.zoom) .mark', (nodes) =>
      nodes.map((n) => [n.getAttribute('data-mark'), n.getBoundingClientRect().left]),
    );
    expect(marks.map(([name]) => name)).toEqual(['compact_soon', 'compact_trigger', 'hard_block']);
    [0.8, 0.95, 0.98].forEach((share, i) => {
      expect(Math.abs((marks[i]![1] as number) - (bar.x + 1) - share * inner)).toBeLessThan(1.5);
    });
    // The zoomed bar: the same parts as shares of used_with_margin, filling it.
    const zoom = (await page.locator('.bar.zoom').boundingBox())!;
    const zoomed = await page.$$eval('.bar.zoom .segment', (nodes) =>
      nodes.map((n) => [n.getAttribute('data-component'), n.getBoundingClientRect().width] as const),
    );
    for (const [name, width] of zoomed) {
      const tokens = name === 'margin' ? b.used_with_margin - b.used : b.components[name as 'system'];
      expect(Math.abs(width - (tokens / b.used_with_margin) * (zoom.width - 2))).toBeLessThan(1);
    }
  }

  it("the README's steps: the turn just made, its budget drawn", async () => {
    const [sessionBody, contextBody] = readmeBodies();
    expect(sessionBody).toBeDefined();
    expect(contextBody).toBeDefined();
    const created = await t.inject({ method: 'POST', url: '/v1/sessions', payload: sessionBody! });
    expect(created.statusCode).toBe(201);
    const sessionId = created.json().session.id as string;
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: contextBody!,
    });
    expect(reply.statusCode).toBe(200);
    const seq = reply.json().turn_seq as number;

    // Another tenant's session is never listed.
    const other = await ctx.tenant();
    const hidden = await other.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'other' },
    });
    const hiddenId = hidden.json().session.id as string;

    const response = await signIn();
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector(`[data-session="${sessionId}"]`);
    expect(await page.textContent(`[data-session="${sessionId}"]`)).toContain(
      sessionBody!.session_key as string,
    );
    expect(await page.locator(`[data-session="${hiddenId}"]`).count()).toBe(0);
    await openTurn(sessionId, seq);

    const entry = await logEntry(sessionId, seq);
    await expectBudgetDrawn(entry);
    // The system section the README sent, shown as sent, with its cache breakpoint.
    const system = page.locator('[data-testid="payload"] [data-source="system"]');
    expect(await system.count()).toBe(1);
    expect(await system.locator('pre').textContent()).toBe('You are a concise assistant.');
    expect(await system.locator('[data-breakpoint]').count()).toBe(1);
    expect(await page.textContent('[data-field="stable_prefix_tokens"]')).toBe(
      formatTokens(entry.cache!.stable_prefix_tokens),
    );
    expect(await page.locator('[data-testid="cache"] .breakpoints li').count()).toBe(
      entry.cache!.breakpoints.length,
    );

    // The key is kept in the tab only: not in localStorage, not in a cookie.
    // (A string: the test's TypeScript has no DOM types.)
    const stored = await page.evaluate(
      '({ session: Object.keys(sessionStorage), local: Object.keys(localStorage), cookie: document.cookie })',
    );
    expect(stored).toEqual({ session: ['contextd.inspect.key'], local: [], cookie: '' });
    // A reload keeps the key (same tab) and reopens the selected turn from the URL fragment.
    expect(new URL(page.url()).hash).toBe(`#session=${sessionId}&turn=${seq}`);
    await page.reload();
    await page.waitForSelector('[data-testid="payload"]');
    expect(await page.textContent('#turn h2')).toContain(`Turn #${seq}`);
    await expectBudgetDrawn(entry);
    expect(pageErrors).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'inspect-readme-turn.png'), fullPage: true });
  }, 60_000);

  it('a later turn: retrieved items with their scores, context blocks labelled by source', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'retrieval' },
    });
    const sessionId = created.json().session.id as string;
    for (const text of [
      'The deploy pipeline runs every friday at noon from the staging branch.',
      'Billing invoices are sent on the first day of the month.',
    ]) {
      const memory = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { scope: 'session', scope_key: 'retrieval', type: 'fact', text },
      });
      expect(memory.statusCode).toBeLessThan(300);
    }
    const appended = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'Hi there' },
          { role: 'assistant', content: 'Hello, how can I help?' },
        ],
      },
    });
    expect(appended.statusCode, appended.body).toBe(201);
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'When does the deploy pipeline run?' } },
    });
    expect(reply.statusCode).toBe(200);
    const seq = reply.json().turn_seq as number;
    const entry = await logEntry(sessionId, seq);
    expect(entry.context!.retrieved.length).toBeGreaterThan(0);

    await signIn();
    await page.waitForSelector(`[data-session="${sessionId}"]`);
    await openTurn(sessionId, seq);
    await expectBudgetDrawn(entry);

    const rows = await page.$$eval('[data-testid="context"] tr[data-retrieved]', (nodes) =>
      nodes.map((n) => [
        n.getAttribute('data-retrieved'),
        n.querySelector('[data-field="score"]')!.textContent,
      ]),
    );
    expect(rows).toEqual(entry.context!.retrieved.map((r) => [r.id, r.score.toFixed(4)]));

    // History, then this turn: the user's words and the retrieved block, labelled by source.
    const history = page.locator('[data-section="history"] .message');
    expect(await history.count()).toBeGreaterThan(0);
    const payload = (
      await t.inject({ method: 'GET', url: `/v1/sessions/${sessionId}/context-log/${seq}/payload` })
    ).json();
    const last = payload.messages[payload.messages.length - 1];
    const thisTurn = page.locator('[data-section="this-turn"] .message');
    expect(await thisTurn.locator('.block').count()).toBe(last.content.length);
    const sources = await thisTurn
      .locator('.block')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-source')));
    expect(sources).toContain('retrieved_context');
    expect(sources).toContain('user content');
    const retrievedText = await thisTurn.locator('[data-source="retrieved_context"] pre').textContent();
    expect(retrievedText).toContain('deploy pipeline');
    // The lane panel answers for the turn's lane.
    await page.waitForSelector('[data-testid="lane"] table');
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'inspect-retrieval-turn.png'), fullPage: true });
  }, 60_000);

  it('a compacted lane: its summary, expandable to the entries it covers', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'compacted' },
    });
    const sessionId = created.json().session.id as string;
    const turns = Array.from({ length: 24 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `Step ${i}: build ${2000 + i} touches /srv/svc-${i}/config.yaml for ticket OPS-${i}.`,
    }));
    const appended = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: { turns },
    });
    expect(appended.statusCode).toBe(201);
    const compacted = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/compact`,
      payload: { wait: true },
    });
    expect(compacted.statusCode).toBe(200);
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'Which build touched svc-3?' } },
    });
    expect(reply.statusCode).toBe(200);
    const seq = reply.json().turn_seq as number;
    const entry = await logEntry(sessionId, seq);
    const laneUrl = `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(entry.lane_key)}`;
    const lane = (await t.inject({ url: laneUrl })).json();
    expect(lane.summary).toBeTruthy();
    const covered = (await t.inject({ url: `${laneUrl}?expand=true` })).json().expanded.entries as {
      seq: number;
    }[];
    expect(covered.length).toBeGreaterThan(0);

    await signIn();
    await page.waitForSelector(`[data-session="${sessionId}"]`);
    await openTurn(sessionId, seq);
    const panel = page.locator(`[data-testid="lane"][data-lane="${entry.lane_key}"]`);
    await panel.locator('pre.summary').waitFor();
    expect(await panel.locator('pre.summary').textContent()).toBe(lane.summary);
    await panel.locator('button').click();
    await panel.locator('.covered li').first().waitFor();
    const seqs = await panel
      .locator('.covered li')
      .evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute('data-seq'))));
    expect(seqs).toEqual(covered.map((e) => e.seq));
    // The payload sends the summary as a labelled block of the history.
    expect(await page.locator('[data-section="history"] [data-source="lane_summary"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'inspect-compacted-lane.png'), fullPage: true });
  }, 60_000);

  it("the README's first-bot step 2: the example bot's last turn, its budget drawn", async () => {
    const bot = await createTenantBotRun(base, ctx);
    try {
      const [reply] = bot.replies;
      expect(reply).toBeDefined();
      const log = await bot.tenant.inject({ url: `/v1/sessions/${reply!.sessionId}/context-log` });
      expect(log.statusCode).toBe(200);
      const entries = log.json().entries as LogEntry[];
      // The bot's three model calls are three context calls: the question and two tool results.
      expect(entries.length).toBe(reply!.modelCalls);
      const last = entries.reduce((a, e) => (e.turn_seq > a.turn_seq ? e : a));

      const fresh = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      const previous = page;
      page = fresh;
      try {
        await page.goto(`${base}/inspect`);
        await page.fill('#api-key', bot.tenant.key);
        await page.click('#key-form button[type="submit"]');
        await page.waitForSelector(`[data-session="${reply!.sessionId}"]`);
        await openTurn(reply!.sessionId, last.turn_seq);
        await expectBudgetDrawn(last);
        // The tool results the model was given are in the payload as it saw them.
        expect(await page.textContent('[data-testid="payload"]')).toContain('Fix is PR #4821');
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, 'inspect-example-bot.png'), fullPage: true });
      } finally {
        page = previous;
        await fresh.context().close();
      }
    } finally {
      await bot.close();
    }
  }, 120_000);

  it("the marks are the instance's thresholds", async () => {
    const tuned = await createTestApp({
      env: { COMPACT_TRIGGER: '0.9', HARD_BLOCK: '0.97' },
      testDb: ctx.testDb,
    });
    try {
      const response = await tuned.app.inject({ url: '/inspect/thresholds.json' });
      expect(response.json()).toEqual({ compact_soon: 0.8, compact_trigger: 0.9, hard_block: 0.97 });
    } finally {
      await tuned.close();
    }
  });

  it('bad input: unknown files are a 404 in the error shape; a bad key is said on the page', async () => {
    const missing = await ctx.app.inject({ method: 'GET', url: '/inspect/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing).code).toBe('inspector.file_not_found');
    const traversal = await ctx.app.inject({ method: 'GET', url: '/inspect/..%2Fpackage.json' });
    expect(traversal.statusCode).toBe(404);

    const fresh = await (await browser.newContext()).newPage();
    await fresh.goto(`${base}/inspect`);
    await fresh.fill('#api-key', 'ctxd_not-a-key');
    await fresh.click('#key-form button[type="submit"]');
    await fresh.waitForSelector('#status.error');
    expect(await fresh.textContent('#status')).toContain('auth.invalid_key');
    expect(await fresh.locator('[data-session]').count()).toBe(0);
    expect(await fresh.evaluate('sessionStorage.length')).toBe(0); // an unknown key is not kept
    await fresh.context().close();
  }, 60_000);
});

/** The README's first-bot step 1 for a tenant of its own: the example bot replays its recorded
 *  events against this listener and the strict fake Messages API. */
async function createTenantBotRun(base: string, ctx: TestContext) {
  const tenant = await ctx.tenant();
  const fake = await startFakeAnthropic();
  fake.respond = scriptedSlackModel;
  const example = await startExample({
    contextd: { url: base, apiKey: tenant.key },
    anthropic: { baseURL: fake.baseURL },
    bot: { thinkingBudget: 2048 },
  });
  const close = async () => {
    await example.close();
    await fake.close();
  };
  try {
    const replies: BotReply[] = await replay(
      example.bot,
      await loadRecordedEvents('examples/slack-bot/events.json'),
    );
    expect(fake.rejections).toEqual([]);
    return { tenant, replies, close };
  } catch (error) {
    await close();
    throw error;
  }
}
