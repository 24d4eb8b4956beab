// Full-text candidate retrieval over memories, transcript chunks and channel messages. Small
// scopes are read whole: for each query lexeme, the best `perTerm` documents containing it (by
// ts_rank of the whole query) and how many matched (its capped document frequency), so every
// document holding a rarely used query term is a candidate for the IDF ranking that follows.
// Large scopes go through the GIN for the documents where the query's rare lexemes meet.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
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
  columns: SQL;
  /** `now` null: expired memories too (the scope cache keeps them and filters at each search). */
  conditions(tenantId: string, filters: SearchFilters, now: Date | null, tenantIndexed?: boolean): SQL[];
  /** Whether a btree serves these filters in time order (the scope's newest rows, read backwards). */
  timeOrdered(filters: SearchFilters): boolean;
}

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

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
function tenantCondition(tenantId: string, tenantIndexed: boolean): SQL {
  return tenantIndexed ? sql`d.tenant_id = ${tenantId}` : sql`(d.tenant_id || '') = ${tenantId}`;
}

export const SOURCES: Record<SearchSource, SourceSql> = {
  memories: {
    table: sql`memories d`,
    time: sql`d.updated_at`,
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
    columns: sql`(d.platform || ':' || d.channel_id || ':' || d.message_id) as id, d.text, d.tsv, d.ts as time,
      d.lane_key,
      json_build_object('platform', d.platform, 'channel_id', d.channel_id, 'message_id', d.message_id,
        'thread_id', d.thread_id, 'author_id', d.author_id, 'author_name', d.author_name) as extra`,
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

/** What both candidate queries take. */
interface CandidateQuery {
  tenantId: string;
  source: SearchSource;
  /** Per lexeme: its quoted tsquery literal. */
  terms: { lexeme: string; query: string }[];
  /** The whole query (OR of every lexeme) as a tsquery literal, for ranking. */
  query: string;
  filters: SearchFilters;
  now: Date;
  perTerm: number;
  scanLimit: number;
}

const termsJson = (terms: { lexeme: string; query: string }[]) =>
  JSON.stringify(terms.map((t) => ({ lexeme: t.lexeme, q: t.query })));

/** The winners' columns, term frequencies and document frequencies, from `docs`, `terms` and `picked`. */
const winners = (
  source: SourceSql,
) => sql`select x.id, p.rid::text as rid, x.text, (extract(epoch from x.time) * 1000)::float8 as time_ms,
    x.lane_key, x.extra, length(x.tsv) as length,
    (select jsonb_object_agg(u.lexeme, coalesce(array_length(u.positions, 1), 1)) from unnest(x.tsv) u
      where u.lexeme in (select t.lexeme from terms t)) as tf,
    (select jsonb_object_agg(z.lexeme, z.df) from (select distinct lexeme, df from picked) z) as df
  from docs p
  cross join lateral (select ${source.columns} from ${source.table} where d.ctid = p.rid) x`;

const json = <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T;
const toCandidate = (r: CandidateRow): CandidateRow => ({
  ...r,
  time_ms: Number(r.time_ms),
  length: Number(r.length),
  extra: json<Record<string, unknown>>(r.extra),
  tf: json<Record<string, number>>(r.tf) ?? {},
  df: json<Record<string, number>>(r.df) ?? {},
});

/**
 * The english-config lexemes of a text (stop words dropped, stems), in order of first use, as a
 * json array: a scalar expression, so another statement can carry it (ContextRepository.loadTurn).
 */
export const lexemesSql = (text: string) =>
  sql`(select coalesce(json_agg(z.lexeme order by z.pos, z.lexeme), '[]'::json) from (
    select lexeme, min(p) as pos from unnest(to_tsvector('english', ${text}::text)) as u(lexeme, positions, weights),
      unnest(positions) as p group by lexeme) z)`;

/** lexemesSql's value as read back (json text or parsed, by driver). */
export const lexemesOfRow = (value: unknown): string[] =>
  (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as string[];

/**
 * `genericPlans`: where the rare-lexeme candidate reads run (Database.genericPlanDb on PostgreSQL:
 * their custom plan cost ~15× their execution, and the generic plan is the GIN read they are built
 * for); `db` by default.
 */
export function createSearchRepository(db: Executor, options: { genericPlans?: Executor } = {}) {
  const genericPlans = options.genericPlans ?? db;
  return {
    /** The english-config lexemes of a text (stop words dropped, stems), in order of first use. */
    async lexemesOf(text: string, tx: Executor = db): Promise<string[]> {
      const [row] = await queryRows<{ lexemes: unknown }>(tx, sql`select ${lexemesSql(text)} as lexemes`);
      return lexemesOfRow(row?.lexemes);
    },

    /** Whether `matchCandidates({ newest: true })` can walk a btree of this scope in time order. */
    timeOrderedScope(source: SearchSource, filters: SearchFilters): boolean {
      return SOURCES[source].timeOrdered(filters);
    },

    /**
     * Candidates of a large scope through the GIN, reading the heap only for documents that match
     * `match` (a tsquery the caller builds from its rarest lexemes, such as "at least two of
     * them"), at most `scanLimit`. They are ranked by BM25 with every term frequency taken as 1
     * (a containment test per lexeme, ~1 µs, where ts_rank_cd costs ~17 µs and reading the term
     * frequencies ~70 µs a chunk), and the best `keep` are returned with their real term
     * frequencies. Document frequencies are the caller's (the rows' `df` is empty).
     */
    async matchCandidates(
      params: Omit<CandidateQuery, 'perTerm' | 'terms'> & {
        terms: { lexeme: string; query: string; idf: number }[];
        match: string;
        averageLength: number;
        keep: number;
        /** BM25 parameters of the ranking that follows. */
        bm25: { k1: number; b: number };
        /**
         * Read the scope's newest matching rows through its time-ordered btree (see
         * `timeOrderedScope`) instead of the GIN: for lexemes so common that their posting lists
         * are long, while most of the newest rows hold one of them.
         */
        newest?: boolean;
        /**
         * In the same statement, when `match` finds fewer than `below` documents: the documents
         * matching this tsquery too (at most `scanLimit` read, the best `keep` of those not found
         * already), returned after the first ones. One statement and one plan where there were two.
         */
        fallback?: { match: string; scanLimit: number; below: number };
      },
      tx?: Executor,
    ): Promise<CandidateRow[]> {
      const source = SOURCES[params.source];
      const newest = params.newest === true;
      const fallback = params.fallback;
      const where = sql.join(
        source.conditions(params.tenantId, params.filters, params.now, newest),
        sql` and `,
      );
      const weights = JSON.stringify(params.terms.map((t) => ({ lexeme: t.lexeme, q: t.query, idf: t.idf })));
      const { k1, b } = params.bm25;
      const norm = sql`(1 - ${b}::float8 + ${b}::float8 * length(h.tsv) / ${Math.max(params.averageLength, 1)}::float8)`;
      // The newest-rows read keeps custom plans: whether the time index or the GIN is right
      // depends on how common its lexemes are.
      const executor = tx ?? (newest ? db : genericPlans);
      const rows = await queryRows<CandidateRow>(
        executor,
        sql`with terms as (
            select t.lexeme, t.q::tsquery as q, t.idf
            from jsonb_to_recordset(${weights}::jsonb) as t(lexeme text, q text, idf float8)
          ),
          hits as (
            select d.ctid as rid, d.tsv from ${source.table} where ${where} and d.tsv @@ ${params.match}::tsquery
            ${newest ? sql`order by ${source.time} desc` : sql``} limit ${params.scanLimit}
          ),
          firsts as (
            select h.rid from hits h
            order by (select sum(t.idf) from terms t where h.tsv @@ t.q) / (1 + ${k1}::float8 * ${norm}) desc, h.rid
            limit ${params.keep}
          ),
          ${
            fallback
              ? sql`more as (
            select d.ctid as rid, d.tsv from ${source.table} where ${where} and d.tsv @@ ${fallback.match}::tsquery
              and (select count(*) from firsts) < ${fallback.below}
            limit ${fallback.scanLimit}
          ),
          seconds as (
            select h.rid from more h where h.rid not in (select rid from firsts)
            order by (select sum(t.idf) from terms t where h.tsv @@ t.q) / (1 + ${k1}::float8 * ${norm}) desc, h.rid
            limit ${params.keep}
          ),
          docs as (select rid from firsts union all select rid from seconds),`
              : sql`docs as (select rid from firsts),`
          }
          picked as (select null::text as lexeme, null::int as df where false)
          ${winners(source)}`,
      );
      return rows.map(toCandidate);
    },

    /**
     * Candidates and corpus statistics of a small scope in one statement, or null when the scope
     * holds more than `cap` documents. The scope's rows (at most cap + 1) are read
     * once through its btree and each term is tested against them, instead of the table-wide GIN
     * bitmaps, whose cost follows how often a term occurs in the whole table (every channel and
     * tenant), not in the scope. Per term: its matches up to `scanLimit` give its document
     * frequency; the most recent `rankWindow` of them are ranked by ts_rank (~0.5 µs a row; ts_rank_cd,
     * which adds proximity, cost ~7 µs and changed no LoCoMo recall figure) and
     * the best `perTerm` kept.
     */
    async scopeCandidates(
      params: CandidateQuery & { rankWindow: number; cap: number },
      tx: Executor = db,
    ): Promise<{ documents: number; averageLength: number; rows: CandidateRow[] } | null> {
      const source = SOURCES[params.source];
      const rows = await queryRows<CandidateRow & { documents: number; avgdl: number | null }>(
        tx,
        sql`with terms as (
            select t.lexeme, t.q::tsquery as q
            from jsonb_to_recordset(${termsJson(params.terms)}::jsonb) as t(lexeme text, q text)
          ),
          scope as materialized (${scopeRows(source, params.tenantId, params.filters, params.now, params.cap + 1)}),
          stats as (select count(*)::int as documents,
            sum(length(tsv))::float8 / nullif(count(*), 0) as avgdl from scope),
          picked as (
            select t.lexeme, c.rid, c.df
            from terms t
            cross join lateral (
              select s.rid, s.df
              from (select m.rid, m.tsv, count(*) over () as df,
                  row_number() over (order by m.time desc, m.rid) as n
                from (select s.rid, s.tsv, s.time from scope s where s.tsv @@ t.q limit ${params.scanLimit}) m) s
              where s.n <= ${params.rankWindow}
              order by ts_rank(s.tsv, ${params.query}::tsquery) desc, s.rid
              limit ${params.perTerm}
            ) c
            where (select documents from stats) <= ${params.cap}
          ),
          docs as (select distinct rid from picked),
          found as (${winners(source)})
          select st.documents, st.avgdl, f.* from stats st left join found f on true`,
      );
      const documents = Number(rows[0]?.documents ?? 0);
      if (documents > params.cap) return null;
      return {
        documents,
        averageLength: Number(rows[0]?.avgdl ?? 0),
        rows: rows.filter((r) => r.id !== null).map(({ documents: _n, avgdl: _a, ...r }) => toCandidate(r)),
      };
    },

    /**
     * Every lexeme of the given rows (ctids from this search's candidates) with its occurrences,
     * for query expansion. A row that changed since (another ctid, another tenant) is not returned.
     */
    async documentLexemes(
      params: { tenantId: string; source: SearchSource; rids: string[] },
      tx: Executor = db,
    ): Promise<Map<string, Map<string, number>>> {
      if (params.rids.length === 0) return new Map();
      const source = SOURCES[params.source];
      const rows = await queryRows<{ rid: string; tf: unknown }>(
        tx,
        sql`select d.ctid::text as rid,
            (select jsonb_object_agg(u.lexeme, coalesce(array_length(u.positions, 1), 1)) from unnest(d.tsv) u) as tf
          from ${source.table}
          where d.ctid = any(array(select jsonb_array_elements_text(${JSON.stringify(params.rids)}::jsonb)::tid))
            and ${tenantCondition(params.tenantId, true)}`,
      );
      return new Map(
        rows.map((r) => [r.rid, new Map(Object.entries(json<Record<string, number>>(r.tf) ?? {}))]),
      );
    },

    /**
     * Share of the source table's rows holding each of its most common lexemes, from Postgres'
     * statistics (`most_common_elems` of the tsv column; a lexeme absent from them is rarer than
     * every listed one). Table-wide, not per tenant: used to pick the rare lexemes of a large
     * scope and to estimate their document frequencies. Unnesting the list costs a few ms (10,000
     * lexemes at statistics target 1000), so callers cache it.
     */
    async lexemeShares(
      { source }: { source: SearchSource },
      tx: Executor = db,
    ): Promise<Map<string, number>> {
      const rows = await queryRows<{ lexeme: string; share: number }>(
        tx,
        sql`select e.lexeme, e.share::float8 as share
          from pg_stats s,
            unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, share)
          where s.schemaname = current_schema() and s.tablename = ${source} and s.attname = 'tsv'
            and e.lexeme is not null`,
      );
      return new Map(rows.map((r) => [r.lexeme, Number(r.share)]));
    },

    /**
     * Documents searched (a count capped at `cap`) and their average length in distinct lexemes,
     * estimated from the first `sample` of them: IDF needs magnitudes, not exact figures.
     */
    async corpusStats(
      params: {
        tenantId: string;
        source: SearchSource;
        filters: SearchFilters;
        now: Date;
        cap: number;
        sample: number;
      },
      tx: Executor = db,
    ): Promise<{ documents: number; averageLength: number }> {
      const source = SOURCES[params.source];
      const where = sql.join(source.conditions(params.tenantId, params.filters, params.now), sql` and `);
      const [row] = await queryRows<{ n: number; avgdl: number | null }>(
        tx,
        sql`select (select count(*) from (select 1 from ${source.table} where ${where} limit ${params.cap}) a)::int as n,
          (select avg(length(b.tsv)) from (select d.tsv from ${source.table} where ${where} limit ${params.sample}) b)::float8 as avgdl`,
      );
      return { documents: Number(row?.n ?? 0), averageLength: Number(row?.avgdl ?? 0) };
    },
  };
}

export type SearchRepository = ReturnType<typeof createSearchRepository>;
