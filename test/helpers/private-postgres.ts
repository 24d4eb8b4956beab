// A PostgreSQL server of the test's own (initdb into a temp dir, on a free port), for tests that
// freeze, kill or restart the database; the shared server is never touched.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';
export const privatePostgresAvailable = existsSync(join(BIN, 'initdb'));

/** Runs a PostgreSQL binary; as root, as the postgres user (initdb and postgres refuse root). */
function runPg(binary: string, args: string[]): void {
  const command = join(BIN, binary);
  if (process.getuid?.() === 0)
    execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
}

/** The kernel's ephemeral range, from which it takes the local port of every outgoing connection. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (Number(low) > 0 && Number(high) > 0) return [Number(low), Number(high)];
  } catch {
    // not Linux: the IANA range
  }
  return [49152, 65535];
}

const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port nothing listens on, for a child process to listen on. It is drawn at random below the
 * kernel's ephemeral range: a port the OS hands out (`listen(0)`) lies inside that range, where
 * the suite's own outgoing connections (PostgreSQL, Redis) take local ports all the time, and
 * one of them taking it between this check and the child's bind failed the child's start.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = Math.max(low + 1_000, Math.min(ephemeralLow, 55_536)) - 1;
  for (let tries = 0; tries < 200; tries += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port in ${low}-${high}`);
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
