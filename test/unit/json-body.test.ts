// The JSON body parser answers every body as the checked way does: the nesting limit on the raw
// text, then Fastify's parser (prototype-poisoning checks included).
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerJsonBodyParser } from '../../src/http/json-body.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../src/shared/json-depth.js';

type Done = (error: unknown, value: unknown) => void;
type BodyParser = (request: unknown, body: string, done: Done) => void;

function parsers(): { ours: BodyParser; checked: BodyParser } {
  const app = Fastify();
  const fastifyParse = app.getDefaultJsonParser('error', 'error') as unknown as BodyParser;
  let ours: BodyParser | undefined;
  registerJsonBodyParser({
    getDefaultJsonParser: app.getDefaultJsonParser.bind(app),
    removeContentTypeParser: () => undefined,
    addContentTypeParser: (_type: string, _options: unknown, fn: BodyParser) => {
      ours = fn;
    },
  } as unknown as FastifyInstance);
  const checked: BodyParser = (request, text, done) => {
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) return done({ code: 'request.json_too_deep' }, undefined);
    fastifyParse(request, text, done);
  };
  return { ours: ours!, checked };
}

const outcome = (parse: BodyParser, text: string) => {
  let result: unknown;
  parse({}, text, (error, value) => {
    const e = error as { code?: string; message?: string } | null;
    result = e ? { error: e.code ?? e.message } : { value };
  });
  return result;
};

const nest = (n: number, inner = '1') => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;
const nestObjects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

const bodies = [
  '',
  ' ',
  '1',
  '"x"',
  'null',
  '{}',
  '[]',
  '{"events":[{"type":"message.created","text":"[[[{{{ \\" \\\\"}]}',
  nest(MAX_JSON_DEPTH),
  nest(MAX_JSON_DEPTH + 1),
  nestObjects(MAX_JSON_DEPTH),
  nestObjects(MAX_JSON_DEPTH + 1),
  nest(5000),
  `${'['.repeat(5000)}`,
  `${nest(MAX_JSON_DEPTH + 1)}x`,
  `{"a":"${'['.repeat(100)}"}`,
  '{"__proto__":{"x":1}}',
  '{"a":[{"b":{"__proto__":1}}]}',
  '{"\\u005f_proto__":1}',
  '{"_\\u005fproto__":{}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":{"constructor":{"prototype":1}}}',
  '{"constructor":1}',
  '{"constructor":{"x":1}}',
  '{"c\\u006fnstructor":{"prototype":{}}}',
  '{"text":"say \\"__proto__\\": hi"}',
  '{"text":"constructor"}',
  '\ufeff{"a":1}',
  '\ufeff',
  '{"a":1,}',
  '{"a":1} x',
  '[1,2,{"b":[true,false,null,"s"]}]',
];

describe('JSON body parser', () => {
  const { ours, checked } = parsers();
  it('answers every body as the nesting check and Fastify’s parser do', () => {
    for (const text of bodies) expect(outcome(ours, text), text.slice(0, 80)).toEqual(outcome(checked, text));
  });
});
