// CPU time of the calling thread, for tests that tell linear work from runaway work (a regex that
// backtracks, a scan that restarts). Unlike wall-clock time, it does not grow while a loaded machine
// runs other processes instead of the test, so a loose bound on it fails only on the work itself.
import { readFileSync } from 'node:fs';

/**
 * CPU ms the calling thread has used: Linux's /proc/thread-self (user + system, in clock ticks of
 * 10 ms); elsewhere the whole process's (process.cpuUsage), which includes its other threads.
 */
export function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after "(comm) ": state is 0, utime 11, stime 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** What `work` returned and the CPU ms this thread spent on it (to the 10 ms tick on Linux). */
export function cpuTimed<T>(work: () => T): { value: T; cpuMs: number } {
  const before = threadCpuMs();
  const value = work();
  return { value, cpuMs: threadCpuMs() - before };
}
