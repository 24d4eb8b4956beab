// A PgBouncer of the test's own (Debian's package) in a temp dir on a free port, in front of a
// PostgreSQL server: every database name is passed through, clients log in as anyone (auth_type
// any) and reach the server as `postgres`. The test (or the run's global setup) stops it.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './private-postgres.js';

const BINARY = '/usr/sbin/pgbouncer';
export const pgbouncerAvailable = existsSync(BINARY);

export interface PrivatePgBouncer {
  /** `serverUrl` with the host and port of the pooler. */
  url(serverUrl: string): string;
  port: number;
  stop(): void;
}

function asPostgresUser(command: string, args: string[]): void {
  if (process.getuid?.() === 0)
    execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
  else execFileSync(command, args, { stdio: 'pipe' });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export async function startPgBouncer(params: {
  /** The server every database is forwarded to. */
  serverUrl: string;
  poolMode: 'session' | 'transaction';
  /** Server connections per (database, user). */
  poolSize?: number;
}): Promise<PrivatePgBouncer> {
  const server = new URL(params.serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'contextd-pgbouncer-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username) || 'postgres'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = any',
      `pool_mode = ${params.poolMode}`,
      `default_pool_size = ${params.poolSize ?? 20}`,
      'max_client_conn = 1000',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  asPostgresUser(BINARY, ['-d', '-q', ini]);
  for (let tries = 0; !(await accepts(port)); tries += 1) {
    if (tries > 200) throw new Error(`pgbouncer did not listen on ${port}: ${readLog(dir)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    port,
    url(serverUrl) {
      const url = new URL(serverUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    stop() {
      try {
        const pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());
        if (pid > 0) process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000);
  } catch {
    return '(no log)';
  }
}
