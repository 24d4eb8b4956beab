// The document says which operations need an API key the way the auth hook decides it: health,
// readiness, metrics and the platform webhooks need none; everything else under /v1 needs one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Operation {
  security?: unknown[];
}
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  security: unknown[];
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method, security: op.security ?? doc.security })),
);

describe('OpenAPI security', () => {
  it.each([['/healthz'], ['/readyz'], ['/metrics']])('%s is documented as open (no API key)', (path) => {
    const found = operations.filter((op) => op.path === path);
    expect(found.length).toBeGreaterThan(0);
    for (const op of found) expect(op.security).toEqual([]);
  });

  it('every /v1 operation except the webhooks requires the bearer key; nothing else does', () => {
    for (const op of operations) {
      const keyed = op.path.startsWith('/v1/') && !op.path.startsWith('/v1/webhooks/');
      expect(op.security, `${op.method} ${op.path}`).toEqual(keyed ? [{ bearer: [] }] : []);
    }
  });
});
