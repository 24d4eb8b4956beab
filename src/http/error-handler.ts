// The one error handler: every failure leaves as { error: { code, message, details? } } with the
// request id; 5xx hide their internals. Bad input is never a 500.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z, ZodError } from 'zod';
import { AppError, databaseFailure, pgCode } from '../shared/errors.js';

/** Every error reply: documented on every operation (src/http/openapi-transform.ts). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z
        .string()
        .describe('stable, dotted error code, e.g. request.invalid, session.not_found, compaction.running'),
      message: z.string().describe('for people: names the field path on bad input'),
      details: z
        .unknown()
        .optional()
        .describe('machine-readable detail; on request.invalid a list of { path, message, code }'),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

const FASTIFY_CODES: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'request.body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'request.unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'request.invalid_content_length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'request.empty_json_body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'request.malformed_json' },
  FST_ERR_CTP_EMPTY_TYPE: { status: 400, code: 'request.empty_content_type' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'request.invalid_content_type' },
  FST_ERR_VALIDATION: { status: 400, code: 'request.invalid' },
  FST_ERR_BAD_URL: { status: 400, code: 'request.bad_url' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'request.bad_constraint' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'request.path_parameter_too_long' },
};

function zodDetails(error: ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

/** What the client is told when the database could not serve its request; each may be retried. */
const STORAGE_FAILURES = {
  timeout: { code: 'storage.timeout', message: 'the database did not answer in time; retry' },
  connection_lost: { code: 'storage.unavailable', message: 'the database is unavailable; retry' },
  write_conflict: {
    code: 'storage.write_conflict',
    message:
      'the write kept meeting concurrent writes (a deadlock or serialization failure) and was rolled back; nothing was stored; retry',
  },
  not_committed: {
    code: 'storage.not_committed',
    message: 'the database rolled the write back instead of committing it; nothing was stored; retry',
  },
} as const;

export function renderError(error: unknown): {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
} {
  if (error instanceof AppError) {
    return {
      status: error.statusCode,
      body: { error: { code: error.code, message: error.message, details: error.details } },
      headers: error.headers,
    };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const part = (error as { validationContext?: string }).validationContext ?? 'body';
    // An unknown field is named by its own path (`body.budget.budjet`), one detail per field.
    const details = error.validation.flatMap((v) => {
      const at = [part, ...v.instancePath.split('/').filter(Boolean)];
      const keys = v.keyword === 'unrecognized_keys' ? (v.params as { keys?: unknown }).keys : undefined;
      if (Array.isArray(keys) && keys.length > 0) {
        return keys.map((key) => ({
          path: [...at, String(key)].join('.'),
          message: 'unknown field',
          code: v.keyword,
        }));
      }
      return [{ path: at.join('.'), message: v.message ?? 'invalid', code: v.keyword }];
    });
    const first = details[0];
    return {
      status: 400,
      body: {
        error: {
          code: 'request.invalid',
          message: first ? `${first.path}: ${first.message}` : 'invalid request',
          details,
        },
      },
    };
  }
  if (error instanceof ZodError) {
    return {
      status: 400,
      body: { error: { code: 'request.invalid', message: 'invalid request', details: zodDetails(error) } },
    };
  }
  const fastifyError = error as FastifyError;
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) {
    return { status: known.status, body: { error: { code: known.code, message: fastifyError.message } } };
  }
  // Postgres class 22 (data exception: a NUL byte, a value out of range, a malformed literal) is
  // caused by the request's values, never by our state: the input is what is wrong.
  const sqlState = pgCode(error);
  if (sqlState?.startsWith('22')) {
    return {
      status: 400,
      body: {
        error: {
          code: 'request.unstorable_value',
          message: 'a value in the request cannot be stored or compared',
          details: { sqlstate: sqlState },
        },
      },
    };
  }
  // A frozen, restarting or unreachable database, or a connection cut under the request: the
  // request did not fail on its own account and may be retried (a write whose COMMIT was under way
  // may have been applied, which event ids and Idempotency-Key make harmless).
  const failure = databaseFailure(error);
  if (failure) {
    return {
      status: 503,
      body: { error: STORAGE_FAILURES[failure] },
      headers: { 'retry-after': '1' },
    };
  }
  if (fastifyError.statusCode === 429) {
    return { status: 429, body: { error: { code: 'rate_limited', message: fastifyError.message } } };
  }
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return {
      status: fastifyError.statusCode,
      body: { error: { code: 'request.rejected', message: fastifyError.message } },
    };
  }
  return { status: 500, body: { error: { code: 'internal', message: 'internal error' } } };
}

/** Fastify's router errors (bad URL, over-long parameter) in the same shape as everything else. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = renderError(error);
  void reply.code(status).send(body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, headers } = renderError(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: body.error.code }, 'request rejected');
    if (headers) void reply.headers(headers);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { code: 'route.not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` },
    } satisfies ErrorBody),
  );
}
