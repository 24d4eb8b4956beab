// CPU of the PostgreSQL backends serving one benchmark database, read from /proc: the server must
// run on this machine (bench:call-cost, bench:call-ab).
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.js';

/** CPU ms of one process from /proc/<pid>/stat (utime + stime at 100 ticks a second); 0 once gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm) ": state is 0, utime 11, stime 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU of the benchmark database's own backends over a window: the pids at the start, read again at
 * the end, plus whole lifetimes of backends that appeared during it. Other databases' backends (a
 * soak, other benchmarks) are not counted.
 */
export async function backendCpu(database: Database) {
  const pids = async () =>
    new Set(
      (
        await queryRows<{ pid: number }>(
          database.db,
          sql`select pid from pg_stat_activity where datname = current_database()`,
        )
      ).map((r) => Number(r.pid)),
    );
  const cpuOf = (set: Set<number>) => [...set].reduce((s, pid) => s + processCpuMs(pid), 0);
  const [first] = await pids();
  if (first === undefined || !readable(first))
    throw new Error(
      'bench:call-cost: the PostgreSQL backends are not readable in /proc (run beside the server, as root)',
    );
  return {
    async start() {
      const before = await pids();
      const cpu0 = cpuOf(before);
      return {
        async stop(): Promise<number> {
          const cpu1 = cpuOf(before);
          const after = await pids();
          const added = new Set([...after].filter((p) => !before.has(p)));
          return cpu1 - cpu0 + cpuOf(added);
        },
      };
    },
  };
}

const readable = (pid: number) => {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
};
