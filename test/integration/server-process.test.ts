// The real process entry: starts with no configuration on embedded PGlite, serves /docs, prints a
// dev key, shuts down cleanly on SIGTERM; a bad variable stops start-up with its name.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/private-postgres.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('server process', () => {
  it(
    'starts with no env on embedded storage, serves /docs, and exits cleanly on SIGTERM',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'contextd-'));
      // A port from the OS: a random one could be an outgoing connection's (the ephemeral range).
      const port = String(await freePort());
      const server = startServer({
        PORT: port,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        SHUTDOWN_DRAIN_MS: '100',
      });
      try {
        await waitUntil(() => server.output().includes('contextd listening'), server);
        expect(server.output()).toMatch(/development API key for tenant \\"dev\\": ctxd_/);
        const docs = await fetch(`http://127.0.0.1:${port}/docs/`);
        expect(docs.status).toBe(200);
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect(await ready.json()).toMatchObject({ status: 'ready', checks: { redis: 'disabled' } });
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        expect(server.output()).toContain('shutting down');
      } finally {
        server.child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );

  it(
    'drains on SIGTERM: /readyz 503 for SHUTDOWN_DRAIN_MS while requests are served, no connection resets',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'contextd-'));
      // A port from the OS: a random one could be an outgoing connection's (the ephemeral range).
      const port = await freePort();
      const drainMs = 1_500;
      const server = startServer({
        PORT: String(port),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        SHUTDOWN_DRAIN_MS: String(drainMs),
        LOG_LEVEL: 'warn',
      });
      const agent = new Agent({ keepAlive: true, maxSockets: 4 });
      const get = (path: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
      try {
        await waitUntil(async () => (await get('/readyz').catch(() => 0)) === 200, {
          child: server.child,
          output: server.output,
          intervalMs: 200,
        });

        const resets: string[] = [];
        let sigtermAt = 0;
        let firstNotReady = 0;
        let lastServed = 0;
        let stopped = false;
        // Four keep-alive clients, each sending requests back to back until the listener is gone.
        const client = async () => {
          while (!stopped) {
            try {
              const [health, readiness] = [await get('/healthz'), await get('/readyz')];
              expect(health).toBe(200);
              if (readiness === 503 && !firstNotReady) firstNotReady = Date.now();
              if (sigtermAt) lastServed = Date.now();
              else expect(readiness).toBe(200);
            } catch (error) {
              const code = (error as { code?: string }).code ?? String(error);
              if (code === 'ECONNREFUSED') return; // the listener closed: a load balancer moved on
              resets.push(`${code} at +${Date.now() - sigtermAt} ms`);
              return;
            }
          }
        };
        const clients = Promise.all([client(), client(), client(), client()]);
        await new Promise((r) => setTimeout(r, 300));
        sigtermAt = Date.now();
        server.child.kill('SIGTERM');
        const exitCode = await server.exited;
        stopped = true;
        await clients;
        expect(resets).toEqual([]);
        expect(exitCode).toBe(0);
        // Readiness turned 503 while the listener still served, and requests were served after the
        // signal for at least half the drain period (how much longer depends on the machine's load).
        expect(firstNotReady).toBeGreaterThan(sigtermAt);
        expect(lastServed).toBeGreaterThanOrEqual(firstNotReady);
        expect(lastServed - sigtermAt).toBeGreaterThan(drainMs / 2);
      } finally {
        agent.destroy();
        server.child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );

  it(
    'refuses to start with a bad variable and names it',
    async () => {
      const server = startServer({ PORT: 'eighty' });
      expect(await server.exited).toBe(1);
      expect(server.output()).toContain('PORT');
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});
