// Domain errors: values with a stable code and an HTTP status, rendered by one handler.

type ErrorDetails = Record<string, unknown> | unknown[];

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(400, code, message, details);
export const unauthorized = (code: string, message: string) => new AppError(401, code, message);
export const notFound = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(404, code, message, details);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(409, code, message, details);
export const tooLarge = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(413, code, message, details);
export const unprocessable = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(422, code, message, details);
export const unavailable = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(503, code, message, details);

/** Postgres error codes that mean "your input", not "our bug". */
export function isUniqueViolation(error: unknown): boolean {
  return pgCode(error) === '23505';
}

export function pgCode(error: unknown): string | undefined {
  let current: unknown = error;
  // drizzle wraps driver errors in `cause`.
  for (let depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The database did not answer within DATABASE_STATEMENT_TIMEOUT_MS (a frozen or overloaded server);
 * thrown by the client wrapper in src/db/client.ts.
 */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DATABASE_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** postgres.js and socket codes of a lost or unreachable connection, and their SQLSTATEs. */
const CONNECTION_LOSS = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01', // admin_shutdown: pg_terminate_backend, a server restart
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting or shutting down
]);

/**
 * The code of a transaction whose COMMIT answered something else (ROLLBACK: the transaction had
 * been aborted underneath, e.g. by a statement a pooler sent to another backend). Raised by the
 * patched postgres.js (patches/), so no acknowledged write rests on a COMMIT that did not commit.
 */
export const NOT_COMMITTED = 'COMMIT_NOT_COMMITTED';

/**
 * SQLSTATEs of a transaction the server rolled back because of concurrent ones: a deadlock (it
 * picked this one to break the cycle) or a serialization failure. Nothing of it was applied, so it
 * can run again (src/db/client.ts does, a bounded number of times).
 */
const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

/** Why the database could not serve a statement, if that is what `error` (or its cause) says. */
export function databaseFailure(
  error: unknown,
): 'timeout' | 'connection_lost' | 'not_committed' | 'write_conflict' | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (current instanceof DatabaseTimeoutError) return 'timeout';
    const code = (current as { code?: unknown }).code;
    if (code === NOT_COMMITTED) return 'not_committed';
    if (code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE) return 'write_conflict';
    if (typeof code === 'string' && (CONNECTION_LOSS.has(code) || code.startsWith('08'))) {
      return 'connection_lost';
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
