// The examples in the OpenAPI document are parsed by the schemas they illustrate.
import { describe, expect, it } from 'vitest';
import { eventBatchSchema } from '../../src/shared/channel-events.js';
import { contextReplyExample, contextRequestExample } from '../../src/modules/context/context.examples.js';
import { contextBody, contextReplySchema } from '../../src/modules/context/context.schemas.js';
import {
  createBody as createMemoryBody,
  patchBody as patchMemoryBody,
  searchBody as searchMemoriesBody,
} from '../../src/modules/memory/memory.schemas.js';
import { appendBody, createSessionBody } from '../../src/modules/sessions/sessions.schemas.js';
import { readFileSync } from 'node:fs';

describe('OpenAPI examples', () => {
  it('the context request and reply examples match their schemas', () => {
    expect(contextBody.safeParse(contextRequestExample).error).toBeUndefined();
    expect(contextReplySchema.safeParse(contextReplyExample).error).toBeUndefined();
  });

  it('the events example matches the batch schema', () => {
    const examples = eventBatchSchema.meta()?.examples as unknown[];
    expect(examples).toHaveLength(1);
    expect(eventBatchSchema.safeParse(examples[0]).error).toBeUndefined();
  });

  it('the session, turns and memory examples match their schemas', () => {
    for (const schema of [
      createSessionBody,
      appendBody,
      createMemoryBody,
      patchMemoryBody,
      searchMemoriesBody,
    ]) {
      const examples = schema.meta()?.examples as unknown[];
      expect(examples).toHaveLength(1);
      expect(schema.safeParse(examples[0]).error).toBeUndefined();
    }
  });

  it('every tag an operation uses is described, and every described tag is used', () => {
    const document = JSON.parse(
      readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'),
    ) as {
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const used = new Set(
      Object.values(document.paths).flatMap((path) => Object.values(path).flatMap((op) => op.tags ?? [])),
    );
    const described = document.tags.filter((tag) => tag.description.length > 20).map((tag) => tag.name);
    expect([...used].sort()).toEqual([...described].sort());
  });

  it('a reply whose payload is not a Messages request is refused', () => {
    const bad = { ...contextReplyExample, payload: { ...contextReplyExample.payload, max_tokens: '8192' } };
    expect(contextReplySchema.safeParse(bad).success).toBe(false);
  });
});
