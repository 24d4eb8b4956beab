// The OpenAPI document says what every reply is (no generator "Default Response"), documents the
// blob GET's byte replies, shows request examples for turns, events and memories, and carries the
// package's version.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Operation {
  operationId: string;
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { example?: unknown; examples?: unknown }> };
}
const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
};
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
const byId = (id: string) => operations.find((op) => op.operationId === id)!;

describe('OpenAPI replies', () => {
  it('no reply of any operation is described as "Default Response"', () => {
    const undescribed = operations.flatMap((op) =>
      Object.entries(op.responses)
        .filter(([, reply]) => !reply.description || reply.description === 'Default Response')
        .map(([status]) => `${op.operationId} ${status}`),
    );
    expect(undescribed).toEqual([]);
    // Every operation documents at least one success.
    expect(operations.filter((op) => !Object.keys(op.responses).some((s) => s.startsWith('2')))).toEqual([]);
  });

  it("info.version is package.json's version", () => {
    expect(document.info.version).toBe(pkg.version);
  });

  it('the blob GET documents its whole (200) and ranged (206) bytes and the text slice', () => {
    const { responses } = byId('getBlob');
    expect(Object.keys(responses['200']!.content!).sort()).toEqual(['*/*', 'application/json']);
    expect(responses['200']!.content!['*/*']).toMatchObject({ schema: { type: 'string', format: 'binary' } });
    expect(responses['206']!.content!['*/*']).toMatchObject({ schema: { type: 'string', format: 'binary' } });
    expect(responses['206']!.description).toMatch(/Range/);
  });

  it('the turns, events and memories request bodies carry an example', () => {
    for (const id of ['appendTurns', 'ingestEvents', 'createMemory', 'updateMemory', 'searchMemories']) {
      const media = byId(id).requestBody!.content['application/json']!;
      expect(media.example ?? media.examples, id).toBeDefined();
    }
  });
});
