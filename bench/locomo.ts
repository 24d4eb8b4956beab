// LoCoMo E1 and E2 (../shared/data/locomo/README.md) through the real HTTP API of contextd: how
// many annotated evidence turns the assembled payload holds at a fixed context budget, against the
// recency-only baseline (the most recent turns whose full text fits the budget).
//
//   npm run bench:locomo -- --data ../shared/data/locomo/locomo-dev.json --json locomo.json
//
// E1 (channel): each conversation is one channel, every turn a message.created event; each question
// is a new message of a session in that channel (dry run) with budget.max_context_tokens = B.
// E2 (session): each conversation is one session transcript (speaker_a user, speaker_b assistant);
// each question is the next user turn (dry run). Embedded PGlite in memory.
// Beside evidence recall: answer presence (AP, bench/lib/answer-presence.ts), item-wise, of the
// payload and of the recency baseline (its lines and their days).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { createDeps, closeDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import {
  CATEGORY_NAMES,
  parseEvidence,
  payloadStrings,
  turnsOf,
  turnText,
  type Sample,
} from './lib/locomo.js';
import { answerPresence } from './lib/answer-presence.js';
import { bm25Pack, createBm25 } from './lib/bm25.js';

const BUDGETS = [1000, 1764, 4000, 8000] as const;
const CATEGORIES = [1, 2, 3, 4, 5] as const;

function parseArgs(argv: string[]) {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    data: get('data') ?? '../shared/data/locomo/locomo-dev.json',
    json: get('json'),
    limit: get('questions') ? Number(get('questions')) : undefined,
    /** `--only e1`: skip E2 (a shorter run while tuning retrieval). */
    only: get('only') as 'e1' | 'e2' | undefined,
  };
}

/** Tokens of contextd's material by the reference tokenizer: everything but the question itself. */
function referenceTokens(payload: { messages: { content: unknown }[] }, question: string): number {
  let total = 0;
  for (const message of payload.messages) {
    const blocks = Array.isArray(message.content)
      ? (message.content as { type: string; text?: string }[])
      : [];
    for (const block of blocks)
      if (block.type === 'text' && block.text && block.text !== question) total += countTokens(block.text);
  }
  return total;
}

type Cell = {
  recall: number[];
  baseline: number[];
  bm25: number[];
  tokens: number[];
  service: number[];
  /** Answer presence (bench/lib/answer-presence.ts) of contextd's payload and of the recency baseline. */
  presence: number[];
  baselinePresence: number[];
};
const emptyCell = (): Cell => ({
  recall: [],
  baseline: [],
  bm25: [],
  tokens: [],
  service: [],
  presence: [],
  baselinePresence: [],
});
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(args.data)) {
    console.log(`LoCoMo data not found at ${args.data}; skipping (see ../shared/data/locomo/README.md).`);
    return;
  }
  const samples = JSON.parse(readFileSync(args.data, 'utf8')) as Sample[];
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: 'memory://' });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const tenantId = 'locomo';
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId });
  await app.services.tenants.addApiKey({ tenantId, key, name: 'bench' });
  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, payload: payload as never, headers: { authorization: `Bearer ${key}` } });

  // results[experiment][budget][category]
  const results: Record<'e1' | 'e2', Record<number, Record<number, Cell>>> = { e1: {}, e2: {} };
  for (const e of ['e1', 'e2'] as const) {
    for (const b of BUDGETS) results[e][b] = Object.fromEntries(CATEGORIES.map((c) => [c, emptyCell()]));
  }
  let questions = 0;
  let skipped = 0;
  const started = performance.now();
  let calls = 0;

  for (const sample of samples) {
    const turns = turnsOf(sample);
    const byId = new Map(turns.map(({ turn }) => [turn.dia_id, turnText(turn)]));
    const lastAt = turns.at(-1)!.at;
    const askAt = new Date(lastAt.getTime() + 3_600_000).toISOString();
    const speakerA = String(sample.conversation.speaker_a);
    // Plain BM25 packing over the same turns (bench/lib/bm25.ts), by the reference tokenizer.
    const lineOf = new Map(
      turns.map(({ turn }) => [turn.dia_id, `${turn.speaker}: ${byId.get(turn.dia_id)!}`]),
    );
    const lineTokens = new Map([...lineOf].map(([id, line]) => [id, countTokens(line)]));
    const bm25 = createBm25([...lineOf].map(([id, text]) => ({ id, text })));

    // E1: the conversation as one channel.
    const channelId = `locomo-${sample.sample_id}`;
    for (let i = 0; i < turns.length; i += 500) {
      const r = await inject('POST', '/v1/events', {
        events: turns.slice(i, i + 500).map(({ turn, at }) => ({
          type: 'message.created',
          platform: 'slack',
          channel_id: channelId,
          message_id: turn.dia_id,
          ts: at.toISOString(),
          author: { id: turn.speaker, name: turn.speaker },
          text: turnText(turn),
        })),
      });
      if (r.statusCode !== 200) throw new Error(`ingest failed: ${r.body}`);
    }
    const e1Session = (
      await inject('POST', '/v1/sessions', {
        agent_id: 'bench',
        platform: 'slack',
        chat_type: 'channel',
        channel_id: channelId,
      })
    ).json().session.id as string;

    // E2: the conversation as one session transcript.
    const e2Session = (
      await inject('POST', '/v1/sessions', { session_key: `locomo-e2-${sample.sample_id}` })
    ).json().session.id as string;
    for (let i = 0; i < turns.length; i += 100) {
      const r = await inject('POST', `/v1/sessions/${e2Session}/turns`, {
        turns: turns.slice(i, i + 100).map(({ turn, at }) => ({
          role: turn.speaker === speakerA ? 'user' : 'assistant',
          content: turnText(turn),
          time: at.toISOString(),
        })),
      });
      if (r.statusCode >= 300) throw new Error(`append failed: ${r.body}`);
    }

    const qa = args.limit ? sample.qa.slice(0, args.limit) : sample.qa;
    for (const q of qa) {
      const evidence = parseEvidence(q.evidence).filter((id) => byId.has(id));
      if (evidence.length === 0) {
        skipped += 1;
        continue;
      }
      questions += 1;
      const answer = String(q.answer ?? q.adversarial_answer ?? '');
      const ranked = bm25(q.question, turns.length);
      for (const budget of BUDGETS) {
        // Baseline: the most recent turns whose full text fits the budget (reference tokenizer).
        const recent = new Set<string>();
        let used = 0;
        for (let i = turns.length - 1; i >= 0; i -= 1) {
          const tokens = countTokens(lineOf.get(turns[i]!.turn.dia_id)!);
          if (used + tokens > budget) break;
          used += tokens;
          recent.add(turns[i]!.turn.dia_id);
        }
        const baseline = evidence.filter((id) => recent.has(id)).length / evidence.length;
        // The recency baseline's payload, dated as contextd dates retrieved rows (its day).
        const baselinePresence = answerPresence(answer, [
          ...[...recent].map((id) => lineOf.get(id)!),
          ...new Set(
            turns
              .filter(({ turn }) => recent.has(turn.dia_id))
              .map(({ at }) => at.toISOString().slice(0, 10)),
          ),
        ]);
        const packed = bm25Pack(ranked, (id) => lineTokens.get(id)!, budget);
        const bm25Recall = evidence.filter((id) => packed.has(id)).length / evidence.length;

        for (const [experiment, sessionId] of (
          [
            ['e1', e1Session],
            ['e2', e2Session],
          ] as const
        ).filter(([e]) => !args.only || e === args.only)) {
          const response = await inject('POST', `/v1/sessions/${sessionId}/context`, {
            message: { content: q.question, time: askAt },
            budget: { max_context_tokens: budget },
            dry_run: true,
          });
          calls += 1;
          if (response.statusCode !== 200)
            throw new Error(`context failed (${experiment}): ${response.body}`);
          const body = response.json() as {
            payload: { messages: { content: unknown }[] };
            budget: { added: number };
          };
          const strings = payloadStrings(body.payload, q.question);
          const present = evidence.filter((id) => strings.some((s) => s.includes(byId.get(id)!))).length;
          const cell = results[experiment][budget]![q.category]!;
          cell.recall.push(present / evidence.length);
          cell.baseline.push(baseline);
          cell.bm25.push(bm25Recall);
          cell.tokens.push(referenceTokens(body.payload, q.question));
          cell.service.push(body.budget.added);
          const presence = answerPresence(answer, strings);
          if (presence !== null) cell.presence.push(presence);
          if (baselinePresence !== null) cell.baselinePresence.push(baselinePresence);
        }
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;

  const headline = (e: 'e1' | 'e2', b: number, field: keyof Cell) =>
    mean(CATEGORIES.filter((c) => c !== 5).flatMap((c) => results[e][b]![c]![field]));
  const out: Record<string, unknown> = { questions, skipped_without_evidence: skipped };
  for (const e of (['e1', 'e2'] as const).filter((x) => !args.only || x === args.only)) {
    console.log(
      `\n${e.toUpperCase()} — evidence recall (categories 1–4) vs plain BM25 packing and recency, by budget`,
    );
    console.log(
      'budget | recall | BM25 packing | recency | ref tokens (mean) | service added (mean) | AP | recency AP',
    );
    const table: Record<string, unknown> = {};
    for (const b of BUDGETS) {
      const row = {
        recall: headline(e, b, 'recall'),
        baseline: headline(e, b, 'baseline'),
        bm25: headline(e, b, 'bm25'),
        tokens: headline(e, b, 'tokens'),
        service_tokens: headline(e, b, 'service'),
        answer_presence: headline(e, b, 'presence'),
        recency_answer_presence: headline(e, b, 'baselinePresence'),
        per_category: Object.fromEntries(
          CATEGORIES.map((c) => [
            CATEGORY_NAMES[c],
            {
              recall: mean(results[e][b]![c]!.recall),
              baseline: mean(results[e][b]![c]!.baseline),
              bm25: mean(results[e][b]![c]!.bm25),
              n: results[e][b]![c]!.recall.length,
            },
          ]),
        ),
      };
      table[String(b)] = row;
      console.log(
        `${String(b).padStart(6)} | ${pct(row.recall).padStart(6)} | ${pct(row.bm25).padStart(12)} | ${pct(row.baseline).padStart(7)} | ${row.tokens.toFixed(0).padStart(17)} | ${row.service_tokens.toFixed(0).padStart(20)}` +
          ` | ${pct(row.answer_presence).padStart(5)} | ${pct(row.recency_answer_presence).padStart(10)}`,
      );
    }
    console.log('per category: recall / BM25 packing / recency');
    for (const b of BUDGETS) {
      console.log(
        `${String(b).padStart(6)} | ` +
          CATEGORIES.map((c) => {
            const cell = results[e][b]![c]!;
            return `${CATEGORY_NAMES[c]} ${pct(mean(cell.recall))} / ${pct(mean(cell.bm25))} / ${pct(mean(cell.baseline))}`;
          }).join(' | '),
      );
    }
    out[e] = table;
  }
  console.log(
    `\n${questions} questions (${skipped} without evidence skipped), ${calls} context calls in ${seconds.toFixed(1)} s`,
  );
  console.log(
    'Published (all ten conversations): plain BM25 greedy packing 65.7% @1,000, 69.6% @1,764, 76.2% @3,911, 82.3% @8,000.',
  );
  if (args.json) writeFileSync(args.json, JSON.stringify(out, null, 2));
  await app.close();
  await closeDeps(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
