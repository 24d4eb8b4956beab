// Idempotency-Key for writes: the first reply is stored with a hash of the request; a retry with
// the same key and body gets that reply again, the same key with another body is a 409.
import { createHash } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import { AppError, conflict } from '../../shared/errors.js';
import { createIdempotencyRepository } from './idempotency.repository.js';

export function requestHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}

/** What JSON.stringify escapes in a string (lone surrogates among the surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without the call for one that needs no escape (most). */
const quote = (text: string) => (ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`);

/**
 * JSON with object keys sorted (by code unit, as `<` orders them), so equal values hash equally;
 * undefined members are left out, an undefined or unserializable item is null. Written into one
 * string (no entry pairs, filtered and mapped copies per object: a batch of 100 events has ~200).
 */
export function stableStringify(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out += ',';
      // A hole stays empty, as map and join leave it.
      if (i in value) out += stableStringify(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${quote(key)}:${stableStringify(member)}`;
  }
  return `${out}}`;
}

interface IdempotentResult<T> {
  statusCode: number;
  body: T;
  replayed: boolean;
}

/** Stores a reply inside the transaction of the write it answers (on the database when none). */
export type RecordReply<T> = (result: { statusCode: number; body: T }, tx?: Executor) => Promise<void>;

/** A write without a key records nothing. */
const RECORD_NOTHING: RecordReply<unknown> = async () => {};

export function createIdempotencyService(db: Executor) {
  const records = createIdempotencyRepository(db);
  async function runRecorded<T>(
    params: { tenantId: string; scope: string; key: string | undefined; request: unknown },
    work: (record: RecordReply<T>) => Promise<{ statusCode: number; body: T }>,
  ): Promise<IdempotentResult<T>> {
    const { tenantId, scope, key } = params;
    if (!key) return { ...(await work(RECORD_NOTHING)), replayed: false };
    const hash = requestHash(params.request);
    const lookup = async () => {
      const row = await records.find({ tenantId, scope, key });
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
    let recorded = false;
    try {
      const result = await work(async (out, tx = db) => {
        await records.insert(
          {
            tenantId,
            scope,
            key,
            requestHash: hash,
            statusCode: out.statusCode,
            response: out.body as unknown,
          },
          tx,
        );
        recorded = true;
      });
      if (!recorded)
        throw new Error(`idempotent work for scope ${scope} finished without recording its reply`);
      return { ...result, replayed: false };
    } catch (error) {
      // A concurrent request with the same key won the race (a unique violation on the record, or
      // a conflict the work itself detected, such as a turn appended meanwhile): answer with its
      // reply. A winner with another body is the 409 the lookup throws.
      let winner: IdempotentResult<T> | null = null;
      try {
        winner = await lookup();
      } catch (lookupError) {
        if (lookupError instanceof AppError) throw lookupError;
      }
      if (winner) return winner;
      throw error;
    }
  }

  return {
    /**
     * Runs `work` once per (tenant, scope, key). `work` receives a transaction; the stored reply is
     * written in the same transaction, so a crash leaves either both or neither.
     */
    run<T>(
      params: { tenantId: string; scope: string; key: string | undefined; request: unknown },
      work: (tx: Executor) => Promise<{ statusCode: number; body: T }>,
    ): Promise<IdempotentResult<T>> {
      return runRecorded<T>(params, (record) =>
        db.transaction(async (tx) => {
          const out = await work(tx);
          await record(out, tx);
          return out;
        }),
      );
    },

    /**
     * `run` for work that opens its own transaction (or writes nothing): `work` receives `record`
     * and calls it with its reply inside the transaction that commits its writes (on the database
     * itself when it writes nothing), so the reply and the write still commit together. Without a
     * key, `record` does nothing.
     */
    runRecorded,
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
