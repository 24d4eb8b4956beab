// The budget report of one turn drawn as a stacked bar: each component's tokens as a share of the
// effective window, then the safety margin (and calibration) on top, so the bar ends at
// used_with_margin — the figure the states compare — under the instance's marks (compact soon,
// compact trigger, hard block, from /inspect/thresholds.json). Every number is also written out as text.
import { formatPercent, formatTokens, h, keyValueTable } from './dom.js';

/** The report's components in assembly order (docs/assembly.md, "Budget"). */
export const COMPONENTS = [
  'system',
  'tools',
  'channel_context',
  'summary',
  'memories',
  'conversation',
  'current_turn',
];

const share = (tokens, whole) => (whole > 0 ? Math.min(tokens / whole, 1) : 0);

/** A part of a bar: `tokens` as a share of `whole`. */
function segment(name, tokens, whole, label) {
  const node = h('div', {
    class: `segment segment-${name}`,
    dataset: { component: name, tokens },
    title: `${label}: ${formatTokens(tokens)} tokens`,
  });
  node.style.width = `${share(tokens, whole) * 100}%`;
  return node;
}

/**
 * A threshold's dashed line and its label. Labels of marks close together (95% and 98% are ~20 px
 * apart on a narrow bar) go on alternate rows above the bar, so they never overlap.
 */
function mark(name, at, row) {
  const node = h(
    'div',
    {
      class: `mark row-${row}`,
      dataset: { mark: name, share: at },
      title: `${name} at ${formatPercent(at)}`,
    },
    h('span', {}, formatPercent(at).replace('.0%', '%')),
  );
  node.style.left = `${at * 100}%`;
  return node;
}

/** Shares closer than this (of the bar) put the later label on the other row. */
const CLOSE_MARKS = 0.08;

/** [name, share, row] of each mark in share order; a mark close to the one before takes the other row. */
function markRows(thresholds) {
  const marks = [
    ['compact_soon', thresholds.compact_soon],
    ['compact_trigger', thresholds.compact_trigger],
    ['hard_block', thresholds.hard_block],
  ];
  let row = 0;
  return marks.map(([name, at], i) => {
    row = i > 0 && at - marks[i - 1][1] < CLOSE_MARKS ? 1 - row : 0;
    return [name, at, row];
  });
}

/** The bar, its legend and the report as text. `thresholds` are the instance's (/inspect/thresholds.json). */
export function renderBudget(budget, thresholds) {
  const window = budget.effective_window;
  const margin = Math.max(0, budget.used_with_margin - budget.used);
  const bar = h(
    'div',
    { class: 'bar', role: 'img', 'aria-label': `budget: ${formatPercent(budget.percentage)} of the window` },
    COMPONENTS.map((name) => segment(name, budget.components[name] ?? 0, window, name)),
    segment('margin', margin, window, 'safety margin × calibration'),
    markRows(thresholds).map(([name, at, row]) => mark(name, at, row)),
  );
  const legend = h(
    'table',
    { class: 'legend' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, ''), h('th', {}, 'component'), h('th', {}, 'tokens'), h('th', {}, 'of window')),
    ),
    h(
      'tbody',
      {},
      [...COMPONENTS, 'margin'].map((name) => {
        const tokens = name === 'margin' ? margin : (budget.components[name] ?? 0);
        return h(
          'tr',
          { dataset: { legend: name } },
          h('td', {}, h('span', { class: `swatch segment-${name}` })),
          h('td', {}, name === 'margin' ? 'margin (safety × calibration)' : name),
          h('td', { class: 'num', dataset: { field: `component.${name}` } }, formatTokens(tokens)),
          h('td', { class: 'num' }, formatPercent(window > 0 ? tokens / window : 0)),
        );
      }),
    ),
  );
  const field = (name, text) => h('span', { dataset: { field: name } }, text);
  const summary = keyValueTable([
    ['used (estimate)', field('used', formatTokens(budget.used))],
    ['used with margin', field('used_with_margin', formatTokens(budget.used_with_margin))],
    ['effective window', field('effective_window', formatTokens(budget.effective_window))],
    ['percentage', field('percentage', formatPercent(budget.percentage))],
    ['state', field('state', budget.state)],
    ['remaining', field('remaining', formatTokens(budget.remaining))],
    ['total / max output', `${formatTokens(budget.total)} / ${formatTokens(budget.max_output_tokens)}`],
    ['added by contextd', field('added', formatTokens(budget.added))],
    [
      'max context tokens',
      budget.max_context_tokens === null ? 'no cap' : formatTokens(budget.max_context_tokens),
    ],
    [
      'safety margin × calibration',
      `${budget.safety_margin} × ${budget.calibration?.factor ?? 1} (ratio ${budget.calibration?.ratio ?? '—'}, ${budget.calibration?.calls ?? 0} calls)`,
    ],
    ['unused room', budget.unused ? `${formatTokens(budget.unused.tokens)} (${budget.unused.reason})` : '—'],
  ]);
  // The same parts as shares of used_with_margin: readable when the turn is a sliver of the window.
  const zoom = h(
    'div',
    { class: 'bar zoom', role: 'img', 'aria-label': 'the same components as shares of used with margin' },
    COMPONENTS.map((name) => segment(name, budget.components[name] ?? 0, budget.used_with_margin, name)),
    segment('margin', margin, budget.used_with_margin, 'safety margin × calibration'),
  );
  return h(
    'div',
    { class: 'budget', 'data-testid': 'budget' },
    h('div', { class: 'bar-frame' }, bar),
    h('div', { class: 'meta' }, 'the bar above is the effective window; below, the used part alone:'),
    zoom,
    legend,
    summary,
  );
}
