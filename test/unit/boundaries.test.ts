// The layout's rules are enforced by `npm run check` (eslint.config.js): these lint sample files
// placed where they would break a rule, so a rule that stops firing fails here.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('module boundaries', () => {
  it('core/ and shared/ import no I/O', async () => {
    expect(
      await restricted(
        'src/modules/context/core/x.ts',
        "import { sql } from 'drizzle-orm';\nexport const a = sql;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/shared/x.ts',
        "import { createTranscriptRepository } from '../modules/sessions/transcript.repository.js';\nexport const a = createTranscriptRepository;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/modules/memory/core/x.ts',
        "import Fastify from 'fastify';\nexport const a = Fastify;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/modules/memory/core/x.ts',
        "import type { Db } from '../../../db/client.js';\nexport type A = Db;\n",
      ),
    ).toHaveLength(0);
  });

  it('routes never import a repository, and SQL stays in repositories', async () => {
    expect(
      await restricted(
        'src/modules/sessions/x.routes.ts',
        "import { createSessionsRepository } from './sessions.repository.js';\nexport const a = createSessionsRepository;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/modules/sessions/x.service.ts',
        "import { sql } from 'drizzle-orm';\nexport const a = sql;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'src/modules/sessions/x.repository.ts',
        "import { sql } from 'drizzle-orm';\nexport const a = sql;\n",
      ),
    ).toHaveLength(0);
  });

  it('Idempotency-Key is read and its replay header set only in src/http/idempotency/', async () => {
    const syntax = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax');
    };
    const handWritten =
      "export const f = (r: { headers: Record<string, unknown> }, reply: { header(n: string, v: string): void }) => {\n  reply.header('idempotent-replayed', 'true');\n  return r.headers['idempotency-key'];\n};\n";
    expect(await syntax('src/modules/sessions/x.routes.ts', handWritten)).toHaveLength(2);
    expect(await syntax('src/http/idempotency/x.ts', handWritten)).toHaveLength(0);
  });
});

describe('function length', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};`).join('\n');
  /** A function of `n` code lines between its braces (and a comment and a blank line, not counted). */
  const step = (n: number) =>
    `export function step(): number {\n  let total = 0;\n  // a comment\n\n${lines(n - 2)}\n  return total;\n}\n`;
  async function tooLong(filePath: string, code: string): Promise<number> {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages.filter((m) => m.ruleId === 'house/max-lines-per-function').length;
  }

  it('refuses a function over 120 lines of code, outside route registration', async () => {
    expect(await tooLong('src/modules/sessions/x.service.ts', step(118))).toBe(0);
    expect(await tooLong('src/modules/sessions/x.service.ts', step(119))).toBe(1);
    expect(await tooLong('src/modules/sessions/x.routes.ts', step(119))).toBe(0);
    expect(await tooLong('test/unit/x.test.ts', step(119))).toBe(0);
  });

  it('counts a factory closure by closure', async () => {
    const inner = (name: string, n: number) =>
      `  function ${name}() {\n    let total = 0;\n${lines(n)}\n    return total;\n  }\n`;
    const factory = (n: number) =>
      `export function createX() {\n${inner('a', 60)}${inner('b', n)}  return { a, b };\n}\n`;
    expect(await tooLong('src/modules/sessions/x.service.ts', factory(60))).toBe(0);
    expect(await tooLong('src/modules/sessions/x.service.ts', factory(130))).toBe(1);
  });
});
