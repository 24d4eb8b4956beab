// @contextd/client as a bot author gets it: `npm pack` (which builds dist/), the tarball installed
// into a fresh project outside the repository next to the real Anthropic SDK, and the bot loop of
// client/README.md run as it is written, with plain node, against a contextd process on embedded
// storage and the strict fake of the Messages API: the tool result goes back, the model answers.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../../examples/fake-anthropic.js';
import { freePort } from '../helpers/private-postgres.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'contextd-client-package-'));
const project = join(work, 'bot');

/** The first ```js block of the client's README: the loop a bot author copies. */
function readmeLoop(): string {
  const readme = readFileSync(join(root, 'client', 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('client/README.md has no js block');
  return block[1]!;
}

/** A contextd process with no configuration but a data directory; resolves with its dev key. */
async function startContextd(port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(work, 'data'),
      SHUTDOWN_DRAIN_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const key = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(ctxd_[A-Za-z0-9_-]+)/.exec(output);
      if (found && output.includes('contextd listening')) resolve(found[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`contextd exited with ${code}: ${output}`)));
  });
  return { child, key };
}

let fake: FakeAnthropic;
let port: number;
let contextd: Awaited<ReturnType<typeof startContextd>> | undefined;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  port = await freePort();
  contextd = await startContextd(port);
});
afterAll(async () => {
  contextd?.child.kill('SIGKILL');
  await fake?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Asks contextd's channel_context tool first, then answers with what the tool returned. */
function model(request: FakeRequest) {
  const last = request.messages.at(-1)!;
  const blocks = Array.isArray(last.content) ? (last.content as { type: string; content?: unknown }[]) : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result)
    return `Blocked by: ${JSON.stringify(result.content).includes('DB migration') ? 'the DB migration' : '?'}`;
  return [
    {
      type: 'tool_use' as const,
      id: 'toolu_1',
      name: 'channel_context',
      input: { intent: 'rollout blockers' },
    },
  ];
}

describe('the packed client', () => {
  it(
    'installs from its tarball into a fresh project and runs the README loop with plain node',
    { timeout: 300_000 },
    async () => {
      const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
        cwd: join(root, 'client'),
      });
      const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
        filename: string;
        files: { path: string }[];
      }[];
      const files = manifest!.files.map((f) => f.path).sort();
      expect(files).toEqual(
        expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts']),
      );
      expect(
        files.filter((f) => f.startsWith('src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
      ).toEqual([]);

      // A project outside the repository: nothing resolves through the workspace.
      const sdk = JSON.parse(
        readFileSync(join(root, 'node_modules/@anthropic-ai/sdk/package.json'), 'utf8'),
      ) as {
        version: string;
      };
      await run('mkdir', ['-p', project]);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'bot', private: true, type: 'module' }),
      );
      await run(
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
          join(work, manifest!.filename),
          `@anthropic-ai/sdk@${sdk.version}`,
        ],
        { cwd: project },
      );
      writeFileSync(join(project, 'bot.mjs'), readmeLoop());

      fake.respond = model;
      const bot = await run(process.execPath, ['bot.mjs'], {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          CONTEXTD_URL: `http://127.0.0.1:${port}`,
          CONTEXTD_API_KEY: await contextd!.key,
          ANTHROPIC_API_KEY: 'test-key',
          ANTHROPIC_BASE_URL: fake.baseURL,
        },
      });
      expect(bot.stdout).toContain('Blocked by: the DB migration');
      expect(bot.stdout).toContain('2 model calls, tools: channel_context');
      expect(fake.rejections).toEqual([]);
      // The second call carried the tool's result, answering the first call's tool_use.
      const second = fake.requests[1]!.messages.at(-1)!;
      expect(second.role).toBe('user');
      expect(JSON.stringify(second.content)).toContain('"tool_use_id":"toolu_1"');
    },
  );
});
