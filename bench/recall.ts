// Search quality on LoCoMo (issue 5): every dialog turn is stored as one memory through the real
// memories service (redaction, dedupe, tsvector), each question is asked through the real search
// service, and recall@k is the share of the question's evidence turns among the top k results.
// Beside it: a plain BM25 over the same turns computed here, and the published DRAGON numbers.
//
//   npm run bench:recall -- --data ../shared/data/locomo/locomo-dev.json --json recall.json
//
// Embedded PGlite (in memory) unless DATABASE_URL is set; then a throwaway database on that server.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import postgres from 'postgres';
import { benchPrepare } from './lib/channel-fixture.js';
import { openDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { tenants } from '../src/db/schema.js';
import { createIdempotencyService } from '../src/http/idempotency/idempotency.service.js';
import { createMemoriesService } from '../src/modules/memory/memories.service.js';
import { systemClock } from '../src/shared/clock.js';
import {
  createMemorySearchService,
  type RankingOptions,
} from '../src/modules/memory/memory-search.service.js';
import { createMemoriesRepository } from '../src/modules/memory/memories.repository.js';
import { createSearchRepository } from '../src/modules/memory/search.repository.js';
import { CATEGORY_NAMES, parseEvidence, turnsOf, type Sample, type Turn } from './lib/locomo.js';
import { arg, printTable, summarize } from './lib/measure.js';
import { createBm25 } from './lib/bm25.js';
import { FEEDBACK_DOCS, FEEDBACK_TERMS } from '../src/modules/memory/core/query-expansion.js';

const KS = [5, 10, 25, 50] as const;
/** DRAGON retrieval recall@k over dialog turns, all ten conversations (LoCoMo paper, via the data README). */
const DRAGON: Record<string, number> = { '5': 0.567, '10': 0.662, '25': 0.767, '50': 0.827 };
const turnText = (turn: Turn) =>
  `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [image: ${turn.blip_caption}]` : ''}`;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

type Recalls = Record<string, number>;
/** Sums of recall@k per variant (VARIANTS order, then plain BM25), for one category. */
interface Bucket {
  n: number;
  sums: number[][];
}

/**
 * What the run compares: the service as configured, and the ranking ideas of issue 15 switched off
 * one at a time (the ablation in docs/benchmarks.md). Each is one searchMemory call per question.
 */
const BEFORE = { k1: 1.2, b: 0.75 };
const VARIANTS: { name: string; recencyWeight?: number; ranking?: Partial<RankingOptions> }[] = [
  { name: 'contextd search' },
  { name: 'without recency', recencyWeight: 0 },
  {
    name: 'before issue 15 (BM25 k1 1.2 b 0.75, no speaker boost, no feedback)',
    ranking: { feedback: null, authorBoost: 1, bm25: BEFORE },
  },
  { name: 'before + speaker boost', ranking: { feedback: null, bm25: BEFORE } },
  { name: 'before + speaker boost + BM25 k1 0.9 b 0.4', ranking: { feedback: null } },
  { name: 'configured without speaker boost', ranking: { authorBoost: 1 } },
  {
    name: 'configured with RM3 original weight 0.5',
    ranking: { feedback: { docs: FEEDBACK_DOCS, terms: FEEDBACK_TERMS, originalWeight: 0.5 } },
  },
];
const BM25_ROW = 'plain BM25 (same turns)';

async function main(): Promise<void> {
  const args = { data: arg('data') ?? '../shared/data/locomo/locomo-dev.json', json: arg('json') };
  if (!existsSync(args.data)) {
    console.log(
      `bench:recall skipped: LoCoMo data file not found at ${args.data} (pass --data <file>; see ../shared/data/locomo/README.md)`,
    );
    return;
  }
  const samples = JSON.parse(readFileSync(args.data, 'utf8')) as Sample[];
  const serverUrl = process.env.DATABASE_URL || undefined;
  const scratchDb = `contextd_bench_recall_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string | undefined;
  if (serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${scratchDb}"`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${scratchDb}`;
    databaseUrl = url.toString();
  }
  const database = await openDatabase({
    databaseUrl,
    dataDir: 'memory://',
    maxConnections: 4,
    prepare: benchPrepare(),
  });
  await runMigrations(database);
  const db = database.db;
  const tenantId = `bench_recall_${randomBytes(4).toString('hex')}`;
  await db.insert(tenants).values({ id: tenantId, name: 'bench:recall' });

  let current = new Date(0);
  const clock = { now: () => current };
  const ids = { next: () => uuidv7({ msecs: current.getTime() }) };
  const memoriesService = createMemoriesService({
    memories: createMemoriesRepository(db),
    idempotency: createIdempotencyService(db),
    clock,
    ids,
  });
  const { searchMemory } = createMemorySearchService({
    search: createSearchRepository(db),
    clock: systemClock,
  });

  const buckets = new Map<number, Bucket>();
  /** Per variant: each search's duration (the variants run one after another per question). */
  const latencies: number[][] = VARIANTS.map(() => []);
  let skippedNoEvidence = 0;
  let indexedTurns = 0;
  let deduplicated = 0;
  const started = performance.now();

  for (const sample of samples) {
    const turns = turnsOf(sample);
    const diaIdsByMemory = new Map<string, string[]>();
    for (const { turn, at } of turns) {
      current = at;
      const { body } = await memoriesService.create({
        tenantId,
        input: {
          scope: 'channel',
          scope_key: sample.sample_id,
          type: 'event',
          text: turnText(turn),
          metadata: { dia_id: turn.dia_id },
          source: `locomo:${sample.sample_id}`,
        },
      });
      if (body.deduplicated) deduplicated += 1;
      const list = diaIdsByMemory.get(body.memory.id) ?? [];
      list.push(turn.dia_id);
      diaIdsByMemory.set(body.memory.id, list);
      indexedTurns += 1;
    }
    const bm25 = createBm25(turns.map(({ turn }) => ({ id: turn.dia_id, text: turnText(turn) })));
    const end = new Date(turns[turns.length - 1]!.at.getTime() + 60_000);
    current = end;

    for (const qa of sample.qa) {
      const evidence = parseEvidence(qa.evidence);
      if (evidence.length === 0) {
        skippedNoEvidence += 1;
        continue;
      }
      const search = async (variant: (typeof VARIANTS)[number], v: number) => {
        const t0 = performance.now();
        const reply = await searchMemory({
          tenantId,
          query: qa.question,
          filters: { scope: 'channel', scopeKey: sample.sample_id },
          sources: ['memories'],
          maxResults: 50,
          now: end,
          ...(variant.recencyWeight !== undefined ? { recencyWeight: variant.recencyWeight } : {}),
          ...(variant.ranking ? { ranking: variant.ranking } : {}),
        });
        latencies[v]!.push(performance.now() - t0);
        return reply.results.flatMap((r) => diaIdsByMemory.get(r.id) ?? []);
      };
      const rankings: string[][] = [];
      for (const [i, variant] of VARIANTS.entries()) rankings.push(await search(variant, i));
      rankings.push(bm25(qa.question, 50));
      const recall = (ranked: string[], k: number) => {
        const top = new Set(ranked.slice(0, k));
        return evidence.filter((e) => top.has(e)).length / evidence.length;
      };
      const bucket = buckets.get(qa.category) ?? { n: 0, sums: rankings.map(() => KS.map(() => 0)) };
      bucket.n += 1;
      rankings.forEach((ranked, v) => KS.forEach((k, i) => (bucket.sums[v]![i]! += recall(ranked, k))));
      buckets.set(qa.category, bucket);
    }
  }
  const elapsed = (performance.now() - started) / 1000;

  const names = [...VARIANTS.map((v) => v.name), BM25_ROW];
  const combine = (categories: number[], variant: number) => {
    const parts = categories.map((c) => buckets.get(c)).filter((b): b is Bucket => Boolean(b));
    const n = parts.reduce((s, b) => s + b.n, 0);
    const out: Recalls = {};
    KS.forEach((k, i) => {
      out[String(k)] = n ? parts.reduce((s, b) => s + b.sums[variant]![i]!, 0) / n : 0;
    });
    return { n, recalls: out };
  };
  const headline = [1, 2, 3, 4];
  const categories = [...buckets.keys()].sort();
  const ours = combine(headline, 0);
  const bm25 = combine(headline, names.length - 1);
  const perCategory: Record<
    string,
    { name: string; questions: number; recall_at: Recalls; bm25_at: Recalls }
  > = {};
  for (const c of categories) {
    perCategory[String(c)] = {
      name: CATEGORY_NAMES[c] ?? 'unknown',
      questions: buckets.get(c)!.n,
      recall_at: combine([c], 0).recalls,
      bm25_at: combine([c], names.length - 1).recalls,
    };
  }

  const searchLatency = summarize(latencies[0]!);
  console.log(
    `\nLoCoMo search recall@k — ${samples.length} conversations, ${indexedTurns} turns indexed as memories (${deduplicated} deduplicated), ${ours.n} questions in categories 1–4, ${skippedNoEvidence} without evidence skipped; ${database.kind}, ${elapsed.toFixed(1)} s`,
  );
  const row = (name: string, r: Recalls, v?: number) => ({
    'categories 1–4': name,
    ...Object.fromEntries(KS.map((k) => [`@${k}`, pct(r[String(k)]!)])),
    'search p50': latencies[v ?? -1] ? `${summarize(latencies[v!]!).p50.toFixed(1)} ms` : '',
  });
  printTable('Recall@k, categories 1–4', [
    ...names.map((name, v) => row(name, combine(headline, v).recalls, v)),
    row('DRAGON (published, 10 conversations)', DRAGON),
  ]);
  printTable(
    'Per category',
    Object.entries(perCategory).map(([c, v]) => ({
      category: `${c} ${v.name}`,
      questions: v.questions,
      ...Object.fromEntries(KS.map((k) => [`ours @${k}`, pct(v.recall_at[String(k)]!)])),
      ...Object.fromEntries(KS.map((k) => [`BM25 @${k}`, pct(v.bm25_at[String(k)]!)])),
    })),
  );
  printTable(
    'Ablation per category (@5 / @10 / @25 / @50)',
    names.map((name, v) => ({
      variant: name,
      ...Object.fromEntries(
        categories.map((c) => [
          `${c} ${CATEGORY_NAMES[c] ?? ''}`,
          KS.map((k) => pct(combine([c], v).recalls[String(k)]!)).join(' / '),
        ]),
      ),
    })),
  );
  console.log(
    `\nsearch latency per question (${database.kind}, ~${Math.round(indexedTurns / samples.length)} memories per scope, configured search): p50 ${searchLatency.p50.toFixed(2)} ms, p99 ${searchLatency.p99.toFixed(2)} ms`,
  );

  if (args.json) {
    const result = {
      recall_at: ours.recalls,
      bm25_at: bm25.recalls,
      per_category: perCategory,
      questions: ours.n,
      category_5: perCategory['5'] ?? null,
      variants: Object.fromEntries(
        names.map((name, v) => [
          name,
          {
            headline: combine(headline, v).recalls,
            search_p50_ms: latencies[v] ? summarize(latencies[v]).p50 : null,
            per_category: Object.fromEntries(categories.map((c) => [String(c), combine([c], v).recalls])),
          },
        ]),
      ),
      dragon_at: DRAGON,
      skipped_without_evidence: skippedNoEvidence,
      indexed_turns: indexedTurns,
      backend: database.kind,
      search_latency_ms: { p50: searchLatency.p50, p99: searchLatency.p99 },
    };
    writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${args.json}`);
  }

  await database.close();
  if (serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${scratchDb}" with (force)`);
    await admin.end();
  }
}

await main();
