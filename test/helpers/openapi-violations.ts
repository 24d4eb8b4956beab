// fast-check arbitraries driven by the OpenAPI document: for a JSON Schema, values that are
// roughly valid, and values that break it in one place (wrong type, missing required field,
// over-long string, out-of-range number, bad enum, bad format, junk nested deep). For an
// operation, whole requests: hostile path parameters, bad query values, bad bodies, wrong
// content types. The bad-input sweep sends them and expects no 5xx and no partial write.
import fc from 'fast-check';

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  format?: string;
};

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  operationId?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

export interface GeneratedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Which kind of violation was generated, for the report. */
  kind: string;
}

const MAX_DEPTH = 6;

/** Strings that have broken services before: traversal, SQL, NUL, bidi overrides, lone surrogates. */
export const HOSTILE_STRINGS = [
  "'; drop table sessions; --",
  '../../etc/passwd',
  '..%2F..%2F',
  '%00',
  '\u0000',
  '\ud800',
  '\udc00x',
  '\u202e\u200b\ufeff',
  '👨‍👩‍👧‍👦🇺🇳',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  '-1',
  '1e309',
  ' ',
  '',
];

export function resolver(doc: OpenApiDocument) {
  const resolve = (schema: JsonSchema | undefined, depth = 0): JsonSchema => {
    if (!schema) return {};
    if (schema.$ref && depth < 20) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return resolve(doc.components?.schemas?.[name], depth + 1);
    }
    return schema;
  };
  return resolve;
}

const typesOf = (schema: JsonSchema): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];

/** A value of a type the schema does not allow (any JSON when it allows everything). */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const allowed = new Set(typesOf(schema));
  if (allowed.has('integer')) allowed.add('number');
  const options: fc.Arbitrary<unknown>[] = [];
  if (!allowed.has('string')) options.push(fc.constantFrom('42', 'true', '', 'x'), fc.string());
  if (!allowed.has('number'))
    options.push(fc.constantFrom(0, -1, 1.5, 1e308, -0), fc.double({ noNaN: true }));
  if (!allowed.has('boolean')) options.push(fc.boolean());
  if (!allowed.has('null')) options.push(fc.constant(null));
  if (!allowed.has('array')) options.push(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));
  if (!allowed.has('object'))
    options.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })));
  return options.length > 0 ? fc.oneof(...options) : fc.jsonValue({ maxDepth: 3 });
}

/** Arrays and objects nested far deeper than any schema expects. */
const nestedJunk: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 20, max: 400 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, arrays, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i += 1) value = arrays ? [value] : { a: value, [`k${i}`]: null };
    return value;
  });

export function schemaArbitraries(resolve: (s: JsonSchema | undefined) => JsonSchema) {
  const stringValid = (s: JsonSchema): fc.Arbitrary<string> => {
    if (s.format === 'date-time') {
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    }
    if (s.format === 'uuid') return fc.uuid();
    if (s.format === 'uri') return fc.webUrl();
    const minLength = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? minLength + 24, minLength + 24);
    if (s.pattern) {
      try {
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter((v) => v.length >= minLength && v.length <= (s.maxLength ?? Infinity));
      } catch {
        return fc.constant('a'.repeat(Math.max(1, minLength)));
      }
    }
    return fc.string({ minLength, maxLength, unit: 'grapheme' });
  };

  const numberValid = (s: JsonSchema, integer: boolean): fc.Arbitrary<number> => {
    const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
    const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1000);
    const lo = Math.max(min, -1e6);
    const hi = Math.min(max, Math.max(lo, 1e6));
    return integer
      ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
      : fc.double({ min: lo, max: hi, noNaN: true });
  };

  /** A value the schema (roughly) accepts: required properties always, optional ones sometimes. */
  const valid = (raw: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> => {
    const s = resolve(raw);
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum) return fc.constantFrom(...s.enum);
    const union = s.anyOf ?? s.oneOf;
    if (union && union.length > 0) return fc.oneof(...union.map((u) => valid(u, depth + 1)));
    if (s.allOf && s.allOf.length > 0) return valid(s.allOf[0], depth + 1);
    const type = typesOf(s).find((t) => t !== 'null') ?? (s.properties ? 'object' : undefined);
    if (depth > MAX_DEPTH) return fc.constant(type === 'array' ? [] : type === 'object' ? {} : 'x');
    switch (type) {
      case 'string':
        return stringValid(s);
      case 'integer':
        return numberValid(s, true);
      case 'number':
        return numberValid(s, false);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const minLength = s.minItems ?? 0;
        return fc.array(valid(s.items, depth + 1), {
          minLength,
          maxLength: Math.min(s.maxItems ?? minLength + 2, minLength + 2),
        });
      }
      case 'object': {
        const props = s.properties ?? {};
        const entries = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, depth + 1)]));
        return fc.record(entries, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  /**
   * A value that breaks the schema in one place: at this level, or (more often, so requests get
   * past the first check) inside one property or item of an otherwise valid value.
   */
  const invalid = (raw: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> => {
    const s = resolve(raw);
    const options: fc.WeightedArbitrary<unknown>[] = [
      { arbitrary: wrongType(s), weight: 2 },
      { arbitrary: nestedJunk, weight: 1 },
    ];
    const add = (weight: number, ...arbitraries: fc.Arbitrary<unknown>[]) =>
      options.push(...arbitraries.map((arbitrary) => ({ arbitrary, weight })));
    if (s.enum || s.const !== undefined) add(2, fc.constantFrom('not-a-member', 'USER', 0, ''));
    const union = s.anyOf ?? s.oneOf;
    if (union && union.length > 0 && depth < MAX_DEPTH)
      add(2, fc.oneof(...union.map((u) => invalid(u, depth + 1))));
    const types = typesOf(s);
    if (types.includes('string')) {
      const over = (s.maxLength ?? 4096) + 1;
      add(2, fc.constantFrom('x'.repeat(over), 'é'.repeat(over), '🙂'.repeat(over), 'y'.repeat(20_000)));
      add(1, fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }));
      if (s.minLength) add(1, fc.constant('x'.repeat(s.minLength - 1)));
      if (s.format === 'date-time')
        add(2, fc.constantFrom('2026-13-45T99:99:99Z', 'yesterday', '1700000000'));
    }
    if (types.includes('integer') || types.includes('number')) {
      const edges = [-1, 1.5, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, Number.MAX_SAFE_INTEGER * 10];
      if (s.minimum !== undefined) edges.push(s.minimum - 1);
      if (s.maximum !== undefined) edges.push(s.maximum + 1);
      add(3, fc.constantFrom(...edges));
    }
    if (types.includes('array') && depth < MAX_DEPTH) {
      add(3, fc.array(invalid(s.items, depth + 1), { minLength: 1, maxLength: 3 }));
      add(1, fc.constant([]));
      const over = (s.maxItems ?? 1000) + 1;
      if (over <= 1001) add(1, fc.array(valid(s.items, depth + 1), { minLength: over, maxLength: over }));
    }
    const props = s.properties ?? {};
    const keys = Object.keys(props);
    if ((types.includes('object') || keys.length > 0) && depth < MAX_DEPTH) {
      const base = valid(s, depth) as fc.Arbitrary<Record<string, unknown>>;
      const required = (s.required ?? []).filter((k) => k in props);
      if (required.length > 0) {
        add(
          2,
          fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => {
            const copy = { ...value };
            delete copy[key];
            return copy;
          }),
        );
      }
      if (keys.length > 0) {
        add(
          8,
          fc
            .constantFrom(...keys)
            .chain((key) =>
              fc
                .tuple(base, invalid(props[key], depth + 1))
                .map(([value, bad]) => ({ ...value, [key]: bad })),
            ),
        );
      }
      add(
        1,
        fc
          .tuple(
            base,
            fc.dictionary(
              fc.constantFrom('__proto__', 'constructor', 'extra', 'x'.repeat(300)),
              fc.jsonValue({ maxDepth: 2 }),
            ),
          )
          .map(([value, extra]) => ({ ...extra, ...value, junk: extra })),
      );
    }
    return fc.oneof(...options);
  };

  return { valid, invalid };
}

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/octet-stream',
  'application/jsonx',
];

/** A path segment; a lone surrogate (no UTF-8 form) goes as the bytes of its WTF-8 form. */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80';
  }
}

/** Serializes a query object: arrays repeat the key, everything else is stringified. */
function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      params.append(key, typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Requests for one operation, each breaking something: a path parameter, a query value, the body
 * or its content type. `known` supplies real values for path parameters by name (so the request
 * gets past "not found" to the deeper checks) and is used half the time.
 */
export function operationRequests(
  doc: OpenApiDocument,
  method: string,
  path: string,
  known: (name: string, path: string) => string | undefined,
): fc.Arbitrary<GeneratedRequest> {
  const resolve = resolver(doc);
  const { valid, invalid } = schemaArbitraries(resolve);
  const operation = doc.paths[path]![method]!;
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  const hasBody = Boolean(operation.requestBody);

  const hostilePath = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s !== '')),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc.constantFrom('x'.repeat(300), 'z'.repeat(2000)),
  );
  const pathValue = (name: string) => {
    const real = known(name, path);
    return real === undefined ? hostilePath : fc.oneof(fc.constant(real), hostilePath);
  };
  const pathValues = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(p.name)])));

  const queryValue = (p: OpenApiParameter) =>
    fc.oneof(
      valid(p.schema),
      invalid(p.schema),
      fc.constantFrom(...HOSTILE_STRINGS),
      fc.array(fc.constantFrom('1', 'x', ''), { minLength: 2, maxLength: 3 }),
    );
  const query = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p)])), {
    requiredKeys: [],
  });

  type Body = { kind: string; payload?: string; contentType?: string };
  // With a body, most requests break the body; the rest break a path or query value.
  const bodies: fc.WeightedArbitrary<Body>[] = [
    { arbitrary: fc.constant({ kind: 'query/path' }), weight: 2 },
  ];
  if (hasBody) {
    bodies.push(
      {
        arbitrary: invalid(bodySchema).map((value) => ({
          kind: 'body',
          payload: JSON.stringify(value) ?? 'null',
          contentType: 'application/json',
        })),
        weight: 6,
      },
      {
        arbitrary: fc
          .tuple(valid(bodySchema), fc.constantFrom(...CONTENT_TYPES))
          .map(([value, contentType]) => ({
            kind: 'content-type',
            payload: JSON.stringify(value) ?? 'null',
            contentType,
          })),
        weight: 1,
      },
      {
        arbitrary: fc
          .constantFrom('{"a":', '{"a":1}}', '\ufeff{}', '[', '{"a":"\\ud800"}', '{"a":1e99999}', '   ')
          .map((payload) => ({ kind: 'malformed-json', payload, contentType: 'application/json' })),
        weight: 1,
      },
    );
  }
  return fc.tuple(pathValues, query, fc.oneof(...bodies)).map(([values, q, body]) => {
    const url =
      path.replace(/\{([^}]+)\}/g, (_, name: string) => pathSegment(String(values[name]))) + queryString(q);
    return {
      method: method.toUpperCase(),
      url,
      headers: body.contentType ? { 'content-type': body.contentType } : ({} as Record<string, string>),
      ...(body.payload !== undefined ? { payload: body.payload } : {}),
      kind: body.kind,
    };
  });
}
