// The searched sources as SQL (§6.9): per source its table, time, columns and filter
// conditions, shared by the candidate reads (search.repository.ts) and the scope cache's reads
// (scope-documents.repository.ts); and the filters as placeholders, for statements built once.
import { sql, type SQL } from 'drizzle-orm';
import { slot } from '../../db/prepared.js';
import type { MemoryScope, MemoryType } from './memories.repository.js';

export type SearchSource = 'memories' | 'transcript_chunks' | 'channel_messages';

export interface SearchFilters {
  /** Memories only. */
  scope?: MemoryScope;
  scopeKey?: string;
  /**
   * Any of these scopes (a session's visible memories): the database reads only them, through
   * memories_scope_idx, so the cost does not follow the tenant's other memories.
   */
  scopes?: { scope: MemoryScope; scopeKey: string }[];
  types?: MemoryType[];
  /** Transcript chunks only. */
  sessionKey?: string;
  /** Channel messages only. */
  platform?: string;
  channelId?: string;
  /** Every source (a memory's lane is metadata.lane_key). */
  laneKey?: string;
  since?: Date;
  until?: Date;
}

/** One candidate document, with what BM25 needs of it. */
export type CandidateRow = {
  id: string;
  /** The row's ctid, to read its lexemes again (documentLexemes) within the same search. */
  rid: string;
  text: string;
  time_ms: number;
  lane_key: string | null;
  extra: Record<string, unknown>;
  /** Distinct lexemes in the document. */
  length: number;
  /** Occurrences of each query lexeme in the document. */
  tf: Record<string, number>;
  /** Documents matching each query lexeme (capped at scanLimit); the same for every row. */
  df: Record<string, number>;
};

export interface SourceSql {
  table: SQL;
  /** The document's time, as a column expression of `d`. */
  time: SQL;
  /** The rows' order within a tenant, unique and served by the primary key: a sample taken in it is the same on every call. */
  key: SQL;
  columns: SQL;
  /**
   * The columns of `extra` when `columns` selects them one by one (as `extra_<name>`), to be put
   * together in Node in this order, where json_build_object per row cost a search's PostgreSQL
   * more than the rest of a winner's read; without it `columns` selects `extra` as json.
   */
  extraColumns?: readonly string[];
  /** `now` null: expired memories too (the scope cache keeps them and filters at each search). */
  conditions(tenantId: string, filters: SearchFilters, now: Date | null, tenantIndexed?: boolean): SQL[];
  /** Whether a btree serves these filters in time order (the scope's newest rows, read backwards). */
  timeOrdered(filters: SearchFilters): boolean;
}

/** A time as a parameter; a placeholder (slottedFilters) stands for its ISO text already. */
const iso = (d: Date) => sql`${d instanceof Date ? d.toISOString() : d}::timestamptz`;

function timeConditions(time: SQL, filters: SearchFilters): SQL[] {
  const out: SQL[] = [];
  if (filters.since) out.push(sql`${time} >= ${iso(filters.since)}`);
  if (filters.until) out.push(sql`${time} < ${iso(filters.until)}`);
  return out;
}

/**
 * The tenant filter. `tenantIndexed: false` writes it so the GIN cannot use it: for a tenant that
 * fills most of a table, intersecting with its tenant_id posting tree (one entry per row) costs
 * far more than checking the tenant on the few rows a query term matches (measured at 1M rows:
 * 75 ms → 7 ms for a term in 0.4% of the rows).
 */
export function tenantCondition(tenantId: string, tenantIndexed: boolean): SQL {
  return tenantIndexed ? sql`d.tenant_id = ${tenantId}` : sql`(d.tenant_id || '') = ${tenantId}`;
}

export const SOURCES: Record<SearchSource, SourceSql> = {
  memories: {
    table: sql`memories d`,
    time: sql`d.updated_at`,
    key: sql`d.id`,
    columns: sql`d.id::text as id, d.text, d.tsv, d.updated_at as time, (d.metadata->>'lane_key') as lane_key,
      json_build_object('type', d.type, 'scope', d.scope, 'scope_key', d.scope_key, 'source', d.source,
        'metadata', d.metadata, 'created_at', d.created_at, 'expires_at', d.expires_at) as extra`,
    conditions: (tenantId, f, now, tenantIndexed = true) => [
      tenantCondition(tenantId, tenantIndexed),
      ...(now ? [sql`(d.expires_at is null or d.expires_at > ${iso(now)})`] : []),
      ...(f.scope ? [sql`d.scope = ${f.scope}`] : []),
      ...(f.scopeKey !== undefined ? [sql`d.scope_key = ${f.scopeKey}`] : []),
      ...(f.scopes
        ? [
            f.scopes.length === 0
              ? sql`false`
              : sql`(${sql.join(
                  f.scopes.map((s) => sql`(d.scope = ${s.scope} and d.scope_key = ${s.scopeKey})`),
                  sql` or `,
                )})`,
          ]
        : []),
      ...(f.types?.length
        ? [
            sql`d.type in (${sql.join(
              f.types.map((t) => sql`${t}`),
              sql`, `,
            )})`,
          ]
        : []),
      ...(f.laneKey ? [sql`(d.metadata->>'lane_key') = ${f.laneKey}`] : []),
      ...timeConditions(sql`d.updated_at`, f),
    ],
    // memories_scope_idx (tenant_id, scope, scope_key, updated_at)
    timeOrdered: (f) => Boolean(f.scope && f.scopeKey !== undefined),
  },
  transcript_chunks: {
    table: sql`transcript_chunks d`,
    time: sql`coalesce(d.end_ts, d.created_at)`,
    key: sql`d.session_id, d.first_seq`,
    columns: sql`(d.session_id::text || ':' || d.first_seq) as id, d.text, d.tsv,
      coalesce(d.end_ts, d.created_at) as time, d.lane_key,
      json_build_object('session_id', d.session_id, 'session_key', d.session_key, 'first_seq', d.first_seq,
        'last_seq', d.last_seq, 'start_ts', d.start_ts, 'end_ts', d.end_ts) as extra`,
    conditions: (tenantId, f, _now, tenantIndexed = true) => [
      tenantCondition(tenantId, tenantIndexed),
      ...(f.sessionKey ? [sql`d.session_key = ${f.sessionKey}`] : []),
      ...(f.laneKey ? [sql`d.lane_key = ${f.laneKey}`] : []),
      ...timeConditions(sql`coalesce(d.end_ts, d.created_at)`, f),
    ],
    timeOrdered: () => false,
  },
  channel_messages: {
    table: sql`channel_messages d`,
    time: sql`d.ts`,
    key: sql`d.platform, d.channel_id, d.message_id`,
    columns: sql`(d.platform || ':' || d.channel_id || ':' || d.message_id) as id, d.text, d.tsv, d.ts as time,
      d.lane_key, d.platform as extra_platform, d.channel_id as extra_channel_id, d.message_id as extra_message_id,
      d.thread_id as extra_thread_id, d.author_id as extra_author_id, d.author_name as extra_author_name`,
    // All text: the object json_build_object made of them, read back, is this one.
    extraColumns: ['platform', 'channel_id', 'message_id', 'thread_id', 'author_id', 'author_name'],
    conditions: (tenantId, f, _now, tenantIndexed = true) => [
      tenantCondition(tenantId, tenantIndexed),
      sql`d.deleted_at is null`,
      sql`not d.is_placeholder`,
      ...(f.platform ? [sql`d.platform = ${f.platform}`] : []),
      ...(f.channelId ? [sql`d.channel_id = ${f.channelId}`] : []),
      ...(f.laneKey ? [sql`d.lane_key = ${f.laneKey}`] : []),
      ...timeConditions(sql`d.ts`, f),
    ],
    // channel_messages_ts_idx (tenant_id, platform, channel_id, ts)
    timeOrdered: (f) => Boolean(f.platform && f.channelId),
  },
};

/**
 * The rows of a scope read, at most `limit`. A list of memory scopes is read one scope at a time,
 * each through memories_scope_idx with its own LIMIT: a bitmap of all of them would visit every
 * entry of a large scope before the LIMIT applies.
 */
export function scopeRows(
  source: SourceSql,
  tenantId: string,
  filters: SearchFilters,
  now: Date | null,
  limit: number,
  columns: SQL = sql`d.ctid as rid, d.tsv, ${source.time} as time`,
): SQL {
  const read = (f: SearchFilters) =>
    sql`(select ${columns} from ${source.table}
      where ${sql.join(source.conditions(tenantId, f, now), sql` and `)} limit ${limit})`;
  if (!filters.scopes?.length) return read(filters);
  const reads = filters.scopes.map(({ scope, scopeKey }) =>
    read({ ...filters, scopes: undefined, scope, scopeKey }),
  );
  return sql`select * from (${sql.join(reads, sql` union all `)}) u limit ${limit}`;
}

/** The filters as SOURCES' conditions test them: a key they would leave out is left out here too. */
const VALUE_KEYS = ['scope', 'scopeKey', 'sessionKey', 'platform', 'channelId', 'laneKey'] as const;
const TIME_KEYS = ['since', 'until'] as const;
const KNOWN_KEYS = new Set<string>([...VALUE_KEYS, ...TIME_KEYS, 'scopes', 'types']);

/**
 * `filters` with placeholders (src/db/prepared.ts) where their values go, the values by name, and
 * the shape: which filters there are (and how many scopes and types), all a statement built from
 * them depends on. Throws on a filter it does not know, rather than build a statement without it.
 */
export function slottedFilters(filters: SearchFilters): {
  filters: SearchFilters;
  values: Record<string, unknown>;
  shape: string;
} {
  const values: Record<string, unknown> = {};
  const put = <T>(name: string, value: unknown): T => ((values[name] = value), slot<T>(name));
  const slotted: SearchFilters = {};
  const shape: string[] = [];
  for (const key of Object.keys(filters)) {
    if (!KNOWN_KEYS.has(key)) throw new Error(`slottedFilters: unknown filter ${key}`);
  }
  for (const key of VALUE_KEYS) {
    const value = filters[key];
    // scopeKey counts when given (the empty key is a key), the others when not empty.
    if (key === 'scopeKey' ? value === undefined : !value) continue;
    slotted[key] = put<never>(`filter_${key}`, value);
    shape.push(key);
  }
  for (const key of TIME_KEYS) {
    const time = filters[key];
    if (!time) continue;
    slotted[key] = put<Date>(`filter_${key}`, time.toISOString());
    shape.push(key);
  }
  if (filters.scopes) {
    slotted.scopes = filters.scopes.map((s, i) => ({
      scope: put<never>(`filter_scope_${i}`, s.scope),
      scopeKey: put<string>(`filter_scope_key_${i}`, s.scopeKey),
    }));
    shape.push(`scopes:${filters.scopes.length}`);
  }
  if (filters.types?.length) {
    slotted.types = filters.types.map((t, i) => put<never>(`filter_type_${i}`, t));
    shape.push(`types:${filters.types.length}`);
  }
  return { filters: slotted, values, shape: shape.join(',') };
}
