// A PostgreSQL server of the test's own (initdb into a temp dir, on a free port), for tests that
// freeze, kill or restart the database; the shared server is never touched.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/lib/free-port.js';

export { freePort };

const BIN = '/usr/lib/postgresql/15/bin';
export const privatePostgresAvailable = existsSync(join(BIN, 'initdb'));

/** Runs a PostgreSQL binary; as root, as the postgres user (initdb and postgres refuse root). */
function runPg(binary: string, args: string[]): void {
  const command = join(BIN, binary);
  if (process.getuid?.() === 0)
    execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
}

export interface PrivatePostgres {
  url: string;
  /** SIGSTOP to the postmaster and every backend: connections stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
  stop(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'contextd-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  runPg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  runPg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const processes = () => {
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    return [postmaster, ...children];
  };
  const signal = (name: NodeJS.Signals) => {
    for (const pid of processes()) {
      try {
        process.kill(pid, name);
      } catch {
        // exited meanwhile
      }
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    stop: () => {
      signal('SIGCONT');
      try {
        runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A streaming replica of `primary` (pg_basebackup -R into a temp dir, its own free port): a hot
 * standby that replays what the primary writes, asynchronously.
 */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<PrivatePostgres> {
  const source = new URL(primary.url);
  const dir = mkdtempSync(join(tmpdir(), 'contextd-replica-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  runPg('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    source.port,
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40 -c hot_standby=on`;
  runPg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, freeze: () => {}, thaw: () => {}, stop };
}
