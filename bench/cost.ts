// What a bot pays in input tokens with contextd, against a naive bot on the same turns, both billed
// by the product's cost model (docs/cost-model.md), through the real HTTP service (embedded
// PGlite in memory, the extractive summarizer: no API key).
//
//   npm run bench:cost                                     (everything: a few tens of minutes)
//   npm run bench:cost -- --quick                          (a few minutes: 80 turns, 30 questions, 2,000 channel lines)
//   npm run bench:cost -- --data FILE --irc DIR --turns N --conversations N --questions N --channel-lines N --json out.json
//   npm run bench:cost -- --request '24k window' --channel-lines 10       (the 24k DM runs alone: 2–3 min)
//
// DM: each LoCoMo conversation (default ../shared/data/locomo/locomo-dev.json) is a DM session:
// speaker_a the user, speaker_b the assistant, consecutive lines of one speaker merged, turns 60 s
// apart within a LoCoMo session and sessions at their own dates (so each starts cold). Every user
// turn is a context call (then the assistant turn is recorded, as a bot does); configurations: the
// default request, and budget.total = 24,000. The naive bot on the same turns: whole history,
// breakpoints on its system block and the last user message, oldest exchanges dropped to 60% of the
// window when full. After each conversation every question (categories 1–4) is asked (dry run) and
// the evidence turns present in each payload are counted.
// Busy channel: the dev Ubuntu IRC lines (../shared/data/ubuntu-irc/dev) ingested into one channel
// at their logged times, the bot mentioned every 20th line (a context call anchored on it); the naive
// channel bot sends its own exchanges plus the last 30 channel lines in the user turn.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { closeDeps, createDeps } from '../src/deps.js';
import type { PromptPayload } from '../src/modules/context/core/prompt-blocks.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { benchConfig } from './lib/bench-app.js';
import { addTotals, benchEstimator, createLedger, type LedgerTotals } from './lib/cost-ledger.js';
import { dialogOf, parseEvidence, payloadStrings, turnsOf, turnText, type Sample } from './lib/locomo.js';
import { arg, percentile, printTable } from './lib/measure.js';
import { createNaiveBot } from './lib/naive-bot.js';

const quick = process.argv.includes('--quick');
const numberArg = (name: string, quickValue: number) => {
  const value = arg(name);
  return value !== undefined ? Number(value) : quick ? quickValue : Infinity;
};
const ARGS = {
  data: arg('data') ?? join(import.meta.dirname, '../../shared/data/locomo/locomo-dev.json'),
  irc: arg('irc') ?? join(import.meta.dirname, '../../shared/data/ubuntu-irc/dev'),
  json: arg('json'),
  /** User turns per conversation. */
  turns: numberArg('turns', 80),
  conversations: numberArg('conversations', Infinity),
  questions: numberArg('questions', 30),
  channelLines: numberArg('channel-lines', 2000),
  /** Only the DM request with this label ("default", "24k window"). */
  request: arg('request'),
};
/** Every 20th channel line mentions the bot. */
const MENTION_EVERY = 20;
/** Channel lines the naive channel bot puts in its user turn. */
const NAIVE_CHANNEL_LINES = 30;
const CONFIGURATIONS = [
  { label: 'default', budget: undefined },
  { label: '24k window', budget: { total: 24_000 } },
] as const;
/** The bot's own system prompt: sent by both bots (to contextd as a cacheable section). */
const BOT_SYSTEM = [
  'You are Sam, a friendly assistant who chats with one person over many weeks.',
  'Remember what they tell you about their life, work, family, hobbies and plans, and bring it up when it helps.',
  'Answer in a warm, natural tone, in two to four sentences unless they ask for more.',
  'When you do not know something about them, say so instead of guessing, and ask.',
  'Dates matter: when they mention an event, keep track of when it happened relative to today.',
].join(' ');
const estimator = benchEstimator();

interface ContextReply {
  payload: PromptPayload & { model?: string };
  /** `cost`: the product's own expected bill of this payload, when the service reports one. */
  budget: { effective_window: number; cost?: { billed_input: number } };
  compaction: { action: 'none' | 'truncated' | 'scheduled' | 'compacted' };
  context: { retrieved: { tokens: number }[]; lane: { lane_key: string } };
}
type Inject = (method: 'GET' | 'POST', url: string, body?: unknown) => Promise<LightMyRequestResponse>;

interface RunStats {
  label: string;
  turns: number;
  contextd: LedgerTotals;
  naive: LedgerTotals;
  /** The session's compaction_count after the run. */
  compaction_count: number;
  /** Replies whose `compaction.action` was compacted (before the payload) or scheduled (a job). */
  replies_compacted: number;
  replies_scheduled: number;
  conflicts_409: number;
  /** Per question: the share of its evidence turns in the payload. */
  recall: { contextd: number[]; naive: number[] };
  retrieved_tokens: number[];
  /** The billed input the service itself reported (budget.cost), summed over the calls that had one. */
  reported: { calls: number; billed_input: number };
}

function emptyRun(label: string): RunStats {
  const zero = createLedger('', estimator).totals();
  return {
    label,
    turns: 0,
    contextd: zero,
    naive: structuredClone(zero),
    compaction_count: 0,
    replies_compacted: 0,
    replies_scheduled: 0,
    conflicts_409: 0,
    recall: { contextd: [], naive: [] },
    retrieved_tokens: [],
    reported: { calls: 0, billed_input: 0 },
  };
}

async function openService() {
  const deps = await createDeps(benchConfig());
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    async tenant(tenantId: string): Promise<Inject> {
      const key = generateApiKey();
      await app.services.tenants.ensureTenant({ tenantId });
      await app.services.tenants.addApiKey({ tenantId, key, name: 'bench' });
      return (method, url, body) =>
        app.inject({ method, url, payload: body as never, headers: { authorization: `Bearer ${key}` } });
    },
    async close() {
      await app.close();
      await closeDeps(deps);
    },
  };
}

const ok = async (response: Promise<LightMyRequestResponse>) => {
  const r = await response;
  if (r.statusCode >= 300) throw new Error(`${r.statusCode} ${r.body}`);
  return r;
};

/** A context call as a sequential bot makes it: a 409 is counted and the call made again. */
async function contextCall(
  inject: Inject,
  session: string,
  body: unknown,
  run: RunStats,
): Promise<ContextReply> {
  for (let attempt = 0; ; attempt += 1) {
    const r = await inject('POST', `/v1/sessions/${session}/context`, body);
    if (r.statusCode === 409 && attempt < 5) {
      run.conflicts_409 += 1;
      continue;
    }
    if (r.statusCode >= 300) throw new Error(`context: ${r.statusCode} ${r.body}`);
    return r.json() as ContextReply;
  }
}

function noteReply(run: RunStats, reply: ContextReply): void {
  if (reply.compaction.action === 'compacted') run.replies_compacted += 1;
  if (reply.compaction.action === 'scheduled') run.replies_scheduled += 1;
  run.retrieved_tokens.push(reply.context.retrieved.reduce((s, r) => s + r.tokens, 0));
  if (typeof reply.budget.cost?.billed_input === 'number') {
    run.reported.calls += 1;
    run.reported.billed_input += reply.budget.cost.billed_input;
  }
}

async function compactionCount(inject: Inject, session: string): Promise<number> {
  const r = await ok(inject('GET', `/v1/sessions/${session}`));
  return (r.json() as { compaction_count: number }).compaction_count;
}

/** One LoCoMo conversation as a DM session under one configuration. */
async function runDialog(
  inject: Inject,
  sample: Sample,
  config: (typeof CONFIGURATIONS)[number],
  run: RunStats,
): Promise<void> {
  const speakerA = String(sample.conversation.speaker_a);
  const session = (
    await ok(
      inject('POST', '/v1/sessions', {
        agent_id: 'bench',
        platform: 'slack',
        chat_type: 'dm',
        user_id: speakerA.toLowerCase(),
      }),
    )
  ).json().session.id as string;
  const system = [{ name: 'persona', text: BOT_SYSTEM, cacheable: true }];
  const contextd = createLedger('', estimator);
  const naiveLedger = createLedger('', estimator);
  let naive: ReturnType<typeof createNaiveBot> | null = null;
  const dialog = dialogOf(sample);
  let userTurns = 0;
  let last = dialog[0]!.at;
  const driven = new Set<string>();
  for (let i = 0; i < dialog.length && userTurns < ARGS.turns; i += 1) {
    const turn = dialog[i]!;
    last = turn.at;
    turn.ids.forEach((id) => driven.add(id));
    if (turn.role === 'assistant') {
      await ok(
        inject('POST', `/v1/sessions/${session}/turns`, {
          turns: [{ role: 'assistant', content: turn.text, time: turn.at.toISOString() }],
        }),
      );
      naive?.record(null, turn.text);
      continue;
    }
    userTurns += 1;
    const reply = await contextCall(
      inject,
      session,
      {
        message: { content: turn.text, time: turn.at.toISOString() },
        system,
        ...(config.budget ? { budget: config.budget } : {}),
      },
      run,
    );
    noteReply(run, reply);
    const model = reply.payload.model ?? 'claude-sonnet-5-5';
    contextd.bill({ ...reply.payload, model }, turn.at);
    naive ??= createNaiveBot({ system: BOT_SYSTEM, window: reply.budget.effective_window, estimator });
    naiveLedger.bill({ ...naive.payload(turn.text), model }, turn.at);
    const next = dialog[i + 1];
    if (next?.role === 'assistant') {
      await ok(
        inject('POST', `/v1/sessions/${session}/turns`, {
          turns: [{ role: 'assistant', content: next.text, time: next.at.toISOString() }],
        }),
      );
      naive.record(turn.text, next.text);
      next.ids.forEach((id) => driven.add(id));
      last = next.at;
      i += 1;
    } else naive.record(turn.text, null);
  }

  // The questions whose evidence was said, after the conversation (dry runs: nothing is stored or billed).
  const byId = new Map(turnsOf(sample).map(({ turn }) => [turn.dia_id, turnText(turn)]));
  const evidenceOf = (q: Sample['qa'][number]) => parseEvidence(q.evidence).filter((id) => byId.has(id));
  const askAt = new Date(last.getTime() + 60_000).toISOString();
  const asked = sample.qa
    .filter((q) => {
      const evidence = evidenceOf(q);
      return q.category !== 5 && evidence.length > 0 && evidence.every((id) => driven.has(id));
    })
    .slice(0, ARGS.questions);
  for (const q of asked) {
    const evidence = evidenceOf(q);
    const share = (strings: string[]) =>
      evidence.filter((id) => strings.some((s) => s.includes(byId.get(id)!))).length / evidence.length;
    const reply = await contextCall(
      inject,
      session,
      {
        message: { content: q.question, time: askAt },
        system,
        ...(config.budget ? { budget: config.budget } : {}),
        dry_run: true,
      },
      run,
    );
    run.recall.contextd.push(share(payloadStrings(reply.payload as never, q.question)));
    if (naive) run.recall.naive.push(share(payloadStrings(naive.payload(q.question) as never, q.question)));
  }
  run.turns += userTurns;
  run.compaction_count += await compactionCount(inject, session);
  run.contextd = addTotals(run.contextd, contextd.totals());
  run.naive = addTotals(run.naive, naiveLedger.totals());
}

interface IrcLine {
  id: string;
  nick: string;
  text: string;
  at: Date;
}

/** The dev IRC excerpts in time order, one line each; a minute's lines spread evenly over it. */
function ircLines(dir: string, limit: number): IrcLine[] {
  const out: IrcLine[] = [];
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.ascii.txt'))
    .sort();
  for (const file of names) {
    const date = file.split('_')[0]!;
    const parsed = readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .map((line, i) => ({ i, m: /^\[(\d\d):(\d\d)\] <([^>]+)> ?(.*)$/.exec(line) }))
      .filter((x): x is { i: number; m: RegExpExecArray } => x.m !== null && x.m[4]!.trim() !== '');
    const perMinute = new Map<string, number>();
    for (const { m } of parsed) perMinute.set(`${m[1]}:${m[2]}`, (perMinute.get(`${m[1]}:${m[2]}`) ?? 0) + 1);
    const seen = new Map<string, number>();
    let dayOffset = 0;
    let previousMinute = -1;
    for (const { i, m } of parsed) {
      const key = `${m[1]}:${m[2]}`;
      const minute = Number(m[1]) * 60 + Number(m[2]);
      // An excerpt that runs past midnight: its clock wraps.
      if (minute < previousMinute - 60) dayOffset += 1;
      previousMinute = minute;
      const k = seen.get(key) ?? 0;
      seen.set(key, k + 1);
      const at = Date.parse(`${date}T00:00:00Z`) + (dayOffset * 1440 + minute) * 60_000;
      out.push({
        id: `${file.replace('.ascii.txt', '')}:${i}`,
        nick: m[3]!,
        text: m[4]!,
        at: new Date(at + Math.floor((k * 60_000) / perMinute.get(key)!)),
      });
      if (out.length >= limit) return out;
    }
  }
  return out;
}

async function runChannel(inject: Inject, lines: IrcLine[], run: RunStats): Promise<void> {
  const channelId = 'ubuntu';
  const session = (
    await ok(
      inject('POST', '/v1/sessions', {
        agent_id: 'bench',
        platform: 'slack',
        chat_type: 'channel',
        channel_id: channelId,
      }),
    )
  ).json().session.id as string;
  const system = [{ name: 'persona', text: BOT_SYSTEM, cacheable: true }];
  const contextd = createLedger('', estimator);
  const naiveLedger = createLedger('', estimator);
  let naive: ReturnType<typeof createNaiveBot> | null = null;
  let sent = 0;
  for (let i = MENTION_EVERY - 1; i < lines.length - 1; i += MENTION_EVERY) {
    const mention = lines[i]!;
    for (let from = sent; from <= i; from += 500) {
      await ok(
        inject('POST', '/v1/events', {
          events: lines.slice(from, Math.min(i + 1, from + 500)).map((l) => ({
            type: 'message.created',
            platform: 'slack',
            channel_id: channelId,
            message_id: l.id,
            ts: l.at.toISOString(),
            author: { id: l.nick, name: l.nick },
            text: l.text,
          })),
        }),
      );
    }
    sent = i + 1;
    const reply = await contextCall(
      inject,
      session,
      {
        message: {
          content: mention.text,
          source: { platform: 'slack', channel_id: channelId, message_id: mention.id },
          author: { id: mention.nick, name: mention.nick },
          time: mention.at.toISOString(),
        },
        system,
      },
      run,
    );
    noteReply(run, reply);
    run.turns += 1;
    const model = reply.payload.model ?? 'claude-sonnet-5-5';
    contextd.bill({ ...reply.payload, model }, mention.at);
    // The bot's answer: the next line said in the channel (real text of a plausible length).
    const answer = lines[i + 1]!.text;
    const answeredAt = new Date(mention.at.getTime() + 1000);
    await ok(
      inject('POST', `/v1/sessions/${session}/turns`, {
        turns: [
          {
            role: 'assistant',
            content: answer,
            time: answeredAt.toISOString(),
            lane_key: reply.context.lane.lane_key,
          },
        ],
      }),
    );
    naive ??= createNaiveBot({ system: BOT_SYSTEM, window: reply.budget.effective_window, estimator });
    const recent = lines
      .slice(Math.max(0, i + 1 - NAIVE_CHANNEL_LINES), i + 1)
      .map((l) => `<${l.nick}> ${l.text}`)
      .join('\n');
    const user = `Recent channel messages:\n${recent}\n\n${mention.nick} asks: ${mention.text}`;
    naiveLedger.bill({ ...naive.payload(user), model }, mention.at);
    naive.record(user, answer);
  }
  run.compaction_count += await compactionCount(inject, session);
  run.contextd = addTotals(run.contextd, contextd.totals());
  run.naive = addTotals(run.naive, naiveLedger.totals());
}

const mean = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '–');
const num = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');
const perTurn = (t: LedgerTotals) => t.billed_input / Math.max(1, t.calls);

function summary(run: RunStats) {
  const per = (n: number, every: number) => (run.turns === 0 ? NaN : (n * every) / run.turns);
  return {
    label: run.label,
    turns: run.turns,
    billed_input_per_turn: { contextd: perTurn(run.contextd), naive: perTurn(run.naive) },
    ratio_to_naive: perTurn(run.contextd) / perTurn(run.naive),
    cache_read_share: {
      contextd: run.contextd.cache_read / Math.max(1, run.contextd.input_tokens),
      naive: run.naive.cache_read / Math.max(1, run.naive.input_tokens),
    },
    payload_tokens: {
      contextd: run.contextd.input_tokens / Math.max(1, run.contextd.calls),
      naive: run.naive.input_tokens / Math.max(1, run.naive.calls),
    },
    compactions_per_100_turns: per(run.compaction_count, 100),
    compactions_per_20_turns: per(run.compaction_count, 20),
    replies_compacted_per_100_turns: per(run.replies_compacted, 100),
    replies_scheduled_per_100_turns: per(run.replies_scheduled, 100),
    conflicts_409: run.conflicts_409,
    evidence_recall: { contextd: mean(run.recall.contextd), naive: mean(run.recall.naive) },
    questions: run.recall.contextd.length,
    /** The service's own bill per turn (budget.cost), beside the bench's: null when it reports none. */
    reported_billed_input_per_turn:
      run.reported.calls === 0 ? null : run.reported.billed_input / run.reported.calls,
    median_retrieved_tokens: percentile(
      [...run.retrieved_tokens].sort((a, b) => a - b),
      50,
    ),
    basis: { contextd: run.contextd.basis, naive: run.naive.basis },
    totals: { contextd: run.contextd, naive: run.naive },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const service = await openService();
  const results: ReturnType<typeof summary>[] = [];
  try {
    if (!existsSync(ARGS.data)) {
      console.log(
        `LoCoMo data not found at ${ARGS.data}: skipping the DM runs (see ../shared/data/locomo/README.md).`,
      );
    } else {
      const samples = (JSON.parse(readFileSync(ARGS.data, 'utf8')) as Sample[]).slice(0, ARGS.conversations);
      for (const config of CONFIGURATIONS.filter((c) => !ARGS.request || c.label === ARGS.request)) {
        const run = emptyRun(config.label);
        for (const sample of samples) {
          const inject = await service.tenant(`cost_${config.label.replace(/\W/g, '')}_${sample.sample_id}`);
          await runDialog(inject, sample, config, run);
          console.error(`${config.label}: ${sample.sample_id} done (${run.turns} turns so far)`);
        }
        results.push(summary(run));
      }
    }
    if (!existsSync(ARGS.irc)) {
      console.log(`Ubuntu IRC data not found at ${ARGS.irc}: skipping the busy channel.`);
    } else {
      const run = emptyRun('busy channel');
      await runChannel(await service.tenant('cost_channel'), ircLines(ARGS.irc, ARGS.channelLines), run);
      results.push(summary(run));
    }
  } finally {
    await service.close();
  }

  const dm = results.filter((r) => r.label !== 'busy channel');
  printTable(
    'DM sessions (LoCoMo): contextd vs the naive bot, input billed in base-input tokens',
    dm.map((r) => ({
      request: r.label,
      turns: r.turns,
      'billed/turn': num(r.billed_input_per_turn.contextd),
      'reported billed/turn':
        r.reported_billed_input_per_turn === null ? '–' : num(r.reported_billed_input_per_turn),
      'naive billed/turn': num(r.billed_input_per_turn.naive),
      ratio: `${r.ratio_to_naive.toFixed(2)}×`,
      'cache read': pct(r.cache_read_share.contextd),
      'naive cache read': pct(r.cache_read_share.naive),
      'compactions/100 turns': r.compactions_per_100_turns.toFixed(1),
      'replies compacted/scheduled per 100': `${r.replies_compacted_per_100_turns.toFixed(1)} / ${r.replies_scheduled_per_100_turns.toFixed(1)}`,
      '409s': r.conflicts_409,
      'evidence recall': pct(r.evidence_recall.contextd),
      'naive recall': pct(r.evidence_recall.naive),
      questions: r.questions,
      'payload tokens': num(r.payload_tokens.contextd),
      'naive payload': num(r.payload_tokens.naive),
    })),
  );
  const channel = results.find((r) => r.label === 'busy channel');
  if (channel) {
    printTable('Busy channel (Ubuntu IRC): contextd vs the naive channel bot (last 30 lines)', [
      {
        mentions: channel.turns,
        'median retrieved tokens': num(channel.median_retrieved_tokens),
        'compactions/20 turns': channel.compactions_per_20_turns.toFixed(2),
        '409s': channel.conflicts_409,
        'billed/turn': num(channel.billed_input_per_turn.contextd),
        'reported billed/turn':
          channel.reported_billed_input_per_turn === null ? '–' : num(channel.reported_billed_input_per_turn),
        'naive billed/turn': num(channel.billed_input_per_turn.naive),
        ratio: `${channel.ratio_to_naive.toFixed(2)}×`,
        'cache read': pct(channel.cache_read_share.contextd),
        'naive cache read': pct(channel.cache_read_share.naive),
        'payload tokens': num(channel.payload_tokens.contextd),
        'naive payload': num(channel.payload_tokens.naive),
      },
    ]);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nlimits: ${ARGS.turns} user turns/conversation, ${ARGS.conversations} conversations, ${ARGS.questions} questions/conversation, ${ARGS.channelLines} channel lines; ${seconds.toFixed(0)} s`,
  );
  if (ARGS.json) writeFileSync(ARGS.json, JSON.stringify({ args: ARGS, results }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
