// Compaction, measured through the real HTTP API on embedded PGlite (extractive summarizer):
//
//   npm run bench:compaction -- --data ../shared/data/locomo/locomo-dev.json [--questions N] [--turns 500]
//
// 1. LoCoMo E2 (../shared/data/locomo/README.md): each conversation is one session transcript;
//    each question is the next user turn (dry run) at budget.max_context_tokens B. Three ways:
//    the recency baseline (latest turns that fit), truncation only (no compaction ever ran: the
//    payload drops the oldest turns), and compaction on (turns appended in batches of 20, each
//    followed by the compaction the background job would run, then the view change the caller's
//    first context call at B makes: its provider cache is cold, so a view over half of B is
//    compacted against B before assembling, docs/compaction.md; one session per budget, since
//    that compaction depends on B). Evidence recall, strict answer
//    presence (the normalized answer string) and AP (item-wise, bench/lib/answer-presence.ts),
//    categories 1–4.
// 2. A 500-turn bot loop (context call, then the assistant's answer), with and without
//    compaction: tokens sent per turn, and the share of each payload's messages that repeat the
//    previous payload's (cache-prefix reuse) between compactions.
// 3. Compaction latency and summarizer input/output per compaction.
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { generateApiKey } from '../src/modules/tenants/tenants.repository.js';
import { coldViewChangeDue } from '../src/modules/context/context.compaction.js';
import { compactionDefaults } from '../src/modules/compaction/core/types.js';
import { MESSAGE_OVERHEAD_TOKENS } from '../src/shared/tokens.js';
import { answerPresence } from './lib/answer-presence.js';
import { normalize, parseEvidence, payloadStrings, turnsOf, turnText, type Sample } from './lib/locomo.js';

const BUDGETS = [1000, 1764, 4000, 8000] as const;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;

async function main() {
  const data = arg('data') ?? '../shared/data/locomo/locomo-dev.json';
  const limit = arg('questions') ? Number(arg('questions')) : undefined;
  const loopTurns = Number(arg('turns') ?? 500);
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    COMPACTION_WORKERS: '0',
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  const tenantId = 'bench';
  const key = generateApiKey();
  await app.services.tenants.ensureTenant({ tenantId });
  await app.services.tenants.addApiKey({ tenantId, key, name: 'bench' });
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
  const compactions: { ms: number; before: number; after: number }[] = [];
  const compact = async (sessionId: string, force = false) => {
    const started = performance.now();
    const result = await inject('POST', `/v1/sessions/${sessionId}/compact`, { wait: true, force });
    const committed = (result.lanes as { outcome: string }[]).some((l) => l.outcome === 'committed');
    if (committed) {
      compactions.push({
        ms: performance.now() - started,
        before: result.before_tokens,
        after: result.after_tokens,
      });
    }
    return committed;
  };
  // The view change a context call at a cold provider cache makes before assembling, judged against
  // the caller's window (context.compaction.ts, coldViewChangeFirst): due when the lane's history in
  // view, with the summary at its head, is over historyShare of the window.
  const coldViewChange = async (sessionId: string, window: number) => {
    const laneKey = 'root:session';
    const lane = await inject('GET', `/v1/sessions/${sessionId}/lanes/${encodeURIComponent(laneKey)}`);
    let viewTokens = lane.summary ? deps.estimator.text(lane.summary) : 0;
    for (let cursor: string | null = String(lane.first_kept_seq - 1); cursor !== null;) {
      const page = await inject(
        'GET',
        `/v1/sessions/${sessionId}/transcript?lane_key=${encodeURIComponent(laneKey)}&limit=500&cursor=${cursor}`,
      );
      for (const e of page.entries as { kind: string; token_estimate: number }[]) {
        if (e.kind === 'message') viewTokens += e.token_estimate + MESSAGE_OVERHEAD_TOKENS;
      }
      cursor = page.next_cursor;
    }
    const due = coldViewChangeDue({
      mode: 'auto',
      dryRun: false,
      cacheCold: true,
      viewTokens,
      effectiveWindow: window,
      historyShare: compactionDefaults.historyShare,
    });
    if (!due) return;
    await app.services.compaction.compact({
      tenantId,
      sessionId,
      laneKeys: [laneKey],
      trigger: 'cold',
      force: true,
      budgetForces: true,
      wait: true,
      effectiveWindow: window,
      viewChange: 'cold',
    });
  };

  // 1. LoCoMo E2.
  if (!existsSync(data)) {
    console.log(`LoCoMo data not found at ${data}; skipping E2 (see ../shared/data/locomo/README.md).`);
  } else {
    const samples = JSON.parse(readFileSync(data, 'utf8')) as Sample[];
    type Cell = { recall: number[]; presence: number[]; ap: number[] };
    type Cells = Record<'recency' | 'truncation' | 'compaction', Cell>;
    // What the whole conversation's text (no budget) holds, without and with each turn's day.
    const ceiling = { plain: [] as number[], ap: [] as number[] };
    const cells: Record<number, Cells> = Object.fromEntries(
      BUDGETS.map((b) => [
        b,
        {
          recency: { recall: [], presence: [], ap: [] },
          truncation: { recall: [], presence: [], ap: [] },
          compaction: { recall: [], presence: [], ap: [] },
        },
      ]),
    );
    for (const sample of samples) {
      const turns = turnsOf(sample);
      const byId = new Map(turns.map(({ turn }) => [turn.dia_id, turnText(turn)]));
      const speakerA = String(sample.conversation.speaker_a);
      const askAt = new Date(turns.at(-1)!.at.getTime() + 3_600_000).toISOString();
      const rows = turns.map(({ turn, at }) => ({
        role: turn.speaker === speakerA ? 'user' : 'assistant',
        content: turnText(turn),
        time: at.toISOString(),
      }));
      const plain = (await inject('POST', '/v1/sessions', { session_key: `e2-plain-${sample.sample_id}` }))
        .session.id;
      for (let i = 0; i < rows.length; i += 100) {
        await inject('POST', `/v1/sessions/${plain}/turns`, { turns: rows.slice(i, i + 100) });
      }
      const compacted: Record<number, string> = {};
      for (const budget of BUDGETS) {
        const id = (
          await inject('POST', '/v1/sessions', { session_key: `e2-compact-${budget}-${sample.sample_id}` })
        ).session.id;
        for (let i = 0; i < rows.length; i += 20) {
          await inject('POST', `/v1/sessions/${id}/turns`, { turns: rows.slice(i, i + 20) });
          await compact(id);
        }
        await coldViewChange(id, budget);
        compacted[budget] = id;
      }
      const qa = (limit ? sample.qa.slice(0, limit) : sample.qa).filter(
        (q) => q.category >= 1 && q.category <= 4,
      );
      for (const q of qa) {
        const evidence = parseEvidence(q.evidence).filter((id) => byId.has(id));
        if (evidence.length === 0) continue;
        const rawAnswer = String(q.answer ?? '');
        const answer = normalize(rawAnswer);
        if (answer) {
          const whole = turns.map(({ turn }) => turnText(turn)).join('\n');
          ceiling.plain.push(normalize(whole).includes(answer) ? 1 : 0);
          const dated = turns.map(({ turn, at }) => `${at.toISOString().slice(0, 10)} ${turnText(turn)}`);
          ceiling.ap.push(answerPresence(rawAnswer, dated) ?? 0);
        }
        for (const budget of BUDGETS) {
          const recent: string[] = [];
          let used = 0;
          for (let i = turns.length - 1; i >= 0; i -= 1) {
            const text = `${turns[i]!.turn.speaker}: ${byId.get(turns[i]!.turn.dia_id)!}`;
            const tokens = deps.estimator.text(text);
            if (used + tokens > budget) break;
            used += tokens;
            recent.push(text);
          }
          const score = (units: string[], cell: Cell) => {
            const text = units.join('\n');
            cell.recall.push(evidence.filter((id) => text.includes(byId.get(id)!)).length / evidence.length);
            if (!answer) return;
            cell.presence.push(normalize(text).includes(answer) ? 1 : 0);
            cell.ap.push(answerPresence(rawAnswer, units) ?? 0);
          };
          score(recent, cells[budget]!.recency);
          for (const [way, sessionId] of [
            ['truncation', plain],
            ['compaction', compacted[budget]!],
          ] as const) {
            const reply = await inject('POST', `/v1/sessions/${sessionId}/context`, {
              message: { content: q.question, time: askAt },
              budget: { max_context_tokens: budget },
              dry_run: true,
            });
            score(payloadStrings(reply.payload, q.question), cells[budget]![way]);
          }
        }
      }
    }
    console.log('\nLoCoMo E2, categories 1–4 — evidence recall / strict answer presence / AP (item-wise)');
    console.log(
      'budget | recency                | truncation only        | compaction on          | Δ presence (compaction − truncation)',
    );
    const fmt = (x: Cell) =>
      `${pct(mean(x.recall)).padStart(6)} / ${pct(mean(x.presence)).padStart(6)} / ${pct(mean(x.ap)).padStart(6)}`;
    for (const b of BUDGETS) {
      const c = cells[b]!;
      const delta = (k: 'presence' | 'ap') =>
        ((mean(c.compaction[k]) - mean(c.truncation[k])) * 100).toFixed(1);
      console.log(
        `${String(b).padStart(6)} | ${fmt(c.recency)} | ${fmt(c.truncation)} | ${fmt(c.compaction)} | ${delta('presence')} / ${delta('ap')} points (n=${c.truncation.recall.length})`,
      );
    }
    console.log(
      `the whole conversation in the payload: strict answer presence ${pct(mean(ceiling.plain))}, AP with each turn's day ${pct(mean(ceiling.ap))} (n=${ceiling.plain.length})`,
    );
  }

  // 2. A long bot loop, with and without compaction.
  const loop = async (withCompaction: boolean) => {
    const sessionId = (await inject('POST', '/v1/sessions', { session_key: `loop-${withCompaction}` }))
      .session.id;
    const sent: number[] = [];
    const reuse: number[] = [];
    let previous: string[] | null = null;
    let compactedSince = false;
    const runs = compactions.length;
    for (let i = 0; i < loopTurns; i += 1) {
      const at = new Date(Date.UTC(2026, 5, 1) + i * 60_000).toISOString();
      const reply = await inject('POST', `/v1/sessions/${sessionId}/context`, {
        message: {
          content: `Turn ${i}: please check order ORD-${10_000 + i} for customer C-${i % 37}; what is its status?`,
          time: at,
        },
      });
      sent.push(reply.budget.used);
      const messages = (reply.payload.messages as unknown[]).map((m) =>
        JSON.stringify(m).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ''),
      );
      if (previous && !compactedSince) {
        // The previous payload's messages minus its last (this turn's predecessor carries a breakpoint).
        const prefix = previous.slice(0, -1);
        let same = 0;
        while (same < prefix.length && messages[same] === prefix[same]) same += 1;
        reuse.push(prefix.length === 0 ? 1 : same / prefix.length);
      }
      previous = messages;
      compactedSince = false;
      await inject('POST', `/v1/sessions/${sessionId}/turns`, {
        turns: [
          {
            role: 'assistant',
            content: `Order ORD-${10_000 + i} is ${i % 3 ? 'shipped' : 'pending'}.`,
            time: at,
          },
        ],
      });
      // What the background job does after the turn (thresholds: 30 entries, 2,500 tokens).
      if (withCompaction && (await compact(sessionId))) compactedSince = true;
    }
    return { sent, reuse, compactions: compactions.length - runs };
  };
  if (loopTurns <= 0) {
    await app.close();
    await closeDeps(deps);
    return;
  }
  const without = await loop(false);
  const withC = await loop(true);
  console.log(`\n${loopTurns}-turn bot loop — tokens sent per context call`);
  console.log(
    '                   | mean   | p50    | max    | last   | compactions | prefix reuse between compactions',
  );
  for (const [name, r] of [
    ['without compaction', without],
    ['with compaction', withC],
  ] as const) {
    console.log(
      `${name.padEnd(18)} | ${mean(r.sent).toFixed(0).padStart(6)} | ${percentile(r.sent, 0.5).toFixed(0).padStart(6)} | ${Math.max(
        ...r.sent,
      )
        .toFixed(0)
        .padStart(
          6,
        )} | ${r.sent.at(-1)!.toFixed(0).padStart(6)} | ${String(r.compactions).padStart(11)} | ${pct(mean(r.reuse))} (min ${pct(Math.min(...r.reuse))}, n=${r.reuse.length})`,
    );
  }

  // 3. Compaction cost.
  const ms = compactions.map((c) => c.ms);
  console.log(`\nCompactions (extractive summarizer, embedded PGlite): ${compactions.length}`);
  console.log(
    `latency per compaction: p50 ${percentile(ms, 0.5).toFixed(1)} ms, p99 ${percentile(ms, 0.99).toFixed(1)} ms; lane tokens before → after: mean ${mean(compactions.map((c) => c.before)).toFixed(0)} → ${mean(compactions.map((c) => c.after)).toFixed(0)}; summarizer tokens: 0 (extractive: no provider calls)`,
  );
  await app.close();
  await closeDeps(deps);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
