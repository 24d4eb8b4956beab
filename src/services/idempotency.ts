// Idempotency-Key for writes: the first reply is stored with a hash of the request; a retry with
// the same key and body gets that reply again, the same key with another body is a 409.
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { idempotencyRecords } from '../db/schema.js';
import { conflict } from '../errors.js';
import { isUniqueViolation } from '../errors.js';

export function requestHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}

/** JSON with object keys sorted, so equal values hash equally. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

export interface IdempotentResult<T> {
  statusCode: number;
  body: T;
  replayed: boolean;
}

export function createIdempotencyService(db: Executor) {
  return {
    /**
     * Runs `work` once per (tenant, scope, key). `work` receives a transaction; the stored reply is
     * written in the same transaction, so a crash leaves either both or neither.
     */
    async run<T>(
      params: { tenantId: string; scope: string; key: string | undefined; request: unknown },
      work: (tx: Executor) => Promise<{ statusCode: number; body: T }>,
    ): Promise<IdempotentResult<T>> {
      const { tenantId, scope, key } = params;
      if (!key) {
        const result = await db.transaction((tx) => work(tx));
        return { ...result, replayed: false };
      }
      const hash = requestHash(params.request);
      const lookup = async () => {
        const [row] = await db
          .select()
          .from(idempotencyRecords)
          .where(
            and(
              eq(idempotencyRecords.tenantId, tenantId),
              eq(idempotencyRecords.scope, scope),
              eq(idempotencyRecords.key, key),
            ),
          )
          .limit(1);
        if (!row) return null;
        if (row.requestHash !== hash) {
          throw conflict(
            'idempotency.key_reused',
            'Idempotency-Key was already used with a different request',
            {
              key,
            },
          );
        }
        return { statusCode: row.statusCode, body: row.response as T, replayed: true };
      };
      const existing = await lookup();
      if (existing) return existing;
      try {
        const result = await db.transaction(async (tx) => {
          const out = await work(tx);
          await tx.insert(idempotencyRecords).values({
            tenantId,
            scope,
            key,
            requestHash: hash,
            statusCode: out.statusCode,
            response: out.body as unknown,
          });
          return out;
        });
        return { ...result, replayed: false };
      } catch (error) {
        // A concurrent request with the same key won the race: answer with its reply.
        if (isUniqueViolation(error)) {
          const winner = await lookup();
          if (winner) return winner;
        }
        throw error;
      }
    },
  };
}
