// The audit and operations tables, re-exported by schema.ts (drizzle-kit reads them through it):
// the context log and the payload parts it is rebuilt from, Idempotency-Key replies, summarizer
// spend and compaction runs.
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, jsonb, ts } from './schema-columns.js';

/**
 * Audit of context calls (§6.13): what the model saw at each turn. Partitioned by week of
 * created_at (0023_partitioned_context_log, src/db/partitions.ts), so the key holds created_at too;
 * a turn's seq is unique through its transcript entry.
 */
export const contextLog = pgTable(
  'context_log',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    turnSeq: integer('turn_seq').notNull(),
    laneKey: text('lane_key').notNull(),
    laneVersion: integer('lane_version').notNull(),
    payloadSha256: text('payload_sha256').notNull(),
    budget: jsonb('budget').$type<Record<string, unknown>>().notNull(),
    model: text('model'),
    /** When the call was made (the service's clock). */
    createdAt: createdAt(),
    /** The time assembly took as "now": the anchor message's, else the turn's stated time. */
    anchorAt: ts('anchor_at'),
    /**
     * The payload's bytes without its arrays' elements (docs/api.md "Replay"): JSON text, a list of
     * [key, JSON text of the value | count of parts]; null on rows logged before replay existed.
     */
    payloadLayout: text('payload_layout'),
    /** SHA-256 of each array element, in payload order (rows of payload_parts of the call's week). */
    payloadParts: text('payload_parts').array(),
    /**
     * What the reply said besides the payload and budget: the context by source (retrieved items
     * with their scores, lane view), cache breakpoints, notes and attachments; null on older rows.
     */
    assembly: jsonb('assembly').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.turnSeq, t.createdAt] }),
    // Retention: the oldest rows of a tenant (in the default partition and in weeks not dropped yet).
    index('context_log_created_idx').on(t.tenantId, t.createdAt),
  ],
);

/**
 * The elements of logged payloads' arrays (system blocks, messages, tools) by the SHA-256 of their
 * JSON text, once per tenant and week: a long session stores its system prompt and tool
 * definitions once a week, and each history message once a week while its rendering stays the
 * same. Partitioned by `week` like context_log by created_at, so a week of calls and the parts
 * they name are dropped together.
 */
export const payloadParts = pgTable(
  'payload_parts',
  {
    tenantId: text('tenant_id').notNull(),
    /** The week (Monday 00:00 UTC) of the calls that name this copy (src/db/partitions.ts weekStart). */
    week: ts('week').notNull(),
    sha256: text('sha256').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.week, t.sha256] })],
);

/** Stored replies for writes that carried an Idempotency-Key. */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    tenantId: text('tenant_id').notNull(),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code').notNull(),
    response: jsonb('response').$type<unknown>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.scope, t.key] }),
    // The retention job deletes replies older than IDEMPOTENCY_TTL_MS.
    index('idempotency_records_created_idx').on(t.createdAt),
  ],
);

/** Summarizer token spend per tenant and month (§6.13). */
export const tenantUsage = pgTable(
  'tenant_usage',
  {
    tenantId: text('tenant_id').notNull(),
    period: text('period').notNull(),
    summaryInputTokens: bigint('summary_input_tokens', { mode: 'number' }).notNull().default(0),
    summaryOutputTokens: bigint('summary_output_tokens', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.period] })],
);

/**
 * The compaction currently running per session (one row while it runs): the 409 for a second
 * compaction reports the holder's age from here, and a holder only removes its own row.
 */
export const compactionRuns = pgTable(
  'compaction_runs',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    token: text('token').notNull(),
    startedAt: ts('started_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.sessionId] })],
);

/**
 * The PostgreSQL lease locks (src/coord/pg-lock.ts): per (tenant, resource) the holder's token and
 * the end of its lease, while held (a release deletes the row). Service-wide resources have
 * tenant_id ''.
 */
export const lockLeases = pgTable(
  'lock_leases',
  {
    tenantId: text('tenant_id').notNull(),
    resource: text('resource').notNull(),
    holder: text('holder'),
    expiresAt: ts('expires_at'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.resource] })],
);

/**
 * Erasures of content (DELETE …/content): who erased which channel message or transcript entry and
 * when, and what the erase touched. One row per target (`target_key`), so a second erase of the
 * same target answers this row again; the row itself holds no erased text.
 */
export const contentErasures = pgTable(
  'content_erasures',
  {
    tenantId: text('tenant_id').notNull(),
    id: uuid('id').notNull(),
    /** 'channel_message' or 'transcript_entry'. */
    targetKind: text('target_kind').notNull(),
    /** platform/channel_id/message_id or session_id/seq, as one key (JSON array text). */
    targetKey: text('target_key').notNull(),
    target: jsonb('target').$type<Record<string, unknown>>().notNull(),
    /** The API key that asked: its id and name. */
    actor: jsonb('actor').$type<Record<string, unknown>>().notNull(),
    /** Rows changed per place (transcript entries, payload parts, chunks, summaries, memories…). */
    touched: jsonb('touched').$type<Record<string, number>>().notNull(),
    erasedAt: ts('erased_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('content_erasures_target_uq').on(t.tenantId, t.targetKind, t.targetKey),
  ],
);
