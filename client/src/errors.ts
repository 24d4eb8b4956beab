// The one error the client throws for a reply that is not a success: the HTTP status, the stable
// `error.code` of contextd's error body (docs/api.md), its message and details, and the request id.
import type { components } from './schema.js';

export type ApiErrorBody = components['schemas']['Error'];

/** Code given when a failed reply has no contextd error body (a proxy's HTML page, an empty 502). */
export const UNEXPECTED_REPLY = 'client.unexpected_reply';

/** Code given when a context reply is not in the format asked for. */
export const FORMAT_MISMATCH = 'client.format_mismatch';

export class ContextdError extends Error {
  override readonly name = 'ContextdError';

  constructor(
    /** HTTP status of the reply. */
    readonly status: number,
    /** contextd's stable, dotted error code (`session.not_found`, `request.invalid`, …). */
    readonly code: string,
    message: string,
    /** Machine-readable detail; on `request.invalid` a list of `{ path, message, code }`. */
    readonly details: unknown,
    /** The reply's `x-request-id`, to find the request in contextd's logs. */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }

  /** The error for a failed reply whose body openapi-fetch has read (JSON, or text when it is not). */
  static fromReply(response: Response, body: unknown): ContextdError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body)) {
      const { code, message, details } = body.error;
      return new ContextdError(response.status, code, message, details, requestId);
    }
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    const message = `HTTP ${response.status} without a contextd error body${text ? `: ${text}` : ''}`;
    return new ContextdError(response.status, UNEXPECTED_REPLY, message, undefined, requestId);
  }
}

export function isErrorBody(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error: unknown = body.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}
