// The chaos harness's own processes: a PostgreSQL cluster (initdb into a temp dir), a redis-server
// and contextd instances, all on free ports of 127.0.0.1, with the signals the faults need
// (kill -9 and restart, SIGSTOP/SIGCONT). Nothing here touches the machine's shared servers.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../free-port.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil(
  what: string,
  ms: number,
  check: () => Promise<boolean>,
  gaveUp: () => boolean = () => false,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (gaveUp() || (await check().catch(() => false))) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** As root, PostgreSQL refuses to run: its binaries run as the postgres user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export interface ChaosClusterOptions {
  instances: number;
  apiKey: string;
  tenantId: string;
  /** Extra environment for every contextd instance. */
  env?: Record<string, string>;
  /** Where instance and server logs go (kept when set; a temp dir removed at stop otherwise). */
  logDir?: string;
}

export interface Instance {
  index: number;
  port: number;
  url: string;
  child: ChildProcess | null;
  stopped: boolean;
}

/** An instance that exited without being told to (the harness restarts it, as a supervisor would). */
export interface UnplannedExit {
  instance: number;
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last error line the instance logged before it went. */
  lastError: string;
}

/** A start that ended before /healthz answered (a lost port race is retried on a new port). */
export interface StartFailure {
  instance: number;
  attempt: number;
  /** The exit status or timeout and the last lines the process wrote. */
  tail: string;
}

const live = new Set<ChaosCluster>();

/** Stops every cluster still running (a signal or a watchdog ends the harness early). */
export async function stopLiveClusters(): Promise<void> {
  await Promise.all([...live].map((cluster) => cluster.stop()));
}

/** Everything the harness started; `stop()` ends all of it and removes the temp dir, once. */
export class ChaosCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'contextd-chaos-'));
  readonly pgDir = join(this.dir, 'pg');
  pgPort = 0;
  redisPort = 0;
  readonly instances: Instance[] = [];
  private postgres: ChildProcess | null = null;
  private redis: ChildProcess | null = null;
  private readonly user = postgresUser();
  private readonly logs: WriteStream[] = [];
  private stopping: Promise<void> | null = null;
  readonly unplannedExits: UnplannedExit[] = [];
  readonly startFailures: StartFailure[] = [];
  private readonly restarts = new Set<Promise<void>>();

  constructor(private readonly options: ChaosClusterOptions) {
    live.add(this);
  }

  get databaseUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.pgPort}/contextd`;
  }
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.pgPort}/postgres`;
  }
  get redisUrl(): string {
    return `redis://127.0.0.1:${this.redisPort}`;
  }

  private log(name: string): WriteStream {
    const dir = this.options.logDir ?? join(this.dir, 'logs');
    mkdirSync(dir, { recursive: true });
    const stream = createWriteStream(join(dir, `${name}.log`), { flags: 'a' });
    this.logs.push(stream);
    return stream;
  }

  private spawnLogged(name: string, command: string, args: string[], extra: object = {}): ChildProcess {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...extra });
    const out = this.log(name);
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    child.on('error', (error) => out.write(`spawn error: ${error.message}\n`));
    return child;
  }

  /** PostgreSQL (with an empty `contextd` database) and Redis. */
  async startBackends(): Promise<void> {
    [this.pgPort, this.redisPort] = [await freePort(), await freePort()];
    await this.startPostgres();
    await this.startRedis();
  }

  async startInstances(): Promise<void> {
    for (let i = 0; i < this.options.instances; i += 1) {
      this.instances.push({ index: i, port: await freePort(), url: '', child: null, stopped: false });
    }
    await Promise.all(this.instances.map((instance) => this.startInstance(instance)));
  }

  private async startPostgres(): Promise<void> {
    mkdirSync(this.pgDir, { mode: 0o700 });
    if (this.user) {
      chownSync(this.dir, this.user.uid, this.user.gid);
      chownSync(this.pgDir, this.user.uid, this.user.gid);
    }
    const asPostgres = this.user ? { uid: this.user.uid, gid: this.user.gid } : {};
    execFileSync(
      join(PG_BIN, 'initdb'),
      ['-D', this.pgDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
      { ...asPostgres, stdio: 'ignore', cwd: this.dir },
    );
    this.postgres = this.spawnLogged(
      'postgres',
      join(PG_BIN, 'postgres'),
      [
        '-D',
        this.pgDir,
        '-p',
        String(this.pgPort),
        '-k',
        this.dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
        '-c',
        'shared_buffers=64MB',
      ],
      { ...asPostgres, cwd: this.dir },
    );
    const { default: postgres } = await import('postgres');
    await waitUntil('postgres to accept connections', 30_000, async () => {
      const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 2 });
      try {
        await admin`select 1`;
        return true;
      } finally {
        await admin.end({ timeout: 1 });
      }
    });
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe('create database contextd');
    await admin.end();
  }

  /** The postmaster's pid, from its pid file (the spawned process is the postmaster itself). */
  get postmasterPid(): number | undefined {
    try {
      return Number(readFileSync(join(this.pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return this.postgres?.pid;
    }
  }

  pausePostgres(): void {
    signal(this.postmasterPid, 'SIGSTOP');
  }
  resumePostgres(): void {
    signal(this.postmasterPid, 'SIGCONT');
  }

  async startRedis(): Promise<void> {
    this.redis = this.spawnLogged('redis', 'redis-server', [
      '--port',
      String(this.redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
    ]);
    const { Redis } = await import('ioredis');
    await waitUntil('redis to answer PING', 15_000, async () => {
      const client = new Redis(this.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      client.on('error', () => {});
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    });
  }

  async killRedis(): Promise<void> {
    const redis = this.redis;
    signal(redis?.pid, 'SIGKILL');
    if (redis) await exited(redis);
    this.redis = null;
  }

  /**
   * Starts an instance and waits for /healthz. An instance that exits before it answers did not
   * start: that is recorded apart from crashes, and only a lost port race (another process took
   * the free port first: EADDRINUSE) is retried, on a new port. Anything else fails the run with
   * the instance's last log lines.
   */
  async startInstance(instance: Instance): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const failure = await this.spawnInstance(instance);
      if (!failure) return;
      this.startFailures.push({ instance: instance.index, attempt, tail: failure });
      if (!/EADDRINUSE/.test(failure) || attempt >= 3) {
        throw new Error(`contextd instance ${instance.index} did not start:\n${failure}`);
      }
      instance.port = await freePort();
    }
  }

  /** One start: undefined once healthy, else why not (the last lines the process wrote). */
  private async spawnInstance(instance: Instance): Promise<string | undefined> {
    instance.url = `http://127.0.0.1:${instance.port}`;
    const child = this.spawnLogged(
      `contextd-${instance.index}`,
      process.execPath,
      ['--import', 'tsx', 'src/server.ts'],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(instance.port),
          DATABASE_URL: this.databaseUrl,
          REDIS_URL: this.redisUrl,
          API_KEYS: `${this.options.tenantId}:${this.options.apiKey}`,
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_MINUTE: '10000000',
          // Faults are what this run injects; load shedding is bench:overload's.
          MAX_WORK_IN_FLIGHT: '0',
          ...this.options.env,
        },
      },
    );
    instance.child = child;
    instance.stopped = false;
    let ready = false;
    let lastError = '';
    const tail: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line.slice(0, 600));
        if (tail.length > 20) tail.shift();
        if (/"level":(50|60)/.test(line)) lastError = line.slice(0, 600);
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let gone = false;
    const exit = new Promise<string>((resolve) => {
      child.once('exit', (code, sig) => {
        resolve(`exit ${code ?? sig}\n${tail.join('\n')}`);
        gone = true;
        if (!ready || instance.child !== child || this.stopping) return;
        this.unplannedExits.push({ instance: instance.index, at: Date.now(), code, signal: sig, lastError });
        instance.child = null;
        const restart = sleep(500)
          .then(() => (this.stopping ? undefined : this.startInstance(instance)))
          .catch(() => {})
          .finally(() => this.restarts.delete(restart));
        this.restarts.add(restart);
      });
    });
    const healthy = waitUntil(
      `contextd instance ${instance.index} to answer /healthz`,
      90_000,
      async () => {
        const response = await fetch(`${instance.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
        return response.ok;
      },
      () => gone,
    ).then(
      () => undefined,
      (error: Error) => `${error.message}\n${tail.join('\n')}`,
    );
    const failure = await Promise.race([exit, healthy]);
    if (failure === undefined) {
      ready = true;
      return undefined;
    }
    if (instance.child === child) instance.child = null;
    signal(child.pid, 'SIGKILL');
    await exited(child);
    return failure;
  }

  async killInstance(instance: Instance): Promise<void> {
    const child = instance.child;
    instance.child = null;
    signal(child?.pid, 'SIGKILL');
    if (child) await exited(child);
  }

  /** Waits for restarts of instances that exited on their own. */
  async settled(): Promise<void> {
    while (this.restarts.size > 0) await Promise.all([...this.restarts]);
  }

  pauseInstance(instance: Instance): void {
    instance.stopped = true;
    signal(instance.child?.pid, 'SIGSTOP');
  }
  resumeInstance(instance: Instance): void {
    signal(instance.child?.pid, 'SIGCONT');
    instance.stopped = false;
  }

  /** Ends every process (resuming paused ones first so they can die) and removes the temp dir. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    await Promise.race([this.settled(), sleep(65_000)]);
    this.resumePostgres();
    const children = [...this.instances.map((i) => i.child), this.redis];
    for (const child of children) {
      signal(child?.pid, 'SIGCONT');
      signal(child?.pid, 'SIGKILL');
    }
    await Promise.race([Promise.all(children.map((c) => (c ? exited(c) : undefined))), sleep(5_000)]);
    // Immediate shutdown: the data dir is thrown away anyway.
    const postgres = this.postgres;
    signal(postgres?.pid, 'SIGQUIT');
    if (postgres) await Promise.race([exited(postgres), sleep(5_000)]);
    signal(postgres?.pid, 'SIGKILL');
    for (const stream of this.logs) stream.end();
    rmSync(this.dir, { recursive: true, force: true });
    live.delete(this);
  }
}
