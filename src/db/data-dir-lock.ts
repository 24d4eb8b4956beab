// One process per embedded data directory. PGlite has no cross-process locking: a second process on
// the same DATA_DIR (`npm run keys` while the server runs) writes where the server never reads, and
// the write is lost. The holder writes <DATA_DIR>/contextd.pid and removes it when it closes (or
// exits); a file whose process is gone (a crash, kill -9) is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';

export const DATA_DIR_LOCK_FILE = 'contextd.pid';

interface Holder {
  pid: number;
  command: string;
  since: string;
  token: string;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: Pick<Holder, 'pid' | 'command' | 'since'>,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another contextd process (${holder.command}, pid ${holder.pid}, ` +
        `since ${holder.since}). The embedded database (PGlite) takes one process per directory; a ` +
        `second one would lose its writes. Stop the server first, or run both against PostgreSQL ` +
        `with DATABASE_URL.`,
    );
  }
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours; safe to call more than once. */
  release(): void;
}

/** Directories this process holds (a second hold in the same process is refused too). */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return Number.isInteger(holder.pid) ? (holder as Holder) : null;
  } catch {
    return null;
  }
}

/**
 * Takes DATA_DIR for this process or throws DataDirInUseError naming the holder. A file left by
 * our own pid is stale (a container restarted as pid 1 again) unless this process holds it.
 */
export function holdDataDir(dataDir: string, command: string): DataDirLock {
  const dir = resolve(dataDir);
  const file = join(dir, DATA_DIR_LOCK_FILE);
  mkdirSync(dir, { recursive: true });
  const mine: Holder = { pid: process.pid, command, since: new Date().toISOString(), token: randomUUID() };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (heldHere.has(dir)) throw new DataDirInUseError(dataDir, readHolder(file) ?? mine);
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new DataDirInUseError(dataDir, holder);
      }
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(mine) + '\n');
    } finally {
      closeSync(fd);
    }
    heldHere.add(dir);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      heldHere.delete(dir);
      process.off('exit', release);
      if (readHolder(file)?.token === mine.token) rmSync(file, { force: true });
    };
    process.once('exit', release);
    return { release };
  }
  throw new DataDirInUseError(dataDir, readHolder(file) ?? mine);
}
