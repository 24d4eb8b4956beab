// postgres.js's internal FIFO (node_modules/postgres/{src,cjs/src}/queue.js, patched by
// patches/postgres+3.4.9.patch): order and remove() behave like a plain list, and a queue that
// never drains — connections cycling through `busy` while queries outnumber them — keeps its
// backing array as long as its live entries, and remove() looks at those entries only. 3.4.9
// left a hole per shift() until the queue drained and scanned every hole on each remove(), so CPU
// per query grew with uptime under load (docs/benchmarks.md, "postgres.js queue").
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => Queue<T>;

const require = createRequire(import.meta.url);
const packageDir = dirname(dirname(dirname(require.resolve('postgres'))));
const builds: [string, QueueFactory][] = [
  [
    'src (ESM)',
    ((await import(pathToFileURL(join(packageDir, 'src/queue.js')).href)) as { default: QueueFactory })
      .default,
  ],
  ['cjs', require(join(packageDir, 'cjs/src/queue.js')) as QueueFactory],
];

/** An Array that records how long it grows and how many slots indexOf() looks at. */
const seen = { maxLength: 0, scanned: 0 };
class CountingArray<T> extends Array<T> {
  override push(...items: T[]): number {
    const length = super.push(...items);
    seen.maxLength = Math.max(seen.maxLength, length);
    return length;
  }
  override indexOf(x: T, from = 0): number {
    seen.scanned += this.length - from;
    return super.indexOf(x, from);
  }
}

type Op = { op: 'push'; value: number } | { op: 'shift' } | { op: 'remove'; value: number };
const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('push' as const), value: fc.integer({ min: 0, max: 30 }) }),
    fc.record({ op: fc.constant('shift' as const) }),
    fc.record({ op: fc.constant('remove' as const), value: fc.integer({ min: 0, max: 30 }) }),
  ),
  { maxLength: 400 },
);

describe.each(builds)('postgres.js Queue, %s build', (_name, Queue) => {
  it('behaves like a list: first in, first out; remove() takes the first equal entry', () => {
    fc.assert(
      fc.property(ops, (script: Op[]) => {
        const queue = Queue<{ id: number }>();
        const model: { id: number }[] = [];
        const objects = Array.from({ length: 31 }, (_, id) => ({ id }));
        for (const step of script) {
          if (step.op === 'push') {
            expect(queue.push(objects[step.value]!)).toBe(objects[step.value]);
            model.push(objects[step.value]!);
          } else if (step.op === 'shift') {
            expect(queue.shift()).toBe(model.shift());
          } else {
            const at = model.indexOf(objects[step.value]!);
            if (at !== -1) model.splice(at, 1);
            expect(queue.remove(objects[step.value]!)).toBe(at === -1 ? null : objects[step.value]);
          }
          expect(queue.length).toBe(model.length);
        }
        const rest = [];
        while (queue.length) rest.push(queue.shift());
        expect(rest).toEqual(model);
        expect(queue.shift()).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an initial list and removes from the middle', () => {
    const queue = Queue(['a', 'b', 'c', 'd']);
    expect(queue.shift()).toBe('a');
    expect(queue.remove('c')).toBe('c');
    expect(queue.remove('a')).toBeNull();
    expect(queue.push('e')).toBe('e');
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual(['b', 'd', 'e', undefined]);
    expect(queue.length).toBe(0);
  });

  it('a queue that never drains stays as long as its live entries, and remove() scans only those', () => {
    // What index.js does to the `busy` queue at saturation: take a connection, move it back
    // (move() removes it from its old queue first, where it no longer is), repeat.
    const live = 8;
    const cycles = 20_000;
    const connections = Array.from({ length: live }, (_, id) => ({ id }));
    const busy = Queue(CountingArray.from(connections) as { id: number }[]);
    seen.maxLength = 0;
    seen.scanned = 0;
    const order: number[] = [];
    for (let i = 0; i < cycles; i += 1) {
      const c = busy.shift()!;
      order.push(c.id);
      expect(busy.remove(c)).toBeNull();
      busy.push(c);
    }
    expect(order.slice(0, 2 * live)).toEqual([...connections, ...connections].map((c) => c.id));
    expect(order.every((id, i) => id === i % live)).toBe(true);
    expect(busy.length).toBe(live);
    expect(seen.maxLength).toBeLessThanOrEqual(2 * live + 64);
    expect(seen.scanned).toBeLessThanOrEqual(cycles * live);
  });
});
