// The in-process state that lives as long as the app is bounded (docs/operations.md, "Memory"):
// distinct keys beyond a bound are evicted or never kept, so the heap after a full GC stops growing.
// Each case offers far more distinct input than its bound and checks the heap it still holds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMemoryLockManager } from '../../src/coord/memory-lock.js';
import { stableEstimator } from '../../src/modules/context/core/stable-estimator.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
/** Distinct, incompressible words the BPE vocabulary does not hold (each one is a merge). */
const rareWord = (i: number) => `zq${i.toString(36)}x${((i * 2654435761) >>> 0).toString(36)}`;

describe('bounded in-process memory', () => {
  it('the in-process lock manager keeps nothing per resource once released', async () => {
    const locks = createMemoryLockManager();
    const resource = (i: number) => `compaction:tenant:${'s'.repeat(400)}:${i}`;
    await locks.acquire(resource(-1)).then((h) => h?.release());
    const before = heapMb();
    for (let i = 0; i < 40_000; i++) {
      const handle = await locks.acquire(resource(i));
      expect(handle).not.toBeNull();
      await handle!.release();
    }
    // Leaking per-resource state would hold 40,000 × ~450 bytes ≈ 17 MB.
    expect(heapMb() - before).toBeLessThan(6);
    await locks.close();
  });

  it('the BPE merge cache and the pieces counted hold a bounded number of distinct words', () => {
    const estimator = createTokenEstimator();
    estimator.text('warm up');
    const before = heapMb();
    for (let i = 0; i < 120_000; i += 10) {
      estimator.text(Array.from({ length: 10 }, (_, j) => rareWord(i + j)).join(' '));
    }
    // gpt-tokenizer's default (100,000 merges) holds ~27 MB after this.
    expect(heapMb() - before).toBeLessThan(8);
  });

  it('the stable-text token cache holds a bounded number of characters', () => {
    let calls = 0;
    const cached = stableEstimator({ text: (s) => (calls++, s.length), content: () => 0 });
    const before = heapMb();
    // 24M distinct two-byte characters offered (48 MB); keeping 16M of them would be ~32 MB.
    const text = (i: number) =>
      Array.from({ length: 4_000 }, (_, j) => String.fromCharCode(0x4e00 + ((i * 7919 + j) % 20_000))).join(
        '',
      );
    for (let i = 0; i < 6_000; i++) cached.text(text(i));
    expect(heapMb() - before).toBeLessThan(12);
    expect(calls).toBe(6_000);
    // The most recent ones are still cached.
    expect(cached.text(text(5_999))).toBe(4_000);
    expect(calls).toBe(6_000);
  });

  it('the stable-text token cache counts its per-entry overhead: many short texts stay bounded', () => {
    let calls = 0;
    const cached = stableEstimator({ text: (s) => (calls++, s.length), content: () => 0 });
    const text = (i: number) => `Today is day ${i} of release ${i % 97}`;
    const before = heapMb();
    // 400,000 short texts (12M characters): counted by characters alone they kept ~28 MB.
    for (let i = 0; i < 400_000; i++) cached.text(text(i));
    expect(heapMb() - before).toBeLessThan(12);
    const missesBefore = calls;
    for (let i = 399_000; i < 400_000; i++) cached.text(text(i));
    expect(calls).toBe(missesBefore);
  });
});
