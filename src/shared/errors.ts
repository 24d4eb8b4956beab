// Domain errors: values with a stable code and an HTTP status, rendered by one handler.

export type ErrorDetails = Record<string, unknown> | unknown[];

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
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
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
