// Requests Node's HTTP parser refuses before Fastify sees them (headers or URL over Node's
// 16 KiB limit, malformed HTTP, a request timeout): answered on the socket in the one error shape.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorBody } from './error-handler.js';

const CLIENT_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'request.headers_too_large',
    message: 'the request line and headers exceed 16 KiB',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request.timeout', message: 'the request took too long' },
};
const MALFORMED = { status: 400, code: 'request.malformed_http', message: 'the request is not valid HTTP' };

/**
 * Fastify calls it bound to the instance. The reply carries a request id of its own (the request
 * never reached Fastify, so it has none) in `x-request-id`, and the same id is in the log line.
 */
export function clientErrorHandler(
  this: FastifyInstance | void,
  error: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  this?.log?.info({ reqId: requestId, status, code, remote: socket.remoteAddress }, 'refused before routing');
  if (socket.writable) {
    const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
