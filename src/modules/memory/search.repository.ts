// Full-text candidate retrieval over memories, transcript chunks and channel messages. Small
// scopes are read whole: for each query lexeme, the best `perTerm` documents containing it (by
// ts_rank of the whole query) and how many matched (its capped document frequency), so every
// document holding a rarely used query term is a candidate for the IDF ranking that follows.
// Large scopes go through the GIN for the documents where the query's rare lexemes meet.
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { tsvectorFrequencies } from './core/search-query.js';
import { builtStatements, rawStatement, rowsOf, slot } from '../../db/prepared.js';
import {
  SOURCES,
  scopeRows,
  slottedFilters,
  tenantCondition,
  type CandidateRow,
  type SearchFilters,
  type SearchSource,
  type SourceSql,
} from './search-sources.repository.js';

export {
  SOURCES,
  scopeRows,
  type CandidateRow,
  type SearchFilters,
  type SearchSource,
  type SourceSql,
} from './search-sources.repository.js';

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

/**
 * A tsvector with the query lexemes (`terms`) marked: setweight gives their positions weight A
 * (every stored tsvector is to_tsvector's, weight D and positions everywhere), so ts_filter of the
 * result keeps them alone. A detoasted copy, which every `@@` and `length` then reads.
 */
const marked = (tsv: SQL) => sql`setweight(${tsv}, 'A', (select array_agg(t.lexeme) from terms t))`;

/**
 * The winners' columns and term frequencies, from `docs` and `terms`. A winner's term frequencies
 * are its query lexemes' positions: ts_filter keeps the marked ones, a vector of a few lexemes sent
 * as text and counted in Node (tsvectorFrequencies). Unnesting the whole vector builds a row per
 * lexeme (~145 for a transcript chunk: 40–50 µs a winner); unnesting the kept one into json is
 * still a subplan a winner (~0.2 ms of a bench:search query's ~2.5 ms in PostgreSQL).
 * `docs` holds either the winners' rids with their length and marked vector, as the candidate
 * read made them (`carried`), or only their rids, with the document frequencies in `picked`.
 * `offset 0` keeps each winner's row a TID read of its own: pulled up into a join, the planner may
 * hash the winners against a scan of the whole table (every tenant's rows) when that is small.
 */
const winners = (source: SourceSql, carried: boolean) =>
  sql`select x.id, p.rid::text as rid, x.text, (extract(epoch from x.time) * 1000)::float8 as time_ms,
    x.lane_key, ${
      source.extraColumns ? sql.raw(source.extraColumns.map((c) => `x.extra_${c}`).join(', ')) : sql`x.extra`
    }, ${
      carried
        ? sql`p.length, ts_filter(p.tsv, '{a}')::text as tf`
        : sql`length(x.tsv) as length, ts_filter(${marked(sql`x.tsv`)}, '{a}')::text as tf,
    (select jsonb_object_agg(z.lexeme, z.df) from (select distinct lexeme, df from picked) z) as df`
    }
  from docs p
  cross join lateral (select ${source.columns} from ${source.table} where d.ctid = p.rid offset 0) x`;

const json = <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T;
/** A winner as `winners` selects it: its term frequencies as a tsvector's text. */
type WinnerRow = Omit<CandidateRow, 'tf'> & { tf: string | null };
/**
 * A winner of `source` as a candidate; with extraColumns, its `extra` is put together from its
 * columns and takes json `extra`'s place (the same keys in the same order as before).
 */
const toCandidate = (source: SourceSql) => {
  // The selected columns' names made once per source, not as a string and an entry pair per row
  // (a winner list is read on every context call).
  const extraColumns = source.extraColumns?.map((name) => ({ name, column: `extra_${name}` }));
  return (r: WinnerRow): CandidateRow => {
    let extra: Record<string, unknown>;
    if (extraColumns) {
      const columns = r as WinnerRow & Record<string, unknown>;
      extra = {};
      for (const { name, column } of extraColumns) extra[name] = columns[column] ?? null;
    } else {
      extra = json<Record<string, unknown>>(r.extra);
    }
    return {
      id: r.id,
      rid: r.rid,
      text: r.text,
      time_ms: Number(r.time_ms),
      lane_key: r.lane_key,
      extra,
      length: Number(r.length),
      tf: tsvectorFrequencies(r.tf ?? ''),
      df: json<Record<string, number>>(r.df) ?? {},
    };
  };
};

/**
 * The english-config lexemes of a text (stop words dropped, stems), in order of first use, as a
 * json array: a scalar expression, so another statement can carry it (ContextRepository.loadTurn).
 * A tsvector holds each lexeme once with its positions sorted, so the first use is positions[1]:
 * no unnest of the positions and no grouping back (~4% of the load statement).
 */
export const lexemesSql = (text: string | SQL) =>
  sql`(select coalesce(json_agg(u.lexeme order by u.positions[1], u.lexeme), '[]'::json)
    from unnest(to_tsvector('english', ${text}::text)) as u(lexeme, positions, weights)
    where cardinality(u.positions) > 0)`;

/** lexemesSql's value as read back (json text or parsed, by driver). */
export const lexemesOfRow = (value: unknown): string[] =>
  (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as string[];

/**
 * matchCandidates' statement for a shape, with placeholders for its values (src/db/prepared.ts):
 * built once per shape and executor, where drizzle would turn the tree into text on every call.
 */
export function matchSql(
  sourceName: SearchSource,
  filters: SearchFilters,
  newest: boolean,
  withFallback: boolean,
) {
  const source = SOURCES[sourceName];
  const where = sql.join(source.conditions(slot('tenantId'), filters, slot<Date>('now'), newest), sql` and `);
  const b = slot<number>('b');
  const norm = sql`(1 - ${b}::float8 + ${b}::float8 * length(h.tsv) / ${slot('averageLength')}::float8)`;
  // A read row's vector is read once, marked (one detoasted copy that every term's test reads, where
  // each `@@` of the stored column fetched a TOASTed vector again: a transcript chunk's ~2 kB, 12 µs
  // a row for six terms) and kept with the winners, whose term frequencies it gives without a
  // second fetch (~0.4 ms of a bench:search query's ~3 in PostgreSQL against a stripped copy).
  const score = sql`(select sum(t.idf) from terms t where h.tsv @@ t.q) / (1 + ${slot('k1')}::float8 * ${norm})`;
  return sql`with terms as (
      select t.lexeme, t.q::tsquery as q, t.idf
      from jsonb_to_recordset(${slot('weights')}::jsonb) as t(lexeme text, q text, idf float8)
    ),
    hits as (
      select d.ctid as rid, ${marked(sql`d.tsv`)} as tsv from ${source.table} where ${where} and d.tsv @@ ${slot('match')}::tsquery
      ${newest ? sql`order by ${source.time} desc` : sql``} limit ${slot('scanLimit')}
    ),
    firsts as (
      select h.rid, length(h.tsv) as length, h.tsv from hits h order by ${score} desc, h.rid limit ${slot('keep')}
    ),
    ${
      withFallback
        ? sql`more as (
      select d.ctid as rid, ${marked(sql`d.tsv`)} as tsv from ${source.table} where ${where} and d.tsv @@ ${slot('fallbackMatch')}::tsquery
        and (select count(*) from firsts) < ${slot('fallbackBelow')}
      limit ${slot('fallbackScanLimit')}
    ),
    seconds as (
      select h.rid, length(h.tsv) as length, h.tsv from more h where h.rid not in (select rid from firsts)
      order by ${score} desc, h.rid limit ${slot('keep')}
    ),
    docs as (select * from firsts union all select * from seconds)`
        : sql`docs as (select * from firsts)`
    }
    ${winners(source, true)}`;
}

const built = builtStatements();

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
      // Built once per executor (every search without the caller's lexemes runs it).
      const statement = built(tx, 'lexemes', (on) =>
        rawStatement<{ lexemes: unknown }>(on, sql`select ${lexemesSql(slot('text'))} as lexemes`),
      );
      const [row] = await rowsOf(statement.execute({ text }));
      return lexemesOfRow(row?.lexemes);
    },

    /**
     * Each word's lexemes (lexemesOf of the word alone), in the words' order. The default parser
     * ends every token at a space, so `lexemesOf(words.join(' '))` is these lists joined in order
     * without repeats: a caller can keep them per word and read only the words it has not seen.
     */
    async wordLexemes(words: string[], tx: Executor = db): Promise<string[][]> {
      if (words.length === 0) return [];
      const statement = built(tx, 'word-lexemes', (on) =>
        rawStatement<{ lexemes: unknown }>(
          on,
          sql`select coalesce(json_agg(${lexemesSql(sql`w.word`)} order by w.n), '[]'::json) as lexemes
            from jsonb_array_elements_text(${slot('words')}::jsonb) with ordinality as w(word, n)`,
        ),
      );
      const [row] = await rowsOf(statement.execute({ words: JSON.stringify(words) }));
      const lists = (
        typeof row?.lexemes === 'string' ? JSON.parse(row.lexemes) : (row?.lexemes ?? [])
      ) as unknown[];
      return lists.map(lexemesOfRow);
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
      const newest = params.newest === true;
      const fallback = params.fallback;
      const slotted = slottedFilters(params.filters);
      // The newest-rows read keeps custom plans: whether the time index or the GIN is right
      // depends on how common its lexemes are.
      const executor = tx ?? (newest ? db : genericPlans);
      const shape = `${params.source}|${newest}|${fallback !== undefined}|${slotted.shape}`;
      const statement = built(executor, shape, (on) =>
        rawStatement<WinnerRow>(on, matchSql(params.source, slotted.filters, newest, fallback !== undefined)),
      );
      const rows = await rowsOf(
        statement.execute({
          ...slotted.values,
          tenantId: params.tenantId,
          now: params.now.toISOString(),
          weights: JSON.stringify(params.terms.map((t) => ({ lexeme: t.lexeme, q: t.query, idf: t.idf }))),
          k1: params.bm25.k1,
          b: params.bm25.b,
          averageLength: Math.max(params.averageLength, 1),
          match: params.match,
          scanLimit: params.scanLimit,
          keep: params.keep,
          fallbackMatch: fallback?.match ?? null,
          fallbackScanLimit: fallback?.scanLimit ?? null,
          fallbackBelow: fallback?.below ?? null,
        }),
      );
      return rows.map(toCandidate(SOURCES[params.source]));
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
      const rows = await queryRows<WinnerRow & { documents: number; avgdl: number | null }>(
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
          found as (${winners(source, false)})
          select st.documents, st.avgdl, f.* from stats st left join found f on true`,
      );
      const documents = Number(rows[0]?.documents ?? 0);
      if (documents > params.cap) return null;
      return {
        documents,
        averageLength: Number(rows[0]?.avgdl ?? 0),
        // toCandidate reads only a winner's columns: each row is passed as it is, not copied.
        rows: rows.filter((r) => r.id !== null).map(toCandidate(source)),
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
      // The vector as text, counted in Node (tsvectorFrequencies), where unnesting it into json
      // builds a row per lexeme.
      const rows = await queryRows<{ rid: string; tsv: string | null }>(
        tx,
        sql`select d.ctid::text as rid, d.tsv::text as tsv
          from ${source.table}
          where d.ctid = any(array(select jsonb_array_elements_text(${JSON.stringify(params.rids)}::jsonb)::tid))
            and ${tenantCondition(params.tenantId, true)}`,
      );
      return new Map(rows.map((r) => [r.rid, new Map(Object.entries(tsvectorFrequencies(r.tsv ?? '')))]));
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
     * estimated from the first `sample` of them in key order: IDF needs magnitudes, not exact
     * figures, but the same stored rows must give the same scores (and payloads) on every call and
     * instance, which rows in whatever order a scan returns them do not.
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
          (select avg(length(b.tsv)) from (select d.tsv from ${source.table} where ${where}
            order by ${source.key} limit ${params.sample}) b)::float8 as avgdl`,
      );
      return { documents: Number(row?.n ?? 0), averageLength: Number(row?.avgdl ?? 0) };
    },
  };
}

export type SearchRepository = ReturnType<typeof createSearchRepository>;
