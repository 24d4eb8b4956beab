import { describe, expect, it } from 'vitest';
import {
  planLane,
  clearingPoint,
  sizeReasons,
  type LanePlanInput,
} from '../../src/modules/compaction/core/lane-plan.js';
import {
  purgeCut,
  purgeNeedle,
  scrubEntries,
  DELETED_MARKER,
} from '../../src/modules/compaction/core/purge.js';
import { compactionDefaults, type LaneEntry } from '../../src/modules/compaction/core/types.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';

const estimator = createTokenEstimator();
const T0 = Date.parse('2026-03-01T10:00:00Z');

function entry(seq: number, role: 'user' | 'assistant', content: unknown): LaneEntry {
  return {
    seq,
    kind: 'message',
    role,
    content,
    tokenEstimate: estimator.content(content),
    at: T0 + seq * 1000,
  };
}

/** n alternating user/assistant turns starting at seq 1. */
function chat(n: number, words = 8): LaneEntry[] {
  return Array.from({ length: n }, (_, i) =>
    entry(i + 1, i % 2 === 0 ? 'user' : 'assistant', `turn ${i + 1}: ${'word '.repeat(words)}`),
  );
}

/** A tool loop: user asks, assistant calls, user answers with the result, assistant replies. */
function toolLoop(start: number, id: string, resultText: string): LaneEntry[] {
  return [
    entry(start, 'user', `please run ${id}`),
    entry(start + 1, 'assistant', [{ type: 'tool_use', id, name: 'run', input: { q: id } }]),
    entry(start + 2, 'user', [{ type: 'tool_result', tool_use_id: id, content: resultText }]),
    entry(start + 3, 'assistant', `done with ${id}`),
  ];
}

function plan(entries: LaneEntry[], over: Partial<LanePlanInput> = {}) {
  return planLane({
    lane: {
      firstKeptSeq: 0,
      clearedBeforeSeq: 0,
      summary: null,
      summaryUpdatedAt: null,
      summaryStale: false,
    },
    entries,
    now: T0 + 3_600_000,
    lastCallAt: null,
    effectiveWindow: 190_000,
    force: false,
    budgetForces: false,
    minFirstKeptSeq: 0,
    estimator,
    settings: compactionDefaults,
    ...over,
  });
}

/** Every tool_result kept in the view has its tool_use kept too, and the reverse. */
function pairsIntact(entries: LaneEntry[], firstKeptSeq: number) {
  const kept = entries.filter((e) => e.seq >= firstKeptSeq);
  const blocks = kept.flatMap((e) =>
    Array.isArray(e.content) ? (e.content as { type: string; id?: string; tool_use_id?: string }[]) : [],
  );
  const uses = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => b.id));
  const results = new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
  return [...results].every((id) => uses.has(id)) && [...uses].every((id) => results.has(id));
}

describe('planLane', () => {
  it('does nothing for a lane under its thresholds', () => {
    const result = plan(chat(12));
    expect(result.steps).toEqual([]);
    expect(result.reasons).toEqual([]);
  });

  it('summarizes all but the last 10 entries once the lane has more than 30', () => {
    const entries = chat(31);
    const result = plan(entries);
    expect(result.reasons).toContain('entries');
    expect(result.steps[0]).toBe('summarize');
    expect(result.summarizeBeforeSeq).toBe(result.firstKeptSeq);
    expect(result.keptMessages).toBeLessThanOrEqual(10);
    expect(result.afterViewTokens).toBeLessThan(result.beforeTokens);
  });

  it('truncates further while the kept view is over half the token threshold', () => {
    const entries = chat(31, 120); // ~130 tokens each: 10 kept entries are ~1,300 tokens
    const result = plan(entries);
    expect(result.steps).toEqual(['summarize', 'truncate']);
    expect(result.afterViewTokens).toBeLessThanOrEqual(compactionDefaults.maxTokens / 2);
    expect(result.keptMessages).toBeGreaterThanOrEqual(1);
  });

  it('clears old tool results alone when that is enough and the cache is cold', () => {
    const big = 'result line '.repeat(1500);
    const entries = [
      ...toolLoop(1, 't1', big),
      ...toolLoop(5, 't2', 'ok'),
      ...toolLoop(9, 't3', 'ok'),
      ...toolLoop(13, 't4', 'ok'),
    ];
    const result = plan(entries, { lastCallAt: T0 });
    expect(result.steps).toEqual(['clear_tool_results']);
    expect(result.clearedBeforeSeq).toBe(clearingPoint(entries, 0, 3));
    expect(result.clearedBeforeSeq).toBe(6); // the first of the last three tool uses
    expect(result.afterViewTokens).toBeLessThan(result.beforeTokens / 2);
  });

  it('does not clear while the provider cache is warm unless the budget forces it', () => {
    const big = 'result line '.repeat(1500);
    const entries = [
      ...toolLoop(1, 't1', big),
      ...toolLoop(5, 't2', 'ok'),
      ...toolLoop(9, 't3', 'ok'),
      ...toolLoop(13, 't4', 'ok'),
    ];
    const now = T0 + 3_600_000;
    const warm = plan(entries, { now, lastCallAt: now - 60_000 });
    expect(warm.steps).toEqual([]);
    expect(warm.deferred).toBe('cache_warm');
    const forced = plan(entries, { now, lastCallAt: now - 60_000, budgetForces: true });
    expect(forced.steps[0]).toBe('clear_tool_results');
  });

  it('never separates a tool_use from its tool_result, whatever the sequence', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round += 1) {
      const entries: LaneEntry[] = [];
      let seq = 1;
      const n = 20 + Math.floor(rand() * 40);
      while (entries.length < n) {
        if (rand() < 0.3) {
          entries.push(...toolLoop(seq, `t${seq}`, 'x '.repeat(Math.floor(rand() * 300))));
          seq += 4;
        } else {
          entries.push(
            entry(
              seq,
              entries.at(-1)?.role === 'user' ? 'assistant' : 'user',
              'y '.repeat(Math.floor(rand() * 200)),
            ),
          );
          seq += 1;
        }
      }
      const result = plan(entries, { force: rand() < 0.5, budgetForces: rand() < 0.5 });
      expect(pairsIntact(entries, result.firstKeptSeq)).toBe(true);
    }
  });

  it('keeps an open tool loop whole: the view never starts after its first assistant message', () => {
    const loop = (from: number, answered: number): LaneEntry[] =>
      [
        entry(from, 'user', 'run the five steps'),
        ...Array.from({ length: 5 }, (_, i) => [
          entry(from + 1 + 2 * i, 'assistant', [
            ...(i === 0 ? [{ type: 'thinking', thinking: 'plan', signature: 's' }] : []),
            { type: 'tool_use', id: `step_${i}`, name: 'run', input: { i } },
          ]),
          entry(from + 2 + 2 * i, 'user', [
            { type: 'tool_result', tool_use_id: `step_${i}`, content: 'output '.repeat(400) },
          ]),
        ]).flat(),
      ].slice(0, 2 + 2 * answered);
    // 31 chat entries, then a loop whose 4 calls are answered: the next message continues it.
    const entries = [...chat(31, 20), ...loop(32, 4).slice(0, -1)];
    const result = plan(entries);
    expect(result.steps).toContain('summarize');
    expect(result.firstKeptSeq).toBeLessThanOrEqual(33);
    // The same lane with the loop over (a plain user message after it) may cut inside it.
    const closed = [
      ...chat(31, 20),
      ...loop(32, 5),
      entry(43, 'assistant', 'done'),
      entry(44, 'user', 'thanks'),
    ];
    expect(plan(closed).firstKeptSeq).toBeGreaterThan(33);
  });

  it('rebuilds a stale summary even when no entry leaves the view', () => {
    const result = plan(chat(4), {
      lane: {
        firstKeptSeq: 0,
        clearedBeforeSeq: 0,
        summary: 'old',
        summaryUpdatedAt: new Date(T0),
        summaryStale: true,
      },
    });
    expect(result.reasons).toContain('stale');
    expect(result.steps).toContain('summarize');
  });

  it('moves the view past a deleted text (purge) even under every threshold', () => {
    const entries = chat(6);
    const cut = purgeCut(entries, ['turn 3: word word word word word word word word'], 0);
    expect(cut).toBe(4);
    const result = plan(entries, { minFirstKeptSeq: cut });
    expect(result.reasons).toContain('purge');
    expect(result.firstKeptSeq).toBeGreaterThanOrEqual(4);
  });
});

describe('purge', () => {
  it('scrubs a deleted text and its snippet from what the summarizer reads', () => {
    const deleted = 'the staging password rotation happens on Friday at 17:00 UTC, do not tell anyone';
    const entries = [
      entry(1, 'user', [{ type: 'text', text: `quoted: ${purgeNeedle(deleted)}…` }]),
      entry(2, 'assistant', `noted: ${deleted}`),
      entry(3, 'user', 'unrelated'),
    ];
    const scrubbed = scrubEntries(entries, [deleted]);
    expect(JSON.stringify(scrubbed)).not.toContain('rotation happens');
    expect(JSON.stringify(scrubbed[0]!.content)).toContain(DELETED_MARKER);
    expect(scrubbed[2]).toBe(entries[2]);
  });

  it('never keeps a tool_result whose tool_use the cut leaves behind', () => {
    const entries = [entry(1, 'user', 'secret plan alpha bravo charlie'), ...toolLoop(2, 'k', 'ok')];
    // The deleted text is in the tool call's entry: the view must start after the whole pair.
    entries[1]!.content = [{ type: 'text', text: 'secret plan alpha bravo charlie' }];
    entries[2]!.content = [
      { type: 'text', text: 'secret plan alpha bravo charlie' },
      { type: 'tool_use', id: 'k', name: 'run', input: {} },
    ];
    const cut = purgeCut(entries, ['secret plan alpha bravo charlie'], 0);
    expect(cut).toBe(5);
    expect(pairsIntact(entries, cut)).toBe(true);
  });

  it('ignores texts too short to be specific as quotes', () => {
    expect(purgeNeedle('ok')).toBeNull();
    expect(purgeCut(chat(4), ['ok'], 0)).toBe(0);
  });
});

describe('a change of the sent view (the window needs it, or the cache is cold)', () => {
  it('keeps the newest share of the window verbatim and summarizes the rest in one step', () => {
    const entries = chat(200, 20);
    const window = 8_000;
    const result = plan(entries, { viewChange: 'cold', effectiveWindow: window });
    expect(result.reasons).toContain('cold');
    expect(result.steps).toContain('summarize');
    const kept = entries.filter((e) => e.seq >= result.firstKeptSeq);
    const keptTokens = kept.reduce((sum, e) => sum + e.tokenEstimate, 0);
    expect(keptTokens).toBeLessThanOrEqual(compactionDefaults.keepShare * window);
    // A large step: far more than the ten entries a threshold compaction keeps.
    expect(kept.length).toBeGreaterThan(compactionDefaults.keepRecent);
    // Most of the share is used: the kept suffix is the longest that fits, not a fixed count.
    expect(keptTokens).toBeGreaterThan(0.8 * compactionDefaults.keepShare * window);
  });

  it('never leaves out the previous exchange, even when it alone is over the share', () => {
    const entries = [...chat(10, 10), entry(11, 'user', 'long '.repeat(4000)), entry(12, 'assistant', 'ok')];
    const result = plan(entries, { viewChange: 'window', effectiveWindow: 4_000 });
    expect(result.firstKeptSeq).toBeLessThanOrEqual(11);
    expect(result.steps).toContain('summarize');
  });

  it('changes nothing when the view is within the share', () => {
    const entries = chat(12, 4);
    const result = plan(entries, { viewChange: 'cold', effectiveWindow: 190_000 });
    expect(result.steps).toEqual([]);
    expect(result.firstKeptSeq).toBe(0);
  });

  it('refits a summary written for a larger window, even when no entry leaves the view', () => {
    const entries = chat(4, 4);
    // About 1,000 tokens: over 5% of a 4,000-token window, under 5% of 190,000.
    const lane = {
      firstKeptSeq: 0,
      clearedBeforeSeq: 0,
      summary: '- [#1 Caroline 2023-05-08] went to the support group yesterday\n'.repeat(80),
      summaryUpdatedAt: new Date(T0),
      summaryStale: false,
    };
    const small = plan(entries, { lane, viewChange: 'cold', effectiveWindow: 4_000 });
    expect(small.steps).toEqual(['summarize']);
    expect(small.summarizeBeforeSeq).toBe(0);
    expect(small.firstKeptSeq).toBe(0);
    // Within its share of the window: nothing to do.
    expect(plan(entries, { lane, viewChange: 'cold', effectiveWindow: 190_000 }).steps).toEqual([]);
    // Only a change of the sent view refits (a threshold compaction knows no caller's window).
    expect(plan(entries, { lane, effectiveWindow: 4_000 }).steps).toEqual([]);
  });
});

describe('sizeReasons: the thresholds the plan and an append compare at', () => {
  const { maxEntries, maxTokens } = compactionDefaults;

  it('is over a threshold only past it', () => {
    expect(sizeReasons({ entries: maxEntries, tokens: maxTokens }, compactionDefaults)).toEqual([]);
    expect(sizeReasons({ entries: maxEntries + 1, tokens: maxTokens + 1 }, compactionDefaults)).toEqual([
      'entries',
      'tokens',
    ]);
  });

  it('gives the plan its entries reason at the count an append reads from SQL', () => {
    for (const n of [maxEntries - 1, maxEntries, maxEntries + 1, maxEntries + 2]) {
      const entries = chat(n, 1);
      const stored = {
        entries: entries.length,
        tokens: entries.reduce((sum, e) => sum + e.tokenEstimate, 0),
      };
      expect(plan(entries).reasons.includes('entries')).toBe(
        sizeReasons(stored, compactionDefaults).length > 0,
      );
    }
  });
});
