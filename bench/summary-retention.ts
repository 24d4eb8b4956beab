// What lane summaries keep across compactions, through the real HTTP API on embedded PGlite
// (extractive summarizer):
//
//   npm run bench:summary -- [--data ../shared/data/locomo/locomo-dev.json] [--every 25]
//
// Each LoCoMo conversation (../shared/data/locomo/README.md) is one DM session, speaker A the
// user and speaker B the assistant, each turn with its author's name and time; after every N
// turns (25) the session is compacted (POST /compact, wait, force). After each compaction: of the
// named entities, numbers and dates said so far (measured here, independently of the summarizer:
// capitalized words inside a sentence, numbers, month-name dates and years), the share present in
// the lane summary or the verbatim history after it — against the verbatim history alone (what
// truncation without a summary keeps), measured in the same run.
import { existsSync, readFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { turnsOf, turnText, type Sample } from './lib/locomo.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const MONTH = 'January|February|March|April|May|June|July|August|September|October|November|December';

/** Named entities, numbers and dates of a text, lower-cased (the bench's own measure). */
function items(text: string): string[] {
  const out = new Set<string>();
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    sentence.split(/\s+/).forEach((word, i) => {
      const clean = word.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '').replace(/'s$/, '');
      if (i > 0 && /^[A-Z][a-z]{2,}$/.test(clean) && !new RegExp(`^(?:${MONTH})$`).test(clean))
        out.add(clean.toLowerCase());
    });
  }
  for (const m of text.match(/\b\d+(?:[.,]\d+)?\b/g) ?? []) out.add(m.toLowerCase());
  for (const m of text.match(new RegExp(`\\b(?:${MONTH})\\b(?: \\d{1,2})?(?:,? \\d{4})?`, 'g')) ?? [])
    out.add(m.toLowerCase());
  return [...out];
}

async function main() {
  const data = arg('data') ?? '../shared/data/locomo/locomo-dev.json';
  const every = Number(arg('every') ?? 25);
  if (!existsSync(data)) {
    console.log(`LoCoMo data not found at ${data}; skipping (see ../shared/data/locomo/README.md).`);
    return;
  }
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    COMPACTION_WORKERS: '0',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId: 'bench' });
  await app.services.tenants.addApiKey({ tenantId: 'bench', key, name: 'bench' });
  const inject = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const r = await app.inject({
      method,
      url,
      payload: payload as never,
      headers: { authorization: `Bearer ${key}` },
    });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json();
  };

  console.log(
    `\nLoCoMo DM sessions compacted every ${every} turns — entities, numbers and dates said so far`,
  );
  console.log(
    'conversation | compactions | summary + verbatim (min / mean / last) | verbatim only (mean) | summary tokens (last)',
  );
  const all: number[] = [];
  for (const sample of JSON.parse(readFileSync(data, 'utf8')) as Sample[]) {
    const turns = turnsOf(sample);
    const speakerA = String(sample.conversation.speaker_a);
    const id = (await inject('POST', '/v1/sessions', { session_key: `summary-${sample.sample_id}` })).session
      .id;
    const said: string[] = [];
    const withSummary: number[] = [];
    const verbatimOnly: number[] = [];
    let summaryTokens = 0;
    for (let i = 0; i < turns.length; i += every) {
      const batch = turns.slice(i, i + every);
      await inject('POST', `/v1/sessions/${id}/turns`, {
        turns: batch.map(({ turn, at }) => ({
          role: turn.speaker === speakerA ? 'user' : 'assistant',
          author: { name: turn.speaker },
          content: turnText(turn),
          time: at.toISOString(),
        })),
      });
      said.push(...batch.map(({ turn }) => turnText(turn)));
      const result = await inject('POST', `/v1/sessions/${id}/compact`, { wait: true, force: true });
      const lane = result.lanes[0] as { lane_key: string; outcome: string; first_kept_seq: number };
      if (lane.outcome !== 'committed') continue;
      const view = await inject('GET', `/v1/sessions/${id}/lanes/${encodeURIComponent(lane.lane_key)}`);
      const page = await inject(
        'GET',
        `/v1/sessions/${id}/transcript?cursor=${lane.first_kept_seq - 1}&limit=500`,
      );
      const verbatim = (page.entries as { kind: string; content: unknown }[])
        .filter((e) => e.kind === 'message')
        .map((e) => (typeof e.content === 'string' ? e.content : JSON.stringify(e.content)))
        .join('\n')
        .toLowerCase();
      const summary = String(view.summary ?? '').toLowerCase();
      summaryTokens = deps.estimator.text(summary);
      const wanted = [...new Set(said.flatMap(items))];
      const share = (text: string) => wanted.filter((x) => text.includes(x)).length / wanted.length;
      withSummary.push(share(`${summary}\n${verbatim}`));
      verbatimOnly.push(share(verbatim));
    }
    all.push(...withSummary);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    console.log(
      `${sample.sample_id.padEnd(12)} | ${String(withSummary.length).padStart(11)} | ${pct(Math.min(...withSummary))} / ${pct(mean(withSummary))} / ${pct(withSummary.at(-1) ?? 0)} | ${pct(mean(verbatimOnly)).padStart(20)} | ${summaryTokens}`,
    );
  }
  console.log(`all compactions: min ${pct(Math.min(...all))} (target ≥ 90%)`);
  await app.close();
  await closeDeps(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
