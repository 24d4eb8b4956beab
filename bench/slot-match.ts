// Worst-case cost of answering a pending slot (src/modules/context/core/pending-slot.ts): every
// slot type, including tenant regexes built to backtrack catastrophically, against hostile
// messages of 10 kB, 100 kB and 400 kB (the largest message text a context call accepts). The
// target: no match over 50 ms. Floor in the same run: one String.prototype.includes scan of the
// same text for a string it does not contain.
//
//   npm run bench:slot-match
import { performance } from 'node:perf_hooks';
import { matchPendingSlot, type PendingSlot } from '../src/modules/lanes/core/pending-slot.js';
import { machineLine, printTable } from './lib/measure.js';

const SLOTS: [string, PendingSlot][] = [
  ['regex (a+)+b', { name: 's', type: 'regex', pattern: '(a+)+b' }],
  ['regex (a|a)*$', { name: 's', type: 'regex', pattern: '(a|a)*$' }],
  ['regex (.*a){20}', { name: 's', type: 'regex', pattern: '(.*a){20}' }],
  ['regex (x+x+)+y', { name: 's', type: 'regex', pattern: '(x+x+)+y' }],
  ['regex ^ORD-\\d{5}$', { name: 's', type: 'regex', pattern: '^ORD-\\d{5}$' }],
  ['date', { name: 's', type: 'date' }],
  ['time', { name: 's', type: 'time' }],
  ['number', { name: 's', type: 'number' }],
  ['email', { name: 's', type: 'email' }],
  ['yes_no', { name: 's', type: 'yes_no' }],
  ['choice', { name: 's', type: 'choice', choices: ['staging', 'production', 'option a'] }],
];

/** Texts that defeat backtracking engines: long runs of one character, digits, dots, at-signs. */
const TEXTS: [string, (n: number) => string][] = [
  ['a…a!', (n) => `${'a'.repeat(n - 1)}!`],
  ['x…x', (n) => 'x'.repeat(n)],
  ['digits', (n) => '1'.repeat(n)],
  ['a.a.a…', (n) => 'a.'.repeat(n / 2)],
  ['a@a@…', (n) => 'a@'.repeat(n / 2)],
  ['words', (n) => 'maybe next week around noon '.repeat(Math.ceil(n / 28)).slice(0, n)],
];

function msPerCall(fn: () => unknown, minMs = 100): { mean: number; max: number } {
  fn(); // warm-up (compiles the pattern's program once)
  let calls = 0;
  let max = 0;
  const start = performance.now();
  while (performance.now() - start < minMs || calls < 3) {
    const t = performance.now();
    fn();
    max = Math.max(max, performance.now() - t);
    calls += 1;
  }
  return { mean: (performance.now() - start) / calls, max };
}

console.log(machineLine());
const rows: Record<string, string | number>[] = [];
let worst = { ms: 0, what: '' };
for (const size of [10_000, 100_000, 400_000]) {
  for (const [slotName, slot] of SLOTS) {
    let slotWorst = { max: 0, mean: 0, text: '' };
    for (const [textName, make] of TEXTS) {
      const text = make(size);
      const { mean, max } = msPerCall(() => matchPendingSlot(slot, text));
      if (max > slotWorst.max) slotWorst = { max, mean, text: textName };
    }
    const floor = msPerCall(() => TEXTS[0]![1](size).includes('\u0000zz')).mean;
    rows.push({
      'text size': size.toLocaleString('en-US'),
      slot: slotName,
      'worst text': slotWorst.text,
      'mean ms': slotWorst.mean.toFixed(2),
      'max ms': slotWorst.max.toFixed(2),
      'floor ms (includes)': floor.toFixed(3),
    });
    if (slotWorst.max > worst.ms)
      worst = { ms: slotWorst.max, what: `${slotName} on ${size} chars of ${slotWorst.text}` };
  }
}
printTable('Pending-slot matching, worst text per slot', rows);
console.log(`\nslowest single match: ${worst.ms.toFixed(2)} ms (${worst.what}); target ≤ 50 ms`);
