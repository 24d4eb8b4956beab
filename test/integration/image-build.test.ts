// The image without Docker (no engine here): what its two stages do, done here. The build stage's
// `npm run build` compiles the service into a temporary directory; every package the compiled code
// imports must be a production dependency (the final stage installs with --omit=dev); and the
// compiled entry starts with plain node, applies the migrations it ships with, answers /healthz,
// /readyz and the inspector's static files, and exits cleanly on SIGTERM.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usesRealPostgres } from '../helpers/app.js';
import { freePort } from '../helpers/private-postgres.js';
import { SLOW_TEST_TIMEOUT_MS, waitUntil } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** The package a bare specifier names: `@scope/name/x` → `@scope/name`, `name/x` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

// Built once, by the embedded run of the suite (the PostgreSQL run would only build it again).
describe.runIf(!usesRealPostgres)('the image, built and run without Docker', () => {
  let app: string;

  beforeAll(() => {
    // The final stage's layout: package.json, dist/ and drizzle/ side by side, node_modules beside them.
    app = mkdtempSync(join(tmpdir(), 'contextd-image-'));
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', join(app, 'dist')], {
      cwd: root,
      stdio: 'pipe',
    });
    cpSync(join(root, 'package.json'), join(app, 'package.json'));
    cpSync(join(root, 'drizzle'), join(app, 'drizzle'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'));
  }, SLOW_TEST_TIMEOUT_MS);
  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('imports only production dependencies (the final stage installs with --omit=dev)', () => {
    const imported = new Set<string>();
    // Static imports and re-exports (`import … from 'x'`, `import 'x'`, `export … from 'x'`) and
    // dynamic imports of a literal.
    const patterns = [
      /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
      /^\s*import\s*['"]([^'"]+)['"]/gm,
      /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    ];
    for (const file of jsFiles(join(app, 'dist'))) {
      const code = readFileSync(file, 'utf8');
      for (const [, specifier] of patterns.flatMap((pattern) => [...code.matchAll(pattern)])) {
        if (specifier!.startsWith('.') || isBuiltin(specifier!)) continue;
        imported.add(packageOf(specifier!));
      }
    }
    expect(imported.size).toBeGreaterThan(5);
    expect([...imported].filter((name) => !(name in pkg.dependencies)).sort()).toEqual([]);
  });

  it(
    'starts with plain node, migrates, serves /healthz, /readyz and /inspect, and stops on SIGTERM',
    async () => {
      const port = await freePort();
      const dataDir = mkdtempSync(join(tmpdir(), 'contextd-image-data-'));
      const child = spawn(process.execPath, ['dist/server.js'], {
        cwd: app,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          SHUTDOWN_DRAIN_MS: '100',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await waitUntil(() => output.includes('contextd listening'), { child, output: () => output });
        const base = `http://127.0.0.1:${port}`;
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: 'ready' });
        const page = await fetch(`${base}/inspect`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<html');
        expect((await fetch(`${base}/inspect/inspect.js`)).status).toBe(200);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    SLOW_TEST_TIMEOUT_MS,
  );
});
