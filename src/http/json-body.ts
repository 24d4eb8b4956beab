// The JSON body parser: Fastify's own (prototype-poisoning checks included), behind a nesting
// limit checked on the raw text before anything recursive runs.
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../shared/errors.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../shared/json-depth.js';

export const jsonTooDeep = () =>
  badRequest('request.json_too_deep', `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, {
    max_depth: MAX_JSON_DEPTH,
  });

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) return done(jsonTooDeep(), undefined);
    parse(request, text, done);
  });
}
