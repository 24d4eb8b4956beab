// How a route becomes an OpenAPI operation: its zod schemas converted (with the registered
// schemas as $refs), plus the error replies every route can give, all in the one error shape.
import type { FastifySchema } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requiresApiKey } from './auth.js';
import { errorBodySchema } from './error-handler.js';
import { successDescriptions } from './openapi-responses.js';

type TransformArgs = Parameters<typeof jsonSchemaTransform>[0];

const errorReply = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

interface RouteSchema extends FastifySchema {
  headers?: unknown;
  body?: unknown;
  params?: unknown;
  response?: Record<string, unknown>;
}

/** The error statuses a route can answer with, from what it takes (docs/api.md "Errors"). */
function errorReplies(url: string, schema: RouteSchema): Record<string, unknown> {
  const replies: Record<string, unknown> = {
    400: errorReply('Bad input: `request.invalid` with the field path in `details`, or another 4xx code'),
  };
  const api = url.startsWith('/v1/');
  const webhook = url.startsWith('/v1/webhooks/');
  if (api) replies[401] = errorReply(webhook ? 'Signature or secret refused' : 'Missing or unknown API key');
  if (schema.params) replies[404] = errorReply("Not found (another tenant's ids are not found either)");
  if (schema.headers) replies[409] = errorReply('`idempotency.key_reused`: another body under this key');
  if (schema.body) replies[413] = errorReply('Body over the size limit');
  if (api && !webhook) replies[429] = errorReply('Rate limited (`rate_limited`); retry after `retry-after`');
  replies[503] = errorReply(
    'Not ready, draining, or a store is unavailable; retry after `retry-after`. Or `overloaded`: the ' +
      'instance runs as much work as it takes and did nothing of this request; send it again after ' +
      '`retry-after-ms`',
  );
  replies.default = errorReply('Any other error, in the same shape (5xx hide their internals)');
  return replies;
}

export const documentRoute = (args: TransformArgs) => {
  const schema = args.schema as RouteSchema | undefined;
  if (!schema || (schema as { hide?: boolean }).hide) return jsonSchemaTransform(args);
  const response = { ...errorReplies(args.url, schema), ...schema.response };
  // The document's default is the bearer key; routes the auth hook lets through say they need none.
  const security = requiresApiKey(args.url) ? {} : { security: [] };
  const transformed = jsonSchemaTransform({
    ...args,
    schema: { ...schema, ...security, response } as TransformArgs['schema'],
  });
  describeSuccess(schema, transformed.schema as RouteSchema);
  keepBodyExamples(schema, transformed.schema as RouteSchema);
  return transformed;
};

/**
 * zod leaves a body's examples out of its input JSON Schema when the body transforms a value (the
 * examples could be of the output); a body's examples here are always of the input, so they stay.
 */
function keepBodyExamples(route: RouteSchema, transformed: RouteSchema) {
  const examples = route.body instanceof z.ZodType ? z.globalRegistry.get(route.body)?.examples : undefined;
  const body = transformed.body as Record<string, unknown> | undefined;
  if (examples && body && !('$ref' in body) && !('examples' in body)) body.examples = examples;
}

/**
 * Each reply a route declares gets its words from successDescriptions: as `description` of a reply that names
 * its content types, else as the `x-response-description` @fastify/swagger takes for a schema.
 */
function describeSuccess(route: RouteSchema, transformed: RouteSchema) {
  const words = successDescriptions[(route as { operationId?: string }).operationId ?? ''] ?? {};
  for (const [status, reply] of Object.entries(transformed.response ?? {})) {
    const description = words[status];
    if (!description || !reply || typeof reply !== 'object') continue;
    // A $ref reply is resolved before its extensions are read; its own description is kept.
    const key = 'content' in reply || '$ref' in reply ? 'description' : 'x-response-description';
    (reply as Record<string, unknown>)[key] = description;
  }
}

const REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * The registered schemas as components, keeping only those an operation reaches: each registered
 * schema is converted both as input and as output, and a reply-only shape needs no `…Input` twin.
 */
export const documentComponents: typeof jsonSchemaTransformObject = (args) => {
  const document = jsonSchemaTransformObject(args) as {
    paths?: unknown;
    components?: { schemas?: Record<string, unknown> };
  };
  const schemas = document.components?.schemas ?? {};
  const reached = new Set<string>();
  const pending = [JSON.stringify(document.paths ?? {})];
  while (pending.length > 0) {
    for (const [, name] of pending.pop()!.matchAll(REF)) {
      if (name === undefined || reached.has(name) || !(name in schemas)) continue;
      reached.add(name);
      pending.push(JSON.stringify(schemas[name]));
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } } as ReturnType<
    typeof jsonSchemaTransformObject
  >;
};

/** The document's tags, in the order Swagger UI lists them, each with what a bot author finds there. */
export const apiTags = [
  {
    name: 'context',
    description:
      'The call a bot makes on every turn: a token-budgeted Messages API payload (system blocks with cache breakpoints, history since the last compaction, channel and thread context, memories, tools) and where every token went. Also the audit log of past calls.',
  },
  {
    name: 'sessions',
    description:
      "A conversation of one agent: create it, append the bot's own turns (with usage, so estimates calibrate), read the transcript, lanes and their pending slots, compactions.",
  },
  {
    name: 'tools',
    description:
      "contextd's built-in tools for the model (channel_context, channel_messages, read_result, memory_search, tool_search, compact_context), scoped to the session's tenant, channel and lane.",
  },
  {
    name: 'ingest',
    description:
      "Channel events as they happen — messages, replies, edits, deletes, reactions, media — normalized or as the platform's own payload. Idempotent; order does not matter.",
  },
  {
    name: 'webhooks',
    description:
      'Endpoints a platform calls directly (Slack Events API, Telegram setWebhook), verified by signature or secret instead of an API key.',
  },
  { name: 'channels', description: 'What is stored of a channel: messages, threads, search.' },
  {
    name: 'memory',
    description: 'Long-term memories (facts, preferences, summaries) and search across them.',
  },
  { name: 'blobs', description: 'Bytes of media and offloaded tool results, deduplicated by SHA-256.' },
  {
    name: 'platforms',
    description:
      "A tenant's bot tokens for the platforms' own APIs (stored sealed, never returned): with one, contextd can resolve author names and fetch media bytes.",
  },
  { name: 'agents', description: "Per-agent settings and system sections shared by the agent's sessions." },
  {
    name: 'tenancy',
    description: 'The tenant behind the calling API key, and its monthly summarizer spend and cap.',
  },
  { name: 'operations', description: 'Health, readiness and Prometheus metrics; open, without an API key.' },
];
