// Redis servers of the test's own, on free ports in a temp dir: a Redis Cluster (3 masters, and
// a replica each when asked) or a master, a replica and a sentinel. Each test stops what it
// started; the shared Redis is never touched.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './private-postgres.js';

export const privateRedisAvailable = existsSync('/usr/bin/redis-server') && existsSync('/usr/bin/redis-cli');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs redis-cli against a port; its output, or '' when the server does not answer. */
export function cli(port: number, ...args: string[]): string {
  try {
    return execFileSync('redis-cli', ['-p', String(port), ...args], { stdio: 'pipe', timeout: 5_000 })
      .toString()
      .trim();
  } catch {
    return '';
  }
}

/** Polls `check` until it holds; gives up after `attempts` tries (a server that never gets there). */
export async function until(what: string, check: () => boolean, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (check()) return;
    await sleep(100);
  }
  throw new Error(`gave up waiting: ${what}`);
}

interface Servers {
  dir: string;
  processes: Map<number, ChildProcess>;
}

const logTail = (file: string) => {
  try {
    return readFileSync(file, 'utf8').slice(-1_000);
  } catch {
    return '(no log)';
  }
};

/**
 * Starts `count` servers, each on a free port (and a free cluster bus port when `bus` is set).
 * A server that exits before it answers (a port taken between the check and its bind) is
 * started again on other ports.
 */
async function startServers(
  count: number,
  extra: (ports: { port: number; bus: number }) => string[],
  servers: Servers,
  bus = false,
) {
  const ports: number[] = [];
  for (let n = 0; n < count; n += 1) {
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      const log = join(servers.dir, `${port}.log`);
      const child = spawn(
        'redis-server',
        [
          ...`--port ${port} --bind 127.0.0.1 --appendonly no --daemonize no`.split(' '),
          ...['--save', '', '--repl-diskless-sync-delay', '0', '--dir', servers.dir, '--logfile', log],
          ...extra({ port, bus: bus ? await freePort() : 0 }),
        ],
        { stdio: 'ignore' },
      );
      servers.processes.set(port, child);
      const exited = () => child.exitCode !== null || child.signalCode !== null;
      await until(`redis on ${port}`, () => exited() || cli(port, 'ping') === 'PONG').catch((error) => {
        throw new Error(`${(error as Error).message}; its log: ${logTail(log)}`);
      });
      if (!exited()) {
        ports.push(port);
        break;
      }
      servers.processes.delete(port);
      if (attempt === 5) throw new Error(`redis-server did not start (5 tries); last log: ${logTail(log)}`);
    }
  }
  return ports;
}

function stopServers(servers: Servers) {
  for (const child of servers.processes.values()) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(servers.dir, { recursive: true, force: true });
}

export interface PrivateRedisCluster {
  /** Where the servers' logs are. */
  dir: string;
  nodes: { host: string; port: number }[];
  /** The port of the master that serves `key`'s slot now; null while none does (mid-failover). */
  masterOf(key: string): number | null;
  masters(): number[];
  /** SIGKILL: the node is gone (its replica, if any, is promoted after the node timeout). */
  kill(port: number): void;
  alive(port: number): boolean;
  /** Whether the live nodes agree the cluster serves every slot. */
  healthy(): boolean;
  stop(): void;
}

export async function startRedisCluster(options: { replicas: 0 | 1 }): Promise<PrivateRedisCluster> {
  const servers: Servers = {
    dir: mkdtempSync(join(tmpdir(), 'contextd-redis-cluster-')),
    processes: new Map(),
  };
  try {
    const ports = await startServers(
      options.replicas ? 6 : 3,
      ({ port, bus }) => [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        // The bus port is chosen too: the default, port + 10000, may be taken (or above 65535).
        '--cluster-port',
        String(bus),
        // A short node timeout makes a failover take about a second, not fifteen.
        '--cluster-node-timeout',
        '1000',
        '--cluster-require-full-coverage',
        'yes',
      ],
      servers,
      true,
    );
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        String(options.replicas),
        '--cluster-yes',
      ],
      { stdio: 'pipe', timeout: 60_000 },
    );
    const alive = (port: number) => {
      const child = servers.processes.get(port);
      return Boolean(child && child.exitCode === null && child.signalCode === null && !child.killed);
    };
    const live = () => ports.filter(alive);
    const healthy = () =>
      live().every((p) => {
        const info = cli(p, 'cluster', 'info');
        return info.includes('cluster_state:ok') && info.includes('cluster_slots_ok:16384');
      });
    await until('cluster state ok', healthy);
    // A replica that never synced cannot take over: wait until each one has its master's data.
    await until('every replica synced', () =>
      ports.every(
        (p) =>
          !cli(p, 'role').startsWith('slave') ||
          cli(p, 'info', 'replication').includes('master_link_status:up'),
      ),
    );
    const masterOf = (key: string) => {
      const [from] = live();
      const slot = Number(cli(from!, 'cluster', 'keyslot', key));
      for (const line of cli(from!, 'cluster', 'nodes').split('\n')) {
        const fields = line.split(' ');
        if (!fields[2]?.includes('master') || fields[2].includes('fail')) continue;
        for (const range of fields.slice(8)) {
          const [lo, hi = lo] = range.split('-').map(Number);
          if (slot >= lo! && slot <= hi!) return Number(fields[1]!.split(':')[1]!.split('@')[0]);
        }
      }
      return null;
    };
    return {
      dir: servers.dir,
      nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
      masterOf,
      masters: () => live().filter((p) => cli(p, 'role').startsWith('master')),
      kill: (port) => servers.processes.get(port)?.kill('SIGKILL'),
      alive,
      healthy,
      stop: () => stopServers(servers),
    };
  } catch (error) {
    stopServers(servers);
    throw error;
  }
}

export interface PrivateRedisSentinel {
  sentinels: { host: string; port: number }[];
  name: string;
  master(): number;
  /** Asks the sentinel to promote the replica now (a planned failover); resolves once it started. */
  failover(): Promise<void>;
  stop(): void;
}

/** A master, its replica and one sentinel (quorum 1) watching them. */
export async function startRedisSentinel(): Promise<PrivateRedisSentinel> {
  const servers: Servers = {
    dir: mkdtempSync(join(tmpdir(), 'contextd-redis-sentinel-')),
    processes: new Map(),
  };
  const name = 'contextd';
  try {
    const [master] = await startServers(1, () => [], servers);
    await startServers(1, () => ['--replicaof', '127.0.0.1', String(master)], servers);
    const sentinelPort = await freePort();
    const conf = join(servers.dir, 'sentinel.conf');
    execFileSync('sh', [
      '-c',
      `printf 'port %s\\nbind 127.0.0.1\\ndir %s\\nsentinel monitor ${name} 127.0.0.1 %s 1\\nsentinel down-after-milliseconds ${name} 1000\\nsentinel failover-timeout ${name} 5000\\n' ${sentinelPort} ${servers.dir} ${master} > ${conf}`,
    ]);
    servers.processes.set(
      sentinelPort,
      spawn('redis-server', [conf, '--sentinel', '--logfile', join(servers.dir, 'sentinel.log')], {
        stdio: 'ignore',
      }),
    );
    const masterPort = () =>
      Number(cli(sentinelPort, 'sentinel', 'get-master-addr-by-name', name).split('\n')[1]);
    // A replica the sentinel has not yet seen in sync is no candidate: `sentinel failover`
    // would answer NOGOODSLAVE and promote nothing.
    await until('sentinel sees a replica in sync', () => {
      const fields = cli(sentinelPort, 'sentinel', 'replicas', name).split('\n');
      const field = (key: string) => fields[fields.indexOf(key) + 1];
      return field('flags') === 'slave' && field('master-link-status') === 'ok';
    });
    return {
      sentinels: [{ host: '127.0.0.1', port: sentinelPort }],
      name,
      master: masterPort,
      failover: async () => {
        // The sentinel refuses while it has no fresh view of a good replica (NOGOODSLAVE) or
        // a failover is already running (INPROG); ask again until it starts one.
        await until('the sentinel starts a failover', () => {
          const reply = cli(sentinelPort, 'sentinel', 'failover', name);
          return reply === 'OK' || reply.includes('INPROG');
        });
      },
      stop: () => stopServers(servers),
    };
  } catch (error) {
    stopServers(servers);
    throw error;
  }
}
