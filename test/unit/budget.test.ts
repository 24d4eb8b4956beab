import { describe, expect, it } from 'vitest';
import {
  budgetReport,
  budgetState,
  effectiveWindow,
  emptyComponents,
  roomForAdded,
  windowCeiling,
  withMargin,
  type BudgetLimits,
} from '../../src/modules/context/core/budget.js';
import { budgetCalibration } from '../../src/modules/sessions/core/calibration.js';

const limits = (over: Partial<BudgetLimits> = {}): BudgetLimits => ({
  total: 200_000,
  maxOutputTokens: 8192,
  maxContextTokens: null,
  compactTrigger: 0.95,
  hardBlock: 0.98,
  safetyMargin: 1.2,
  ...over,
});

describe('budget', () => {
  it('effective window is total minus output reserve, never negative', () => {
    expect(effectiveWindow(limits())).toBe(191_808);
    expect(effectiveWindow({ total: 100, maxOutputTokens: 500 })).toBe(0);
  });

  it('states switch exactly at 80%, the compact trigger and the hard block', () => {
    const l = limits();
    expect(budgetState(0.7999, l)).toBe('ok');
    expect(budgetState(0.8, l)).toBe('compact_soon');
    expect(budgetState(0.9499, l)).toBe('compact_soon');
    expect(budgetState(0.95, l)).toBe('should_compact');
    expect(budgetState(0.9799, l)).toBe('should_compact');
    expect(budgetState(0.98, l)).toBe('blocked');
    expect(budgetState(0.5, limits({ compactTrigger: 0.4, hardBlock: 0.45 }))).toBe('blocked');
  });

  it('reports components, sums and the margin-adjusted percentage', () => {
    const c = {
      ...emptyComponents(),
      system: 1000,
      tools: 500,
      conversation: 3000,
      current_turn: 100,
      summary: 400,
    };
    const r = budgetReport(c, limits({ total: 10_000, maxOutputTokens: 0 }));
    expect(r.used).toBe(5000);
    expect(r.added).toBe(3400);
    expect(r.used_with_margin).toBe(6000);
    expect(r.percentage).toBe(0.6);
    expect(r.remaining).toBe(4000);
    expect(r.state).toBe('ok');
    expect(r.components).toEqual(c);
    expect(r.components).not.toBe(c);
  });

  it('a zero window is blocked at 100%', () => {
    const r = budgetReport(emptyComponents(), limits({ total: 10, maxOutputTokens: 10 }));
    expect(r.state).toBe('blocked');
    expect(r.percentage).toBe(1);
  });

  it('the window ceiling is the largest raw estimate that stays below the hard block with margin', () => {
    for (const total of [1000, 4096, 10_000, 200_000, 1_000_000]) {
      const l = limits({ total, maxOutputTokens: Math.floor(total / 10) });
      const ceiling = windowCeiling(l);
      const window = effectiveWindow(l);
      expect(withMargin(ceiling, 1.2)).toBeLessThan(0.98 * window);
      expect(withMargin(ceiling + 1, 1.2)).toBeGreaterThanOrEqual(0.98 * window);
      expect(budgetReport({ ...emptyComponents(), conversation: ceiling }, l).state).not.toBe('blocked');
      expect(budgetReport({ ...emptyComponents(), conversation: ceiling + 1 }, l).state).toBe('blocked');
    }
  });

  it('room for added material is the smaller of window and cap, without margin on the cap', () => {
    const l = limits({ total: 100_000, maxOutputTokens: 0 });
    expect(roomForAdded(10_000, l)).toBe(windowCeiling(l) - 10_000);
    expect(roomForAdded(10_000, { ...l, maxContextTokens: 1764 })).toBe(1764);
    expect(roomForAdded(90_000, { ...l, maxContextTokens: 1764 })).toBeLessThan(0);
  });
});

describe('usage calibration of the budget', () => {
  const sums = (reported: number, estimated: number, calls: number) => ({
    models: {
      'claude-x': {
        reported_input: reported,
        estimated_input: estimated,
        cache_read: 0,
        cache_write: 0,
        calls,
      },
    },
  });

  it('applies the ratio from the third report on, clamped to [0.5, 2]', () => {
    expect(budgetCalibration({ models: {} }, 'claude-x')).toEqual({ factor: 1, ratio: null, calls: 0 });
    expect(budgetCalibration(sums(300, 200, 2), 'claude-x')).toEqual({ factor: 1, ratio: 1.5, calls: 2 });
    expect(budgetCalibration(sums(300, 200, 3), 'claude-x')).toEqual({ factor: 1.5, ratio: 1.5, calls: 3 });
    expect(budgetCalibration(sums(900, 200, 5), 'claude-x')).toEqual({ factor: 2, ratio: 4.5, calls: 5 });
    expect(budgetCalibration(sums(20, 200, 5), 'claude-x')).toEqual({ factor: 0.5, ratio: 0.1, calls: 5 });
    expect(budgetCalibration(sums(20, 0, 5), 'claude-x')).toEqual({ factor: 1, ratio: null, calls: 5 });
    expect(budgetCalibration(sums(300, 200, 3), 'other-model').factor).toBe(1);
  });

  it('multiplies the window figure, not the components, and moves the ceiling with it', () => {
    const components = { ...emptyComponents(), system: 1000, conversation: 8000 };
    const calibration = { factor: 2, ratio: 2, calls: 3 };
    const plain = budgetReport(components, limits({ total: 30_000, maxOutputTokens: 5000 }));
    const doubled = budgetReport(components, limits({ total: 30_000, maxOutputTokens: 5000, calibration }));
    expect(plain.calibration).toEqual({ factor: 1, ratio: null, calls: 0 });
    expect(doubled.calibration).toEqual(calibration);
    expect(doubled.components).toEqual(plain.components);
    expect(doubled.used).toBe(9000);
    expect(plain.used_with_margin).toBe(10_800);
    expect(doubled.used_with_margin).toBe(21_600);
    expect(plain.state).toBe('ok');
    expect(doubled.state).toBe('compact_soon');
    const ceiling = windowCeiling(limits({ calibration }));
    expect(withMargin(ceiling, 2.4)).toBeLessThan(0.98 * 191_808);
    expect(withMargin(ceiling + 1, 2.4)).toBeGreaterThanOrEqual(0.98 * 191_808);
    expect(ceiling).toBeLessThan(windowCeiling(limits()) / 2 + 1);
  });
});
