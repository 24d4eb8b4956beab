// A client generated from openapi/openapi.json by openapi-typescript must hand the context reply's
// payload to the real Anthropic SDK with no cast, and read an error's code as a string. The
// generated types and a small client are compiled with the project's TypeScript; a second client
// that misuses the reply must fail to compile (so the check can fail).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
// Under node_modules so that the client resolves @anthropic-ai/sdk as a user's project would.
const dir = join(root.pathname, 'node_modules', '.cache', `openapi-client-${process.pid}`);

const header = `import Anthropic from '@anthropic-ai/sdk';
import type { components, paths } from './contextd.js';

type ContextOperation = paths['/v1/sessions/{id}/context']['post'];
export type ContextRequest = ContextOperation['requestBody']['content']['application/json'];
export type ContextReply = ContextOperation['responses'][200]['content']['application/json'];
export type ApiError = components['schemas']['Error'];
`;

const goodClient = `${header}
export async function answer(anthropic: Anthropic, reply: ContextReply, model: string) {
  if (reply.format !== 'anthropic') throw new Error('asked for the Anthropic format');
  const message = await anthropic.messages.create(reply.payload);
  const other = await anthropic.messages.create({ ...reply.payload, model, metadata: { user_id: 'u1' } });
  return [message.content, other.content];
}

export function errorCode(body: ApiError): string {
  return body.error.code;
}

export const request: ContextRequest = {
  message: { content: 'hello' },
  budget: { total: 200000, max_output_tokens: 4096 },
  compaction: 'auto',
};
`;

// The OpenAI form of the payload is not a Messages API request: without narrowing, this must not
// compile. Neither may a model placed before the payload: the payload always names the model it was
// budgeted for, so the spread would silently override the caller's (TS2783).
const badClient = `${header}
export async function unnarrowed(anthropic: Anthropic, reply: ContextReply) {
  return anthropic.messages.create(reply.payload);
}
export async function overridden(anthropic: Anthropic, reply: ContextReply, model: string) {
  if (reply.format !== 'anthropic') throw new Error('asked for the Anthropic format');
  return anthropic.messages.create({ model, ...reply.payload });
}
`;

function compile(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated from openapi/openapi.json', () => {
  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    const ast = await openapiTS(new URL('openapi/openapi.json', root));
    writeFileSync(join(dir, 'contextd.ts'), astToString(ast));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'good.ts'), goodClient);
    writeFileSync(join(dir, 'bad.ts'), badClient);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends reply.payload (or { ...reply.payload, model }) to anthropic.messages.create with no cast, and reads error.code', () => {
    expect(compile(join(dir, 'good.ts'))).toEqual([]);
  });

  it('refuses the un-narrowed reply and a model the payload would override', () => {
    const errors = compile(join(dir, 'bad.ts'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/not assignable/);
    expect(errors[1]).toMatch(/'model' is specified more than once/);
  });
});
