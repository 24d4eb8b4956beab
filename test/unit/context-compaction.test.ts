// When the context call changes a lane's sent view: a cold provider cache with the history past its
// share of the caller's window, or the window's need judged without the elastic retrieved material.
import { describe, expect, it } from 'vitest';
import { coldViewChangeDue, compactionNeed } from '../../src/modules/context/context.compaction.js';
import { budgetReport, emptyComponents, type BudgetLimits } from '../../src/modules/context/core/budget.js';
import type { AssembleResult } from '../../src/modules/context/core/assemble.js';

const due = (over: Partial<Parameters<typeof coldViewChangeDue>[0]> = {}) =>
  coldViewChangeDue({
    mode: 'auto',
    dryRun: false,
    cacheCold: true,
    viewTokens: 6_000,
    effectiveWindow: 10_000,
    historyShare: 0.5,
    ...over,
  });

describe('coldViewChangeDue', () => {
  it('is due only with a cold cache and the history past its share of the window', () => {
    expect(due()).toBe(true);
    expect(due({ cacheCold: false })).toBe(false);
    expect(due({ viewTokens: 5_000 })).toBe(false);
    expect(due({ effectiveWindow: 100_000 })).toBe(false);
  });

  it('never on a dry run or with compaction "never"', () => {
    expect(due({ dryRun: true })).toBe(false);
    expect(due({ mode: 'never' })).toBe(false);
  });
});

const limits: BudgetLimits = {
  total: 20_000,
  maxOutputTokens: 0,
  maxContextTokens: null,
  compactTrigger: 0.95,
  hardBlock: 0.98,
  safetyMargin: 1,
};

function assembled(components: Partial<ReturnType<typeof emptyComponents>>, dropped = 0): AssembleResult {
  const budget = budgetReport({ ...emptyComponents(), ...components }, limits);
  return {
    budget: { ...budget, unused: { tokens: 0, reason: 'no_more_candidates' } },
    context: { lane: { first_sent_seq: 1, dropped_entries: dropped } },
  } as unknown as AssembleResult;
}

describe('compactionNeed', () => {
  const need = (result: AssembleResult) =>
    compactionNeed({ mode: 'auto', dryRun: false, alreadyCompacted: false, result, turns: [], limits });

  it('does not count retrieved material: it shrinks to fit and never raises the state', () => {
    const withRetrieval = assembled({ conversation: 10_000, memories: 9_500 });
    expect(withRetrieval.budget.state).toBe('ok');
    expect(need(withRetrieval)).toMatchObject({ state: 'ok', now: false, schedule: false });
  });

  it('schedules when what must be sent passes the trigger, and compacts now when it is blocked', () => {
    expect(need(assembled({ conversation: 19_200 }))).toMatchObject({
      state: 'should_compact',
      now: false,
      schedule: true,
    });
    expect(need(assembled({ conversation: 19_700 }))).toMatchObject({ state: 'blocked', now: true });
  });
});
