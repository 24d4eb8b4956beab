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
import { createMemorySearchService } from '../src/modules/memory/memory-search.service.js';
import { createMemoriesRepository } from '../src/modules/memory/memories.repository.js';
import { createSearchRepository } from '../src/modules/memory/search.repository.js';
import { CATEGORY_NAMES, parseEvidence, turnsOf, type Sample, type Turn } from './lib/locomo.js';
import { arg, printTable, summarize } from './lib/measure.js';
import { createBm25 } from './lib/bm25.js';

const KS = [5, 10, 25, 50] as const;
/** DRAGON retrieval recall@k over dialog turns, all ten conversations (LoCoMo paper, via the data README). */
const DRAGON: Record<string, number> = { '5': 0.567, '10': 0.662, '25': 0.767, '50': 0.827 };
const turnText = (turn: Turn) =>
  `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [image: ${turn.blip_caption}]` : ''}`;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

type Recalls = Record<string, number>;
interface Bucket {
  n: number;
  ours: number[];
  bm25: number[];
  flat: number[];
}

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
  const latencies: number[] = [];
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
      const search = async (recencyWeight?: number) => {
        const t0 = performance.now();
        const reply = await searchMemory({
          tenantId,
          query: qa.question,
          filters: { scope: 'channel', scopeKey: sample.sample_id },
          sources: ['memories'],
          maxResults: 50,
          now: end,
          ...(recencyWeight !== undefined ? { recencyWeight } : {}),
        });
        if (recencyWeight === undefined) latencies.push(performance.now() - t0);
        return reply.results.flatMap((r) => diaIdsByMemory.get(r.id) ?? []);
      };
      const ours = await search();
      const flat = await search(0);
      const bm25Ranked = bm25(qa.question, 50);
      const recall = (ranked: string[], k: number) => {
        const top = new Set(ranked.slice(0, k));
        return evidence.filter((e) => top.has(e)).length / evidence.length;
      };
      const bucket = buckets.get(qa.category) ?? {
        n: 0,
        ours: KS.map(() => 0),
        bm25: KS.map(() => 0),
        flat: KS.map(() => 0),
      };
      bucket.n += 1;
      KS.forEach((k, i) => {
        bucket.ours[i]! += recall(ours, k);
        bucket.bm25[i]! += recall(bm25Ranked, k);
        bucket.flat[i]! += recall(flat, k);
      });
      buckets.set(qa.category, bucket);
    }
  }
  const elapsed = (performance.now() - started) / 1000;

  const combine = (categories: number[], key: 'ours' | 'bm25' | 'flat') => {
    const parts = categories.map((c) => buckets.get(c)).filter((b): b is Bucket => Boolean(b));
    const n = parts.reduce((s, b) => s + b.n, 0);
    const out: Recalls = {};
    KS.forEach((k, i) => {
      out[String(k)] = n ? parts.reduce((s, b) => s + b[key][i]!, 0) / n : 0;
    });
    return { n, recalls: out };
  };
  const headline = [1, 2, 3, 4];
  const ours = combine(headline, 'ours');
  const bm25 = combine(headline, 'bm25');
  const flat = combine(headline, 'flat');
  const perCategory: Record<
    string,
    { name: string; questions: number; recall_at: Recalls; bm25_at: Recalls }
  > = {};
  for (const c of [...buckets.keys()].sort()) {
    perCategory[String(c)] = {
      name: CATEGORY_NAMES[c] ?? 'unknown',
      questions: buckets.get(c)!.n,
      recall_at: combine([c], 'ours').recalls,
      bm25_at: combine([c], 'bm25').recalls,
    };
  }

  const searchLatency = summarize(latencies);
  console.log(
    `\nLoCoMo search recall@k — ${samples.length} conversations, ${indexedTurns} turns indexed as memories (${deduplicated} deduplicated), ${ours.n} questions in categories 1–4, ${skippedNoEvidence} without evidence skipped; ${database.kind}, ${elapsed.toFixed(1)} s`,
  );
  const row = (name: string, r: Recalls) => ({
    'categories 1–4': name,
    ...Object.fromEntries(KS.map((k) => [`@${k}`, pct(r[String(k)]!)])),
  });
  printTable('Recall@k, categories 1–4', [
    row('contextd search', ours.recalls),
    row('contextd search without recency', flat.recalls),
    row('plain BM25 (same turns)', bm25.recalls),
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
  console.log(
    `\nsearch latency per question (${database.kind}, ~${Math.round(indexedTurns / samples.length)} memories per scope): p50 ${searchLatency.p50.toFixed(2)} ms, p99 ${searchLatency.p99.toFixed(2)} ms`,
  );

  if (args.json) {
    const result = {
      recall_at: ours.recalls,
      bm25_at: bm25.recalls,
      per_category: perCategory,
      questions: ours.n,
      category_5: perCategory['5'] ?? null,
      recall_at_without_recency: flat.recalls,
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
