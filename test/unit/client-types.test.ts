// The typed client (client/, docs/api.md "Typed client"): its generated schema matches the committed
// openapi/openapi.json, and a bot loop written with it compiles against the real Anthropic SDK
// with no cast — context().payload spread into messages.create, message.content and usage appended
// as they came back, a tool_use block's input run as it is — while misuses do not compile.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClientSchema } from '../../client/scripts/render-schema.js';

const root = new URL('../../', import.meta.url);
// Under node_modules so that @contextd/client and @anthropic-ai/sdk resolve as in a bot's project.
const dir = join(root.pathname, 'node_modules', '.cache', `contextd-client-${process.pid}`);

const header = `import Anthropic from '@anthropic-ai/sdk';
import { ContextdError, createContextdClient, type ContextRequest } from '@contextd/client';

const contextd = createContextdClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'key' });
`;

const botLoop = `${header}
export async function turn(anthropic: Anthropic, sessionId: string, model: string) {
  const reply = await contextd.context(sessionId, { message: { content: 'is the rollout blocked?' } });
  let message = await anthropic.messages.create({ ...reply.payload });
  message = await anthropic.messages.create({ ...reply.payload, model, metadata: { user_id: 'U1' } });
  message = await anthropic.messages.create(reply.payload);
  await contextd.appendTurns(
    sessionId,
    [{ role: 'assistant', content: message.content, usage: message.usage, model: message.model }],
    { idempotencyKey: message.id },
  );
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    const result = await contextd.runTool(sessionId, block.name, block.input);
    const content = [{ type: 'tool_result', tool_use_id: block.id, content: result.content, is_error: result.is_error }];
    await contextd.appendTurns(sessionId, [{ role: 'user', content }]);
  }
  const openai = await contextd.context(sessionId, { message: { content: 'and now?' }, format: 'openai' });
  return openai.payload.messages.length;
}

export function describeError(error: unknown): string {
  if (!(error instanceof ContextdError)) throw error;
  const status: number = error.status;
  const code: string = error.code;
  return \`\${status} \${code} \${error.message} \${String(error.details)} \${error.requestId ?? ''}\`;
}
`;

// Each must fail: an OpenAI reply sent to the Messages API; a body whose format is not known
// statically (the reply could be either); a model the payload would override (TS2783); a turn role
// the API does not have; an error code read as a number.
const misuses = `${header}
export async function openai(anthropic: Anthropic, id: string) {
  const reply = await contextd.context(id, { message: { content: 'hi' }, format: 'openai' });
  return anthropic.messages.create({ ...reply.payload });
}
export async function unknownFormat(anthropic: Anthropic, id: string, body: ContextRequest) {
  const reply = await contextd.context(id, body);
  return anthropic.messages.create(reply.payload);
}
export async function overridden(anthropic: Anthropic, id: string, model: string) {
  const reply = await contextd.context(id, { message: { content: 'hi' } });
  return anthropic.messages.create({ model, ...reply.payload });
}
export async function systemTurn(id: string) {
  return contextd.appendTurns(id, [{ role: 'system', content: 'hi' }]);
}
export function numericCode(error: ContextdError): number {
  return error.code;
}
`;

type Diagnostic = { file: string; line: number; message: string };

/** Both files in one program (the SDK's types are read once). */
function compile(files: string[]): Diagnostic[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@contextd/source'],
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file?.fileName ?? '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

describe('the typed client', () => {
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'bot-loop.ts'), botLoop);
    writeFileSync(join(dir, 'misuses.ts'), misuses);
    diagnostics = compile([join(dir, 'bot-loop.ts'), join(dir, 'misuses.ts')]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let diagnostics: Diagnostic[] = [];
  const of = (name: string) => diagnostics.filter((d) => d.file === join(dir, name));

  it('has client/src/schema.d.ts generated from the committed openapi/openapi.json (run `npm run openapi`)', async () => {
    const document = readFileSync(new URL('openapi/openapi.json', root), 'utf8');
    const committed = readFileSync(new URL('client/src/schema.d.ts', root), 'utf8');
    expect(await renderClientSchema(document)).toBe(committed);
  });

  it('types a bot loop over the Anthropic SDK with no cast', () => {
    expect(of('bot-loop.ts')).toEqual([]);
  });

  it('refuses an OpenAI or un-narrowed payload, an overridden model, a system turn, a numeric code', () => {
    const errors = of('misuses.ts');
    const lineOf = (text: string) => misuses.split('\n').findIndex((l) => l.includes(text)) + 1;
    expect(errors.map((e) => e.line)).toEqual([
      lineOf('return anthropic.messages.create({ ...reply.payload })'),
      lineOf('return anthropic.messages.create(reply.payload)'),
      lineOf('{ model, ...reply.payload }'),
      lineOf("role: 'system'"),
      lineOf('return error.code'),
    ]);
    expect(errors[2]!.message).toMatch(/'model' is specified more than once/);
  });
});
