// The Postgres schema (drizzle-orm). tenant_id leads every primary key or unique index so the
// schema can later be distributed by tenant. Migrations in drizzle/ are generated from this file.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { memoryScopes, memoryTypes } from '../modules/memory/core/memories.js';
import type { CacheState } from '../modules/context/core/cost-model.js';
import { bytea, createdAt, jsonb, ts, tsvector } from './schema-columns.js';

/** Full-text configuration used for every stored tsvector and every query. */
export const TEXT_SEARCH_CONFIG = 'english';

export type Reactions = Record<string, number>;
export interface MediaRef {
  artifact_id?: string;
  url?: string;
  media_type?: string;
  filename?: string;
  sha256?: string;
  byte_length?: number;
  width?: number;
  height?: number;
  caption?: string;
}

export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Days conversation data is kept (null: RETENTION_DAYS; 0: kept). */
  retentionDays: integer('retention_days'),
  /** Days context-log rows are kept (null: CONTEXT_LOG_RETENTION_DAYS; 0: kept). */
  contextLogRetentionDays: integer('context_log_retention_days'),
  summaryTokenCap: bigint('summary_token_cap', { mode: 'number' }),
  createdAt: createdAt(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    /** SHA-256 (hex) of the key; the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    name: text('name').notNull(),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    // Authentication looks a key up before the tenant is known: the one global index.
    uniqueIndex('api_keys_key_hash_uq').on(t.keyHash),
  ],
);

export const tenantSecrets = pgTable(
  'tenant_secrets',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    secret: text('secret').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.platform] })],
);

export const channels = pgTable(
  'channels',
  {
    tenantId: text('tenant_id').notNull(),
    platform: text('platform').notNull(),
    channelId: text('channel_id').notNull(),
    name: text('name'),
    kind: text('kind', { enum: ['dm', 'group', 'channel'] }),
    firstTs: ts('first_ts'),
    lastTs: ts('last_ts'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.platform, t.channelId] })],
);

/** Its pages are filled to 90% (fillfactor, migration 0025; drizzle does not model it). */
export const channelMessages = pgTable(
  'channel_messages',
  {
    tenantId: text('tenant_id').notNull(),
    platform: text('platform').notNull(),
    channelId: text('channel_id').notNull(),
    messageId: text('message_id').notNull(),
    threadId: text('thread_id'),
    replyToId: text('reply_to_id'),
    topicId: text('topic_id'),
    laneKey: text('lane_key').notNull(),
    ts: ts('ts').notNull(),
    authorId: text('author_id'),
    authorName: text('author_name'),
    authorIsBot: boolean('author_is_bot').notNull().default(false),
    text: text('text').notNull().default(''),
    /**
     * The text with its secrets redacted, where that differs from `text` (null: they are the same).
     * The search column is built from it, so the index never holds a secret's words; `text` stays
     * the audit record (docs/memory.md "Where secrets are redacted").
     */
    searchText: text('search_text'),
    tsv: tsvector('tsv').generatedAlwaysAs(sql`to_tsvector('english', coalesce("search_text", "text", ''))`),
    reactions: jsonb('reactions').$type<Reactions>().notNull().default({}),
    media: jsonb('media').$type<MediaRef[]>().notNull().default([]),
    replyCount: integer('reply_count').notNull().default(0),
    lastReplyTs: ts('last_reply_ts'),
    editedAt: ts('edited_at'),
    /** Time of the newest edit that carried media (null: the media are the create's). */
    mediaEditedAt: ts('media_edited_at'),
    deletedAt: ts('deleted_at'),
    /** True while only edits/reactions/replies referenced the message and its create has not arrived. */
    isPlaceholder: boolean('is_placeholder').notNull().default(false),
    tokenEstimate: integer('token_estimate').notNull().default(0),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** Derived from reaction events only (per user and emoji, anonymous counters): never caller input. */
    reactionState: jsonb('reaction_state').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.platform, t.channelId, t.messageId] }),
    index('channel_messages_ts_idx').on(t.tenantId, t.platform, t.channelId, t.ts),
    index('channel_messages_thread_idx').on(t.tenantId, t.platform, t.channelId, t.threadId, t.ts),
    // message_id after ts: a lane read in (ts, message_id) order (retrieval's neighbours) stops at
    // its limit on the index, with no sort of each hit's rows by message_id.
    index('channel_messages_lane_idx').on(t.tenantId, t.laneKey, t.ts, t.messageId),
    // A plain GIN on tsv: with btree_gin scope columns in front, every query intersects the whole
    // tenant's posting tree (53 ms for a rare term at 1M rows, 3 ms plain; docs/channels.md).
    index('channel_messages_tsv_idx').using('gin', t.tsv),
  ],
);

export const ingestEvents = pgTable(
  'ingest_events',
  {
    tenantId: text('tenant_id').notNull(),
    source: text('source').notNull(),
    eventId: text('event_id').notNull(),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.source, t.eventId] }),
    index('ingest_events_received_idx').on(t.receivedAt),
  ],
);

/** Sums of the cost reports of a session's context calls (dry runs excluded), in tokens. */
export interface CostTotals {
  calls: number;
  cache_read: number;
  cache_write: number;
  uncached: number;
  /** Base-input tokens: reads at 0.1, writes at 1.25 (5 min) or 2 (1 h), the rest at 1. */
  billed_input: number;
}

export const NO_COST: CostTotals = { calls: 0, cache_read: 0, cache_write: 0, uncached: 0, billed_input: 0 };

export interface UsageCalibration {
  /** Per model: sums of reported input tokens and of our estimates for the same calls. */
  models: Record<
    string,
    {
      reported_input: number;
      estimated_input: number;
      cache_read: number;
      cache_write: number;
      calls: number;
    }
  >;
}

/** What the next turn is checked against: the last role and lane, and tool calls awaiting results. */
export interface TurnState {
  last_role: 'user' | 'assistant' | null;
  last_lane_key: string | null;
  /** tool_use id → the tool's name and the lane of the call, until its tool_result arrives. */
  pending_tool_uses: Record<string, { name: string; lane_key: string }>;
}

export const sessions = pgTable(
  'sessions',
  {
    tenantId: text('tenant_id').notNull(),
    id: uuid('id').notNull(),
    sessionKey: text('session_key').notNull(),
    agentId: text('agent_id'),
    platform: text('platform'),
    channelId: text('channel_id'),
    userId: text('user_id'),
    chatType: text('chat_type'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    lastTurnAt: ts('last_turn_at'),
    /** Set when the session was replaced (stale or reset); live sessions have null. */
    endedAt: ts('ended_at'),
    turnCount: integer('turn_count').notNull().default(0),
    compactionCount: integer('compaction_count').notNull().default(0),
    totalTokens: bigint('total_tokens', { mode: 'number' }).notNull().default(0),
    /** Next transcript sequence number; bumped under the row lock so seqs are gap-free. */
    nextSeq: integer('next_seq').notNull().default(1),
    /**
     * Transcript entries of the session ever deleted (retention, hand-run SQL), counted by a trigger
     * on transcript_entries in the deleting transaction: a copy of a lane's entries read when this
     * had some value is whole while it still has it (docs/assembly.md, "Lane entries").
     */
    entriesRemoved: bigint('entries_removed', { mode: 'number' }).notNull().default(0),
    resetFrom: uuid('reset_from'),
    calibration: jsonb('calibration').$type<UsageCalibration>().notNull().default({ models: {} }),
    /**
     * The provider's prompt cache as the cost model expects it after the latest context call
     * (src/modules/context/core/cost-model.ts); null before the first call.
     */
    promptCache: jsonb('prompt_cache').$type<CacheState>(),
    /** The expected input cost of the session's context calls, summed (docs/cost-model.md). */
    costTotals: jsonb('cost_totals').$type<CostTotals>().notNull().default(NO_COST),
    turnState: jsonb('turn_state')
      .$type<TurnState>()
      .notNull()
      .default({ last_role: null, last_lane_key: null, pending_tool_uses: {} }),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('sessions_live_key_uq')
      .on(t.tenantId, t.sessionKey)
      .where(sql`ended_at is null`),
    index('sessions_key_idx').on(t.tenantId, t.sessionKey, t.createdAt),
  ],
);

export type TranscriptKind = 'message' | 'context_attachment' | 'compaction' | 'session';

export const transcriptEntries = pgTable(
  'transcript_entries',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    seq: integer('seq').notNull(),
    laneKey: text('lane_key').notNull(),
    kind: text('kind').$type<TranscriptKind>().notNull(),
    role: text('role', { enum: ['user', 'assistant'] }),
    /** Anthropic content blocks exactly as sent (or, for compaction records, the record). */
    content: jsonb('content').$type<unknown>().notNull(),
    tokenEstimate: integer('token_estimate').notNull().default(0),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    author: jsonb('author').$type<{ id?: string; name?: string } | null>(),
    /** Provider usage reported for the call that produced an assistant turn. */
    usage: jsonb('usage').$type<Record<string, number> | null>(),
    model: text('model'),
    /** Where the turn came from, e.g. the channel message it is. */
    source: jsonb('source').$type<Record<string, string> | null>(),
    /** When the turn happened as the caller reported it (group chats); null means created_at. */
    turnAt: ts('turn_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.seq] }),
    uniqueIndex('transcript_entries_idem_uq').on(t.tenantId, t.sessionId, t.idempotencyKey),
    index('transcript_entries_lane_idx').on(t.tenantId, t.sessionId, t.laneKey, t.seq),
  ],
);

export const laneStates = pgTable(
  'lane_states',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    laneKey: text('lane_key').notNull(),
    summary: text('summary'),
    summaryVersion: integer('summary_version').notNull().default(0),
    summaryUpdatedAt: ts('summary_updated_at'),
    /** A message the summary covers was edited or deleted: rebuild on the next compaction. */
    summaryStale: boolean('summary_stale').notNull().default(false),
    firstKeptSeq: integer('first_kept_seq').notNull().default(0),
    /** Entries of the lane with seq ≤ this are folded into the summary (0: none). */
    summarizedThroughSeq: integer('summarized_through_seq').notNull().default(0),
    clearedBeforeSeq: integer('cleared_before_seq').notNull().default(0),
    /**
     * Texts of deleted channel messages found in this lane's sent history: the lane is compacted
     * before its next payload, with these scrubbed from the summarizer's input, so the text is in
     * no later prompt; cleared by that compaction's commit (docs/compaction.md).
     */
    purgeTexts: jsonb('purge_texts').$type<string[] | null>(),
    /**
     * Texts of deleted channel messages that entries of this lane hold (the turn that was the
     * message, or one that quoted it): the transcript keeps them as the audit record, and every
     * chunk and every summary built from the lane's entries afterwards has them scrubbed. Kept.
     */
    scrubTexts: jsonb('scrub_texts').$type<string[] | null>(),
    /** Fencing / compare-and-set counter: every committed change increments it. */
    version: integer('version').notNull().default(0),
    /** summary_version for which channel context was last attached in this lane (-1: never). */
    contextAttachedVersion: integer('context_attached_version').notNull().default(-1),
    /** Seq of the user turn that carried that channel context (null: never, or not recorded). */
    contextAttachedSeq: integer('context_attached_seq'),
    pendingSlot: jsonb('pending_slot').$type<Record<string, unknown> | null>(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.sessionId, t.laneKey] })],
);

export { memoryScopes, memoryTypes };

export const memories = pgTable(
  'memories',
  {
    tenantId: text('tenant_id').notNull(),
    id: uuid('id').notNull(),
    scope: text('scope', { enum: memoryScopes }).notNull(),
    scopeKey: text('scope_key').notNull().default(''),
    type: text('type', { enum: memoryTypes }).notNull(),
    text: text('text').notNull(),
    /** SHA-256 of the normalized text: the same fact twice in one scope is one record. */
    textKey: text('text_key').notNull(),
    tsv: tsvector('tsv').generatedAlwaysAs(sql`to_tsvector('english', "text")`),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    source: text('source'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    expiresAt: ts('expires_at'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('memories_text_key_uq').on(t.tenantId, t.scope, t.scopeKey, t.type, t.textKey),
    index('memories_scope_idx').on(t.tenantId, t.scope, t.scopeKey, t.updatedAt),
    index('memories_tsv_idx').using('gin', t.tenantId, t.tsv),
  ],
);

export const transcriptChunks = pgTable(
  'transcript_chunks',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    firstSeq: integer('first_seq').notNull(),
    lastSeq: integer('last_seq').notNull(),
    laneKey: text('lane_key').notNull(),
    sessionKey: text('session_key').notNull(),
    text: text('text').notNull(),
    tsv: tsvector('tsv').generatedAlwaysAs(sql`to_tsvector('english', "text")`),
    startTs: ts('start_ts'),
    endTs: ts('end_ts'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.firstSeq] }),
    index('transcript_chunks_tsv_idx').using('gin', t.tenantId, t.tsv),
    index('transcript_chunks_lane_idx').on(t.tenantId, t.laneKey),
    // Retrieval reads one session's chunks (docs/memory.md, "Cost per call").
    index('transcript_chunks_session_idx').on(t.tenantId, t.sessionKey),
  ],
);

/**
 * The version of each search scope's documents (docs/memory.md "Scope cache"): memories per
 * `scope:scope_key`, transcript chunks per session_key. Row triggers on memories and
 * transcript_chunks bump it on every change in the same transaction (migration 0019_citus_ready), so a process can keep a
 * scope's documents in memory and check them with one indexed read. A scope never written has no
 * row (version 0) and no documents.
 */
export const searchVersions = pgTable(
  'search_versions',
  {
    tenantId: text('tenant_id').notNull(),
    source: text('source', { enum: ['memories', 'transcript_chunks'] }).notNull(),
    scopeKey: text('scope_key').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.source, t.scopeKey] })],
);

/**
 * Per tenant and search source, the redaction rules version its stored search documents were last
 * redacted with (docs/memory.md "Existing data"): the maintenance pass re-redacts a source's rows
 * once per rules version, then skips it. No row: never re-redacted.
 */
export const searchRedaction = pgTable(
  'search_redaction',
  {
    tenantId: text('tenant_id').notNull(),
    source: text('source', { enum: ['memories', 'transcript_chunks', 'channel_messages'] }).notNull(),
    rulesVersion: integer('rules_version').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.source] })],
);

export const blobs = pgTable(
  'blobs',
  {
    tenantId: text('tenant_id').notNull(),
    artifactId: uuid('artifact_id').notNull(),
    sha256: text('sha256').notNull(),
    mediaType: text('media_type').notNull(),
    filename: text('filename'),
    byteLength: integer('byte_length').notNull(),
    kind: text('kind', { enum: ['media', 'tool_result'] }).notNull(),
    content: bytea('content').notNull(),
    /** Null: the tenant's (uploaded without a session, or also so); else session-scoped, held by `blob_owners`. */
    sessionId: uuid('session_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.artifactId] }),
    uniqueIndex('blobs_sha256_uq').on(t.tenantId, t.sha256),
    index('blobs_session_idx').on(t.tenantId, t.sessionId),
  ],
);

/**
 * Which sessions hold a session-scoped blob (per-tenant SHA-256 dedupe gives two sessions the same
 * bytes): a session's delete removes its rows, and the bytes go only with the last holder.
 */
export const blobOwners = pgTable(
  'blob_owners',
  {
    tenantId: text('tenant_id').notNull(),
    artifactId: uuid('artifact_id').notNull(),
    sessionId: uuid('session_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.artifactId, t.sessionId] }),
    index('blob_owners_session_idx').on(t.tenantId, t.sessionId),
  ],
);

export const attachmentManifest = pgTable(
  'attachment_manifest',
  {
    tenantId: text('tenant_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    artifactId: uuid('artifact_id').notNull(),
    displayName: text('display_name'),
    mediaType: text('media_type'),
    contentHash: text('content_hash').notNull(),
    sourceMessageId: text('source_message_id'),
    sourceThreadId: text('source_thread_id'),
    includedAtTurn: integer('included_at_turn').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.artifactId] }),
    index('attachment_manifest_hash_idx').on(t.tenantId, t.sessionId, t.contentHash),
  ],
);

export const agentSections = pgTable(
  'agent_sections',
  {
    tenantId: text('tenant_id').notNull(),
    agentId: text('agent_id').notNull(),
    name: text('name').notNull(),
    content: text('content').notNull(),
    cacheable: boolean('cacheable').notNull().default(true),
    position: integer('position').notNull().default(0),
    sha256: text('sha256').notNull(),
    tokenEstimate: integer('token_estimate').notNull().default(0),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.agentId, t.name] })],
);

/** Per-agent defaults of the context call (today: how many history turns to send). */
export const agentSettings = pgTable(
  'agent_settings',
  {
    tenantId: text('tenant_id').notNull(),
    agentId: text('agent_id').notNull(),
    historyTurns: integer('history_turns'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.agentId] })],
);

// The audit and operations tables (context log, payload parts, idempotency, usage, runs, fences).
export * from './schema-audit.js';

// Platform bot tokens and the user directory.
export * from './schema-platforms.js';

// Which channels and threads were backfilled from the platform API.
export * from './schema-backfill.js';
