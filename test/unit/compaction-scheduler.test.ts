// Appends queue a threshold compaction only for a session that has made no context call yet (no
// cached prefix to lose, no caller's window known); afterwards the sent view changes at the calls.
import { describe, expect, it } from 'vitest';
import { createInProcessQueue } from '../../src/modules/compaction/compaction.jobs.js';
import { createCompactionScheduler } from '../../src/modules/compaction/compaction.scheduler.js';
import type { CompactionService } from '../../src/modules/compaction/compaction.service.js';

function scheduler(over: string[]) {
  const queue = createInProcessQueue();
  const checked: string[][] = [];
  const built = createCompactionScheduler({
    service: {} as CompactionService,
    queue,
    lanesOverThresholds: async ({ laneKeys }) => (checked.push(laneKeys), over),
  });
  return { built, queue, checked };
}

const append = { tenantId: 't1', sessionId: 's1', laneKeys: ['root:a'] };

describe('afterAppend', () => {
  it('queues the lanes over their thresholds of a session that has made no context call', async () => {
    const { built, queue } = scheduler(['root:a']);
    await built.afterAppend({ ...append, hasCalled: false });
    // One job of the session already waits: the probe is deduplicated into it.
    expect((await queue.enqueue({ tenantId: 't1', sessionId: 's1', reason: 'probe' })).deduplicated).toBe(
      true,
    );
  });

  it('queues nothing once the session has made a context call, and reads nothing', async () => {
    const { built, queue, checked } = scheduler(['root:a']);
    await built.afterAppend({ ...append, hasCalled: true });
    expect(checked).toEqual([]);
    expect((await queue.enqueue({ tenantId: 't1', sessionId: 's1', reason: 'probe' })).deduplicated).toBe(
      false,
    );
  });

  it('queues nothing when no lane is over its thresholds', async () => {
    const { built, queue } = scheduler([]);
    await built.afterAppend({ ...append, hasCalled: false });
    expect((await queue.enqueue({ tenantId: 't1', sessionId: 's1', reason: 'probe' })).deduplicated).toBe(
      false,
    );
  });
});
