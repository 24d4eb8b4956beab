// The route side of Idempotency-Key, written once: the key a request carries, and the answer of an
// idempotent write (its status and body, and `idempotent-replayed: true` when it is a replay).
// Every write route answers through `replyIdempotent` or, when its service runs the key itself,
// `sendIdempotent`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client.js';
import type { IdempotencyService, RecordReply } from './idempotency.service.js';

const REPLAYED_HEADER = 'idempotent-replayed';

/** The request's Idempotency-Key (`idempotencyKeyHeaders` has validated it). */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
}

/** Sends an idempotent write's result; without `statusCode`, the route's default status. */
export function sendIdempotent(
  reply: FastifyReply,
  result: { statusCode?: number; body: unknown; replayed: boolean },
): FastifyReply {
  if (result.replayed) void reply.header(REPLAYED_HEADER, 'true');
  if (result.statusCode !== undefined) void reply.code(result.statusCode);
  return reply.send(result.body);
}

interface IdempotentWrite {
  /** The key's namespace: a key is unique per tenant and scope. */
  scope: string;
  /** What the key is bound to (path parameters and body): another value under the key is a 409. */
  request: unknown;
}

/** Runs a write once per Idempotency-Key and answers it: `work` runs in the transaction that stores the reply. */
export async function replyIdempotent<T>(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  write: IdempotentWrite,
  work: (tx: Executor) => Promise<{ statusCode: number; body: T }>,
): Promise<FastifyReply> {
  const params = { tenantId: request.tenantId, key: idempotencyKeyOf(request), ...write };
  return sendIdempotent(reply, await idempotency.run(params, work));
}

/** `replyIdempotent` for work that opens its own transactions: it calls `record` with its reply. */
export async function replyIdempotentRecorded<T>(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  write: IdempotentWrite,
  work: (record: RecordReply<T>) => Promise<{ statusCode: number; body: T }>,
): Promise<FastifyReply> {
  const params = { tenantId: request.tenantId, key: idempotencyKeyOf(request), ...write };
  return sendIdempotent(reply, await idempotency.runRecorded(params, work));
}
