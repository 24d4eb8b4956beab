// Waiting in tests: poll until a condition holds, with no deadline of its own. How long a step
// takes depends on how loaded the machine is, so the only time bound is the test's own timeout (a
// hang guard, set generously); a child process that exits while we wait fails the wait at once.
import type { ChildProcess } from 'node:child_process';

export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  options: { intervalMs?: number; child?: ChildProcess; output?: () => string } = {},
): Promise<void> {
  const { intervalMs = 100, child, output } = options;
  while (!(await condition())) {
    if (child && child.exitCode !== null) {
      throw new Error(
        `the process exited (${child.exitCode}) before the condition held\n${output?.() ?? ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A hang guard for tests that start processes or wait on background work. */
export const SLOW_TEST_TIMEOUT_MS = 600_000;
