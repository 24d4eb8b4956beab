// The JSON body parser: Fastify's own (prototype-poisoning checks included), behind a nesting
// limit. A body is parsed once: JSON.parse (iterative in V8, no deep recursion) and one walk of the
// value that measures its nesting and looks for the keys Fastify's parser refuses; only a body
// that fails to parse, nests too deep or holds such a key goes the checked way (the limit measured
// on the raw text first, then Fastify's parser), which answers it as before.
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../shared/errors.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../shared/json-depth.js';

export const jsonTooDeep = () =>
  badRequest('request.json_too_deep', `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, {
    max_depth: MAX_JSON_DEPTH,
  });

/** parsedShape: the value nests arrays/objects deeper than the limit. */
const TOO_DEEP = 1;
/** parsedShape: an object has an own `__proto__` or `constructor` key (secure-json-parse's concern). */
const PROTO_KEY = 2;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * One walk of a parsed JSON value (a stack, no recursion): TOO_DEEP when it nests deeper than
 * `limit` (for parsed JSON, what the text's brackets give), PROTO_KEY on the first object that has
 * an own `__proto__` or `constructor` key, else 0.
 */
function parsedShape(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return TOO_DEEP;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const item: unknown = node[i];
        if (typeof item === 'object' && item !== null) {
          nodes.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    if (hasOwn.call(node, '__proto__') || hasOwn.call(node, 'constructor')) return PROTO_KEY;
    for (const key in node) {
      const item: unknown = (node as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) {
        nodes.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return 0;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    const checked = () => {
      if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) return done(jsonTooDeep(), undefined);
      parse(request, text, done);
    };
    // Empty, or with a byte order mark (which Fastify's parser strips): its way.
    if (text.length === 0 || text.charCodeAt(0) === 0xfeff) return checked();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return checked();
    }
    const shape = parsedShape(value, MAX_JSON_DEPTH);
    if (shape === TOO_DEEP) return done(jsonTooDeep(), undefined);
    if (shape === PROTO_KEY) return checked();
    done(null, value);
  });
}
