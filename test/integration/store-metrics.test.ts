// The series an operator reads for the stores and the bill: the database pool (in use, idle,
// waiting; PostgreSQL only), the compaction queue's depth, and each context call's expected input
// bill from the cost model (budget.cost). And every contextd family in /metrics is well formed by
// the Prometheus text exposition format: `promtool check metrics` finds nothing in them, and a
// checker of our own states the rules it applies (HELP and TYPE once before the samples, valid
// names and labels, counters named _total, histograms with cumulative buckets up to +Inf, _sum and
// _count) where promtool is not installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

// Prometheus's own linter (Debian's `prometheus` package; .ci/run installs it). Without CI a machine
// without it skips that one test; with CI set it fails instead.
const PROMTOOL = '/usr/bin/promtool';
const hasPromtool = existsSync(PROMTOOL) || Boolean(process.env.CI);

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const scrape = async () => (await ctx.app.inject({ url: '/metrics' })).body;
function value(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/** The exposition-format problems of the families whose names start with `prefix`. */
function formatProblems(body: string, prefix: string): string[] {
  const problems: string[] = [];
  const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
  const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"$/;
  const families = new Map<
    string,
    { help: boolean; type?: string; samples: { name: string; labels: Map<string, string>; value: number }[] }
  >();
  let current: string | null = null;
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name!)) problems.push(`bad family name ${name}`);
      const family = families.get(name!) ?? { help: false, samples: [] };
      if (kind === 'HELP') {
        if (family.help) problems.push(`${name}: HELP twice`);
        family.help = true;
        if (!rest) problems.push(`${name}: empty HELP`);
      } else {
        if (family.type) problems.push(`${name}: TYPE twice`);
        if (family.samples.length > 0) problems.push(`${name}: TYPE after samples`);
        family.type = rest;
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest ?? '')) {
          problems.push(`${name}: unknown type ${rest}`);
        }
      }
      families.set(name!, family);
      current = name!;
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) {
      problems.push(`unparsable line: ${line}`);
      continue;
    }
    const [, name, , labelText, raw] = sample;
    const labels = new Map<string, string>();
    for (const pair of labelText ? labelText.split(/,(?=[a-zA-Z_][a-zA-Z0-9_]*=")/) : []) {
      const label = LABEL.exec(pair);
      if (!label) problems.push(`${name}: bad label ${pair}`);
      else if (labels.has(label[1]!)) problems.push(`${name}: label ${label[1]} twice`);
      else labels.set(label[1]!, label[2]!);
    }
    const number = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (!/^nan$/i.test(raw!) && Number.isNaN(number)) problems.push(`${name}: value ${raw}`);
    const family = current && name!.startsWith(current) ? families.get(current) : undefined;
    if (!family) problems.push(`${name}: sample outside its family`);
    else family.samples.push({ name: name!, labels, value: number });
  }
  for (const [name, family] of families) {
    if (!name.startsWith(prefix)) continue;
    if (!family.help || !family.type) problems.push(`${name}: HELP or TYPE missing`);
    if (family.type === 'counter') {
      if (!name.endsWith('_total')) problems.push(`${name}: a counter's name should end in _total`);
      for (const s of family.samples)
        if (s.name !== name && s.name !== name.replace(/_total$/, '_created'))
          problems.push(`${name}: sample ${s.name}`);
      for (const s of family.samples) if (s.value < 0) problems.push(`${name}: negative counter`);
    }
    if (family.type === 'gauge') {
      for (const s of family.samples) if (s.name !== name) problems.push(`${name}: sample ${s.name}`);
    }
    if (family.type === 'histogram') {
      const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
      for (const s of family.samples) {
        const key = [...s.labels]
          .filter(([k]) => k !== 'le')
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
        const entry = series.get(key) ?? { buckets: [] };
        if (s.name === `${name}_bucket`) {
          const le = s.labels.get('le');
          if (le === undefined) problems.push(`${name}: bucket without le`);
          else entry.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
        } else if (s.name === `${name}_sum`) entry.sum = s.value;
        else if (s.name === `${name}_count`) entry.count = s.value;
        else problems.push(`${name}: sample ${s.name}`);
        series.set(key, entry);
      }
      for (const [key, entry] of series) {
        const last = entry.buckets.at(-1);
        if (!last || last[0] !== Infinity) problems.push(`${name}{${key}}: no +Inf bucket`);
        if (entry.sum === undefined || entry.count === undefined)
          problems.push(`${name}{${key}}: _sum or _count missing`);
        if (last && entry.count !== last[1]) problems.push(`${name}{${key}}: _count is not the +Inf bucket`);
        entry.buckets.forEach(([le, count], i) => {
          const previous = entry.buckets[i - 1];
          if (previous && (le <= previous[0] || count < previous[1]))
            problems.push(`${name}{${key}}: buckets not cumulative`);
        });
      }
    }
  }
  return problems;
}

describe('store and bill metrics', () => {
  it("observes each context call's expected input bill (budget.cost) and its input tokens by cache kind", async () => {
    const before = await scrape();
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CB1' },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const sessionId = created.json().session.id as string;
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'hello there' } },
    });
    expect(reply.statusCode).toBe(200);
    const cost = reply.json().budget.cost as {
      billed_input: number;
      cache_read: number;
      cache_write: number;
      uncached: number;
    };
    expect(cost.billed_input).toBeGreaterThan(0);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (value(after, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    expect(delta('contextd_billed_input_tokens_count')).toBe(1);
    expect(delta('contextd_billed_input_tokens_sum')).toBeCloseTo(cost.billed_input, 6);
    for (const kind of ['cache_read', 'cache_write', 'uncached'] as const) {
      expect(delta('contextd_input_tokens_total', { kind }), kind).toBe(cost[kind]);
    }
  });

  it('shows the compaction queue depth and, on PostgreSQL, the pool in use, idle and waiting', async () => {
    const body = await scrape();
    if (ctx.testDb.database.kind === 'postgres') {
      const inUse = value(body, 'contextd_db_pool_connections', { state: 'in_use' })!;
      const idle = value(body, 'contextd_db_pool_connections', { state: 'idle' })!;
      // The calls before ran on the pool, so a connection is open.
      expect(inUse + idle).toBeGreaterThanOrEqual(1);
      expect(value(body, 'contextd_db_pool_waiting')).toBe(0);
    } else {
      expect(body).not.toContain('contextd_db_pool_connections');
      expect(value(body, 'contextd_compaction_jobs', { state: 'queued' })).toBe(0);
      expect(value(body, 'contextd_compaction_jobs', { state: 'active' })).toBe(0);
    }
    expect(body).toContain('# TYPE contextd_compaction_jobs gauge');
  });

  it.runIf(hasPromtool)('promtool check metrics finds nothing in the contextd families', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { agent_id: 'bot', platform: 'slack', chat_type: 'channel', channel_id: 'CB2' },
    });
    const sessionId = created.json().session.id as string;
    const reply = await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/context`,
      payload: { message: { content: 'hello again' } },
    });
    expect(reply.statusCode).toBe(200);
    const body = await scrape();
    // contextd's families only: the process and runtime series are prom-client's defaults.
    const ours = body
      .split('\n')
      .filter((line) => /^(# (HELP|TYPE) )?contextd_/.test(line))
      .join('\n');
    expect(ours).toContain('# TYPE contextd_billed_input_tokens histogram');
    const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: `${ours}\n`, encoding: 'utf8' });
    expect({ status: run.status, problems: `${run.stdout}${run.stderr}`.trim() }).toEqual({
      status: 0,
      problems: '',
    });
    // It is strict: a counter without _total is refused.
    const bad = spawnSync(PROMTOOL, ['check', 'metrics'], {
      input: '# HELP contextd_calls calls\n# TYPE contextd_calls counter\ncontextd_calls 1\n',
      encoding: 'utf8',
    });
    expect(`${bad.stdout}${bad.stderr}`).toContain('_total');
  });

  it('every contextd family is well formed in the text exposition format', async () => {
    const body = await scrape();
    expect(formatProblems(body, 'contextd_')).toEqual([]);
    // The checker finds what promtool would refuse.
    expect(
      formatProblems(
        '# HELP contextd_x_total x\n# TYPE contextd_x_total counter\ncontextd_x_total{a="1",a="2"} 1\n',
        'contextd_',
      ),
    ).toEqual(['contextd_x_total: label a twice']);
    expect(
      formatProblems(
        '# HELP contextd_h h\n# TYPE contextd_h histogram\ncontextd_h_bucket{le="1"} 2\ncontextd_h_sum 3\ncontextd_h_count 2\n',
        'contextd_',
      ),
    ).toEqual(['contextd_h{}: no +Inf bucket']);
  });
});
