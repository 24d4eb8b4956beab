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
  });

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
  });

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
  });

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
  });

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
  });

  /** Pairs of visible elements matched by `selector` (siblings in a layout) whose boxes overlap. */
  async function overlaps(selector: string) {
    const boxes = await page.$$eval(selector, (nodes) =>
      nodes
        .map((n) => {
          const r = n.getBoundingClientRect();
          const name = `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}.${n.className}[${n.getAttribute('data-testid') ?? n.getAttribute('data-mark') ?? n.parentElement?.getAttribute('data-mark') ?? ''}]`;
          return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        })
        .filter((b) => b.right - b.left > 0 && b.bottom - b.top > 0),
    );
    const found: string[] = [];
    boxes.forEach((a, i) =>
      boxes.slice(i + 1).forEach((b) => {
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) found.push(`${a.name} × ${b.name}`);
      }),
    );
    return { count: boxes.length, found };
  }

  /** The layout at the page's current width: nothing overlaps, nothing runs past the window. */
  async function expectCleanLayout() {
    for (const selector of [
      'main > nav, main > article',
      '#key-form > :not([hidden])',
      '#session-tools > :not([hidden])',
      '.inline-form > *',
      '#turn > *',
      '[data-testid="budget"] > *',
      '.bar:not(.zoom) .mark span',
      '[data-testid="find"] > *',
    ]) {
      const { found } = await overlaps(selector);
      expect(found, `${selector} at ${page.viewportSize()!.width} px`).toEqual([]);
    }
    const { count } = await overlaps('.bar:not(.zoom) .mark span');
    expect(count).toBe(3);
    const widths = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  }

  it('was X in the payload, and if not, why: a retrieval item a small cap left out, found with its reason in one view; tokens per block, cost, diff, search and a dry run', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'why-not' },
    });
    const sessionId = created.json().session.id as string;
    const facts = {
      sent: 'The zeppelin hangar key code is rotated every quarter by the facilities team.',
      dropped: 'The zeppelin mooring mast inspection happens every spring, run by the quartermaster.',
    };
    for (const text of Object.values(facts)) {
      const memory = await t.inject({
        method: 'POST',
        url: '/v1/memories',
        payload: { scope: 'session', scope_key: 'why-not', type: 'fact', text },
      });
      expect(memory.statusCode).toBe(201);
    }
    const message = { content: 'Tell me about the zeppelin hangar and mooring schedule' };
    const context = (payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: `/v1/sessions/${sessionId}/context`, payload });
    // Both fit with no cap: a cap one token short of their block leaves one out.
    const whole = (await context({ message, dry_run: true })).json();
    expect(whole.context.retrieved).toHaveLength(2);
    const cap = whole.budget.components.memories - 1;
    const first = await context({ message, budget: { max_context_tokens: cap } });
    expect(first.statusCode).toBe(200);
    const seq = first.json().turn_seq as number;
    const answered = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          {
            role: 'assistant',
            content: 'The hangar code rotates quarterly.',
            usage: { input_tokens: 900, cache_read_input_tokens: 0, cache_creation_input_tokens: 800 },
          },
        ],
      },
    });
    expect(answered.statusCode, answered.body).toBe(201);
    const second = await context({ message: { content: 'And who runs the mooring inspection?' } });
    expect(second.statusCode).toBe(200);
    const seq2 = second.json().turn_seq as number;

    const entry = (await logEntry(sessionId, seq)) as LogEntry & {
      left_out: { counts: Record<string, number>; items: { id: string; reason: string; excerpt: string }[] };
      budget: { cost: { billed_input: number; basis: string } };
    };
    expect(entry.left_out.counts).toEqual({ did_not_fit: 1 });
    const dropped = entry.left_out.items[0]!;
    expect(dropped.excerpt).toBe(facts.dropped);

    await signIn();
    await page.waitForSelector(`[data-session="${sessionId}"]`);
    await openTurn(sessionId, seq);

    // One view: type the dropped item's words; the answer is "not in this payload" with its reason.
    await page.fill('#find-text', 'mooring mast');
    await page.click('#find-form button[type="submit"]');
    const find = page.locator('[data-testid="find-result"]');
    await find.locator(`[data-left-out="${dropped.id}"]`).waitFor();
    expect(await find.getAttribute('data-verdict')).toBe('left-out');
    expect(await find.locator('.verdict').textContent()).toContain('No: not in this payload');
    const why = await find.locator(`[data-left-out="${dropped.id}"]`).textContent();
    expect(why).toContain('did_not_fit');
    expect(why).toContain('did not fit the room left for retrieved material');
    // …and no turn of the session said it (it is a memory): the same view says so.
    await find.getByText('No turn of the session says it').waitFor();
    // The item that was sent is found in the payload, in the retrieved block.
    await page.fill('#find-text', 'hangar key code');
    await page.click('#find-form button[type="submit"]');
    await find.locator('[data-found]').first().waitFor();
    expect(await find.getAttribute('data-verdict')).toBe('in-payload');
    expect(await find.locator('[data-found="this-turn"][data-source="retrieved_context"]').count()).toBe(1);

    // The left-out panel lists it with its reason.
    const row = page.locator(`[data-testid="left-out"] tr[data-left-out="${dropped.id}"]`);
    expect(await row.getAttribute('data-reason')).toBe('did_not_fit');

    // Tokens per block: the API's counts, the categories summing to the total.
    const tokens = (
      await t.inject({ url: `/v1/sessions/${sessionId}/context-log/${seq}/tokens` })
    ).json() as { total: number; messages: { blocks: number[] }[] };
    await page.waitForSelector('[data-testid="tokens"] table');
    expect(await page.textContent('[data-field="tokens.total"]')).toBe(formatTokens(tokens.total));
    const categories = await page.$$eval('[data-testid="tokens"] td[data-field^="tokens."]', (nodes) =>
      nodes.map((n) => [n.getAttribute('data-field'), Number(n.textContent!.replace(/,/g, ''))] as const),
    );
    const byCategory = Object.fromEntries(categories) as Record<string, number>;
    const { 'tokens.total': total, ...parts } = byCategory;
    expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBe(total);
    expect(byCategory['tokens.retrieved']).toBeGreaterThan(0);
    const badges = await page.$$eval('[data-testid="payload"] .badge.tokens', (nodes) =>
      nodes.map((n) => Number(n.getAttribute('data-tokens'))),
    );
    const payload = (
      await t.inject({ url: `/v1/sessions/${sessionId}/context-log/${seq}/payload` })
    ).json() as {
      system?: unknown[];
      tools?: unknown[];
      messages: { content: { type: string; text?: string }[] }[];
    };
    const lastBlocks = payload.messages.at(-1)!.content;
    const retrievedAt = lastBlocks.findIndex((b) => b.text?.startsWith('<retrieved_context'));
    expect(byCategory['tokens.retrieved']).toBe(tokens.messages.at(-1)!.blocks[retrievedAt]);
    expect(badges.length).toBe(
      (payload.system?.length ?? 0) +
        (payload.tools?.length ?? 0) +
        tokens.messages.reduce((n, m) => n + m.blocks.length, 0),
    );

    // Cost per turn, beside the usage the bot reported for the reply; the session's totals.
    expect(await page.textContent('[data-field="cost.billed_input"]')).toBe(
      formatTokens(entry.budget.cost.billed_input),
    );
    expect(await page.textContent('[data-field="cost.basis"]')).toBe(entry.budget.cost.basis);
    await page.waitForSelector('[data-field="cost.reported"]');
    expect(await page.textContent('[data-field="cost.reported"]')).toContain('input 900');
    const session = (await t.inject({ url: `/v1/sessions/${sessionId}` })).json() as {
      cost_totals: { billed_input: number; calls: number };
      next_seq: number;
    };
    expect(session.cost_totals.calls).toBe(2);
    // A reload reopens the turn; the session's totals are the API's.
    await page.reload();
    await page.waitForSelector('[data-testid="payload"]');
    expect(await page.textContent('[data-field="totals.billed_input"]')).toBe(
      formatTokens(session.cost_totals.billed_input),
    );
    expect(await page.textContent(`#turns [data-seq="${seq}"] [data-field="billed"]`)).toContain(
      formatTokens(entry.budget.cost.billed_input),
    );

    // The diff with the previous turn: the new exchange added, the old turn's retrieved block gone.
    await page.click(`#turns [data-seq="${seq2}"]`);
    await page.waitForSelector('[data-testid="diff"] [data-diff]');
    expect(
      await page.locator('[data-testid="diff"] [data-diff="added"][data-section="this-turn"]').count(),
    ).toBe(1);
    expect(
      await page.locator('[data-testid="diff"] [data-diff="added"][data-section="history"]').count(),
    ).toBe(1);
    // The previous turn's stored part is this payload's history: nothing of it removed.
    expect(await page.locator('[data-testid="diff"] [data-diff="removed"]').count()).toBe(0);
    expect(await page.textContent('[data-field="diff.this_turn"]')).not.toBe('0');

    // Search across the session's turns: the hit opens the call that sent it, the word looked for.
    await page.fill('#search-text', 'mooring inspection');
    await page.click('#search-form button[type="submit"]');
    await page.locator(`[data-hit="${seq2}"]`).click();
    await page.locator('[data-testid="find-result"] [data-found]').first().waitFor();
    expect(await page.textContent('#turn h2')).toContain(`Turn #${seq2}`);
    expect(await page.inputValue('#find-text')).toBe('mooring inspection');

    // The dry-run box: what a context call with this question would get, with what it leaves out.
    await page.fill('#dry-run-text', 'Tell me about the zeppelin hangar and mooring schedule');
    await page.fill('#dry-run-cap', String(cap));
    await page.click('#dry-run-form button[type="submit"]');
    await page.waitForSelector('[data-testid="dry-run-question"]');
    expect(await page.locator('#turn').getAttribute('data-dry-run')).toBe('true');
    await page.waitForSelector('[data-testid="left-out"] tr[data-left-out]');
    expect(
      await page.locator('[data-testid="left-out"] tr[data-reason="did_not_fit"]').count(),
    ).toBeGreaterThan(0);
    expect(await page.textContent('[data-testid="payload"] [data-section="this-turn"]')).toContain(
      'zeppelin hangar and mooring schedule',
    );
    const after = (await t.inject({ url: `/v1/sessions/${sessionId}` })).json();
    expect(after.next_seq).toBe(session.next_seq);
    expect(after.cost_totals).toEqual(session.cost_totals); // a dry run stores nothing

    // Another tenant's key reads none of it.
    const other = await ctx.tenant();
    for (const url of [
      `/v1/sessions/${sessionId}/context-log`,
      `/v1/sessions/${sessionId}/context-log/${seq}/tokens`,
      `/v1/sessions/${sessionId}/transcript`,
    ]) {
      expect((await other.inject({ url })).statusCode, url).toBe(404);
    }
    expect(pageErrors).toEqual([]);

    // Both turns at 1400 and at 800 px: nothing overlaps, nothing runs past the window.
    for (const at of [seq, seq2]) {
      await page.click(`#turns [data-seq="${at}"]`);
      await page.waitForSelector('[data-testid="payload"]');
      await page.waitForSelector('[data-testid="tokens"] table');
      await page
        .locator('[data-testid="diff"]')
        .getByText('loading the previous turn')
        .waitFor({ state: 'detached' });
      for (const width of [1400, 800]) {
        await page.setViewportSize({ width, height: 1000 });
        await expectCleanLayout();
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({
          path: join(ARTIFACTS, `inspect-why-not-${at}-${width}.png`),
          fullPage: true,
        });
      }
      await expectBudgetDrawn(await logEntry(sessionId, at));
      await page.setViewportSize({ width: 1400, height: 1000 });
    }
    expect(pageErrors).toEqual([]);
    await page.setViewportSize({ width: 1400, height: 1000 });
  });

  it('stored markup is shown as text everywhere: turns, memories, search, find, dry run', async () => {
    const markup = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: `xss ${markup}` },
    });
    const sessionId = created.json().session.id as string;
    const memory = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'session', scope_key: `xss ${markup}`, type: 'fact', text: `quokka facts ${markup}` },
    });
    expect(memory.statusCode).toBe(201);
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          { role: 'user', content: `quokka ${markup}` },
          { role: 'assistant', content: markup },
        ],
      },
    });
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: `quokka ${markup}` }, budget: { max_context_tokens: 60 } },
    });
    expect(reply.statusCode).toBe(200);
    const seq = reply.json().turn_seq as number;

    await signIn();
    await page.waitForSelector(`[data-session="${sessionId}"]`);
    await openTurn(sessionId, seq);
    await page.fill('#find-text', 'onerror');
    await page.click('#find-form button[type="submit"]');
    await page.locator('[data-testid="find-result"] ul.said li').first().waitFor();
    await page.fill('#search-text', 'script');
    await page.click('#search-form button[type="submit"]');
    await page.locator('[data-hit]').first().waitFor();
    await page.fill('#dry-run-text', `quokka ${markup}`);
    await page.click('#dry-run-form button[type="submit"]');
    await page.waitForSelector('[data-testid="dry-run-question"]');
    expect(await page.textContent('[data-testid="dry-run-question"]')).toContain(markup);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.textContent(`[data-session="${sessionId}"]`)).toContain(markup);
    expect(pageErrors).toEqual([]);
  });

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
  });
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
