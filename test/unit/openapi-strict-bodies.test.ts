// Request bodies are strict: every object a JSON body may contain says what it does with a field
// it does not name. Objects that keep what they are given (content blocks, metadata) say so with
// `additionalProperties`, the one that accepts and drops them (a provider's `usage`, sent as the
// SDK returns it) with `x-unknown-fields: dropped`; every other object refuses unknown fields
// (`additionalProperties: false`), so a misspelled field is a 400 instead of a silent default.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Schema = Record<string, unknown>;
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Paths (in the body) of object schemas that leave unknown fields unsaid: zod's default strip. */
function silentObjects(schema: unknown, at: string, seen = new Set<string>()): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    if (seen.has(s.$ref)) return [];
    seen.add(s.$ref);
    const name = s.$ref.split('/').pop()!;
    return silentObjects(doc.components?.schemas?.[name], at, seen);
  }
  const found: string[] = [];
  if (
    (s.type === 'object' || s.properties) &&
    !('additionalProperties' in s) &&
    s['x-unknown-fields'] !== 'dropped'
  )
    found.push(at || '(body)');
  for (const [name, child] of Object.entries((s.properties as Record<string, unknown>) ?? {})) {
    found.push(...silentObjects(child, `${at}.${name}`, seen));
  }
  if (s.items) found.push(...silentObjects(s.items, `${at}[]`, seen));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    found.push(...silentObjects(s.additionalProperties, `${at}.*`, seen));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    (s[key] as unknown[] | undefined)?.forEach((option, i) =>
      found.push(...silentObjects(option, `${at}|${i}`, seen)),
    );
  }
  return found;
}

describe('strict request bodies', () => {
  const bodies = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) =>
      Object.values(op.requestBody?.content ?? {}).map((c) => ({
        name: `${method.toUpperCase()} ${path}`,
        schema: c.schema,
      })),
    ),
  );

  it('covers the JSON bodies of the API', () => {
    expect(bodies.length).toBeGreaterThan(10);
  });

  it('every object in a request body refuses unknown fields or says it keeps them', () => {
    const silent = bodies.flatMap(({ name, schema }) =>
      silentObjects(schema, '').map((at) => `${name} ${at}`),
    );
    expect(silent).toEqual([]);
  });
});
