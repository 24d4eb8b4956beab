// One process per embedded DATA_DIR: `npm run keys` refuses while a server holds the directory
// (PGlite would let the second process write where the server never reads), and works once the
// server has stopped or when the holder died without cleaning up.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE, DataDirInUseError, holdDataDir } from '../../src/db/data-dir-lock.js';
import { freePort } from '../helpers/private-postgres.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'contextd-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function keys(dataDir: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', ...args], {
    cwd: root,
    env: { ...baseEnv, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** A pid that no process has: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

describe('DATA_DIR lock', () => {
  it(
    'npm run keys refuses while the server holds DATA_DIR, and works after it stopped',
    async () => {
      const dataDir = tempDir();
      // A port from the OS: a random one could be an outgoing connection's (the ephemeral range).
      const port = String(await freePort());
      const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        cwd: root,
        env: { ...baseEnv, PORT: port, HOST: '127.0.0.1', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      server.stdout.on('data', (d) => (output += d));
      server.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
      try {
        await waitUntil(() => output.includes('contextd listening'), { child: server, output: () => output });
        expect(existsSync(join(dataDir, DATA_DIR_LOCK_FILE))).toBe(true);

        const refused = keys(dataDir, 'create', '--tenant', 'acme');
        expect(refused.status).toBe(1);
        expect(refused.output).toContain(`pid ${server.pid}`);
        expect(refused.output).toMatch(/stop the server/i);
        expect(refused.output).toContain('DATABASE_URL');
        expect(refused.output).not.toMatch(/"key":"ctxd_/);

        server.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(existsSync(join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);

        const created = keys(dataDir, 'create', '--tenant', 'acme');
        expect(created.status).toBe(0);
        const { id } = JSON.parse(created.output.trim().split('\n').pop()!) as { id: string };
        const listed = keys(dataDir, 'list', '--tenant', 'acme');
        expect(listed.status).toBe(0);
        expect(listed.output).toContain(id);
      } finally {
        server.kill('SIGKILL');
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );

  it('takes over a lock whose process is gone, and refuses a second holder in the same process', () => {
    const dataDir = tempDir();
    writeFileSync(
      join(dataDir, DATA_DIR_LOCK_FILE),
      JSON.stringify({ pid: deadPid(), since: '2026-01-01T00:00:00.000Z', command: 'server', token: 'x' }),
    );
    const lock = holdDataDir(dataDir, 'test');
    expect(() => holdDataDir(dataDir, 'test')).toThrow(DataDirInUseError);
    lock.release();
    expect(existsSync(join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);
    holdDataDir(dataDir, 'test').release();
  });
});
