// Search over memories, transcript chunks and (optionally) channel messages: safe query parsing,
// full-text candidates from Postgres, BM25-style ranking with recency, lane scoping, snippets.
// One function serves POST /v1/memories/search, the memory_search tool and assembly's retrieval.
import {
  BM25_B,
  BM25_K1,
  type CorpusStats,
  idf,
  makeSnippet,
  rareLexemes,
  speakerLabel,
  RARE_TERM_SHARE,
  relevanceScorer,
  searchScore,
  RECENCY_WEIGHT,
} from './core/retrieval-ranking.js';
import { MAX_QUERY_TERMS, orTsquery, pairsTsquery, queryWords, quoteLexeme } from './core/search-query.js';
import {
  expandQuery,
  FEEDBACK_DOCS,
  FEEDBACK_TERMS,
  ORIGINAL_QUERY_WEIGHT,
  relevanceModel,
} from './core/query-expansion.js';
import type { Clock } from '../../shared/clock.js';
import { isoTime } from '../../shared/iso-time.js';
import type { CandidateRow, SearchFilters, SearchRepository, SearchSource } from './search.repository.js';
import { candidatesFromDocuments, type ScopeCache } from './scope-cache.js';
import { createSearchStatistics } from './search-statistics.js';
import { redactText } from './core/redaction.js';

/** Results from lanes other than the caller's (and not named) need at least this score (§6.6). */
const CROSS_LANE_MIN_SCORE = 0.5;
export const DEFAULT_MAX_RESULTS = 8;
/** Channel messages by an author the query names score this much higher. */
const AUTHOR_BOOST = 0.15;
export const MAX_MAX_RESULTS = 100;
/** Assembly's retrieval asks for more (enough rows to fill an 8,000-token cap; context.retrieve.ts). */
const MAX_INTERNAL_RESULTS = 400;
/** Candidates per query term and the scan behind them: bounds latency on large tenants. */
const PER_TERM_CANDIDATES = 100;
const SCAN_LIMIT = 2_000;
/** Documents counted (and sampled for the average length) in a scope too large to read. */
const STATS_CAP = 50_000;
const LENGTH_SAMPLE = 1_000;
/**
 * Large scopes: documents holding two of the rare query lexemes, at most PAIR_SCAN_LIMIT of them
 * (few: two rare lexemes rarely meet), the best LARGE_KEEP ranked; when that finds fewer than
 * the results asked for, the rarest lexeme's own documents too (at most RAREST_SCAN_LIMIT read).
 */
const PAIR_SCAN_LIMIT = 300;
const RAREST_SCAN_LIMIT = 100;
const LARGE_KEEP = 20;
/**
 * A scope of at most this many documents is searched by reading its rows (one statement for
 * candidates and statistics) instead of through the GIN; see SearchRepository.scopeCandidates.
 */
export const SCOPE_SCAN_MAX = 2_000;
/** In a scope read, the most recent matches of a term that are ranked for its candidates. */
const SCOPE_RANK_WINDOW = 500;

/**
 * What a query's lexemes are read from (its words; null: none, nothing to read) and which of the
 * lexemes read are searched: `lexemes(query)` in two steps, for a caller that reads them inside
 * another statement (search.repository.ts lexemesSql).
 */
export function lexemeText(query: string): string | null {
  const words = queryWords(query);
  return words.length === 0 ? null : words.join(' ');
}
export const searchedLexemes = (lexemes: readonly string[]) => lexemes.slice(0, MAX_QUERY_TERMS);

type SearchResultKind = 'memory' | 'transcript_chunk' | 'channel_message';

export interface SearchResult {
  kind: SearchResultKind;
  /** Memory id; `session_id:first_seq` for a chunk; `platform:channel_id:message_id` for a message. */
  id: string;
  /** In [0,1]: BM25 relevance against the query's total IDF, damped by age. */
  score: number;
  snippet: string;
  text: string;
  time: string;
  lane_key: string | null;
  /** Kind-specific fields: memory type/scope/source, chunk session and seq range, message channel/author. */
  source: Record<string, unknown>;
}

/** How results are ranked beyond BM25 (the defaults are the measured configuration; docs/benchmarks.md). */
export interface RankingOptions {
  /** Pseudo-relevance feedback (RM3): a second pass with the expanded query; null: off. */
  feedback: { docs: number; terms: number; originalWeight: number } | null;
  /** Score factor for an item whose author (a message's, or a memory's `Name:` label) the query names. */
  authorBoost: number;
  bm25: { k1: number; b: number };
}

const DEFAULT_RANKING: RankingOptions = {
  feedback: { docs: FEEDBACK_DOCS, terms: FEEDBACK_TERMS, originalWeight: ORIGINAL_QUERY_WEIGHT },
  authorBoost: 1 + AUTHOR_BOOST,
  bm25: { k1: BM25_K1, b: BM25_B },
};

interface SearchMemoryParams {
  tenantId: string;
  query: string;
  filters?: SearchFilters;
  /** Default: memories and transcript chunks (memories only when `filters.types` is set). */
  sources?: SearchSource[];
  maxResults?: number;
  /** The caller's lane: other lanes' results need CROSS_LANE_MIN_SCORE unless named in `namedLanes`. */
  laneKey?: string;
  namedLanes?: string[];
  /** The query's lexemes when the caller already has them (`lexemes(query)`): saves a round trip. */
  lexemes?: string[];
  /** Reference time for expiry and recency (assembly passes the anchor message's time). */
  now: Date;
  recencyWeight?: number;
  /** Overrides of DEFAULT_RANKING (benchmarks compare them). */
  ranking?: Partial<RankingOptions>;
  /** False: results carry an empty snippet (assembly renders the whole text and never reads it). */
  snippets?: boolean;
  /**
   * The search_versions of the filters' scopes, as read earlier in the caller's statement
   * (scope-cache.ts scopeVersionsSql; the context call's loadTurn): small scopes at these versions
   * are searched in the process's held copy.
   */
  scopeVersions?: Readonly<Record<string, number>>;
}

interface SearchMemoryReply {
  results: SearchResult[];
  /** Lexemes searched (stemmed, stop words removed). */
  terms: string[];
  note?: string;
}

const KIND: Record<SearchSource, SearchResultKind> = {
  memories: 'memory',
  transcript_chunks: 'transcript_chunk',
  channel_messages: 'channel_message',
};

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * A result's text as every caller gets it (the search route, the tools, retrieval): memories are
 * redacted before they are stored and transcript chunks when they are built; a channel message's
 * row keeps what was said (the audit record), so its text is redacted here.
 */
const shownText = (source: SearchSource, text: string) =>
  source === 'channel_messages' ? redactText(text) : text;

export function createMemorySearchService(deps: {
  search: SearchRepository;
  clock: Clock;
  /** Small scopes' documents held between searches (scope-cache.ts); none: every search reads SQL. */
  scopeCache?: ScopeCache;
}) {
  const { search, clock, scopeCache } = deps;
  const statistics = createSearchStatistics({ search, clock });

  /**
   * One source's candidates for these lexemes with the statistics BM25 needs: a small scope is read
   * whole; a scope too large to read goes through the GIN for the documents where its rare lexemes
   * meet (PAIR_SCAN_LIMIT), and when those are too few, the rarest lexeme's own documents.
   */
  async function sourceCandidates(params: {
    tenantId: string;
    source: SearchSource;
    lexemes: string[];
    filters: SearchFilters;
    now: Date;
    maxResults: number;
    bm25: RankingOptions['bm25'];
    versions: SearchMemoryParams['scopeVersions'];
  }): Promise<{ rows: CandidateRow[]; corpus: CorpusStats; read: boolean }> {
    const { tenantId, source, lexemes, filters, now, maxResults, bm25 } = params;
    const terms = lexemes.map((lexeme) => ({ lexeme, query: quoteLexeme(lexeme) }));
    const query = orTsquery(lexemes);
    const scopeKey = JSON.stringify([tenantId, source, filters]);
    const fresh = statistics.freshLargeScope(scopeKey);
    const perTerm = Math.max(PER_TERM_CANDIDATES, maxResults);
    const rankWindow = Math.max(SCOPE_RANK_WINDOW, maxResults);
    // The scope's documents as held in the process, at the versions the caller read: the same
    // candidates as the scope read below, picked without a statement.
    const held = fresh
      ? null
      : await scopeCache?.documents({ tenantId, source, filters, versions: params.versions });
    const picked =
      held &&
      candidatesFromDocuments(held, {
        lexemes,
        nowMs: now.getTime(),
        perTerm,
        rankWindow,
        scanLimit: SCAN_LIMIT,
      });
    const small = fresh
      ? null
      : (picked ??
        (await search.scopeCandidates({
          tenantId,
          source,
          terms,
          query,
          filters,
          now,
          perTerm,
          scanLimit: SCAN_LIMIT,
          rankWindow,
          cap: SCOPE_SCAN_MAX,
        })));
    if (small) {
      statistics.forgetLargeScope(scopeKey);
      const documentFrequency = new Map(lexemes.map((l) => [l, small.rows[0]?.df[l] ?? 0]));
      return { rows: small.rows, corpus: { ...small, documentFrequency }, read: true };
    }
    const stats =
      fresh?.stats ??
      (await statistics.largeScopeStats(scopeKey, {
        tenantId,
        source,
        filters,
        now,
        cap: STATS_CAP,
        sample: LENGTH_SAMPLE,
      }));
    // Document frequencies from the table's statistics (lexemes absent from them are rarer than
    // any listed: 0).
    const shares = await statistics.tableShares(source);
    const documentFrequency = new Map(
      lexemes.map((l) => [l, Math.round((shares.get(l) ?? 0) * stats.documents)]),
    );
    const corpus = { ...stats, documentFrequency };
    const rare = rareLexemes(lexemes, shares);
    const base = {
      tenantId,
      source,
      terms: terms.map((t) => ({ ...t, idf: idf(stats.documents, documentFrequency.get(t.lexeme)!) })),
      query,
      filters,
      now,
      averageLength: stats.averageLength,
      keep: Math.max(LARGE_KEEP, 2 * maxResults),
      bm25,
    };
    // Every lexeme common (long posting lists): the scope's newest documents holding any of
    // them, when a btree reads the scope in time order.
    if (
      rare.every((l) => (shares.get(l) ?? 0) > RARE_TERM_SHARE) &&
      search.timeOrderedScope(source, filters)
    ) {
      const rows = await search.matchCandidates({
        ...base,
        match: query,
        scanLimit: PAIR_SCAN_LIMIT,
        newest: true,
      });
      return { rows, corpus, read: false };
    }
    // Where the pairs find fewer than asked for, the rarest lexeme's own documents too (one statement).
    const rows = await search.matchCandidates({
      ...base,
      match: pairsTsquery(rare),
      scanLimit: PAIR_SCAN_LIMIT,
      ...(rare.length >= 2
        ? {
            fallback: { match: orTsquery(rare.slice(0, 1)), scanLimit: RAREST_SCAN_LIMIT, below: maxResults },
          }
        : {}),
    });
    return { rows, corpus, read: false };
  }

  async function searchMemory(params: SearchMemoryParams): Promise<SearchMemoryReply> {
    const filters = params.filters ?? {};
    const maxResults = Math.min(Math.max(params.maxResults ?? DEFAULT_MAX_RESULTS, 1), MAX_INTERNAL_RESULTS);
    const words = queryWords(params.query);
    if (words.length === 0) return { results: [], terms: [], note: 'the query has no words to search for' };
    const lexemes = (params.lexemes ?? (await statistics.lexemesOfWords(words))).slice(0, MAX_QUERY_TERMS);
    if (lexemes.length === 0) {
      return { results: [], terms: [], note: 'the query has only stop words; nothing to search for' };
    }
    const sources =
      params.sources ??
      (filters.types?.length ? ['memories' as const] : ['memories' as const, 'transcript_chunks' as const]);
    const ranking = { ...DEFAULT_RANKING, ...params.ranking };
    const nowMs = params.now.getTime();
    const recencyWeight = params.recencyWeight ?? RECENCY_WEIGHT;
    const named = new Set([...(params.laneKey ? [params.laneKey] : []), ...(params.namedLanes ?? [])]);

    // An item's author is not a term of its text (a message's author) or only a common one (a
    // memory's `Name:` label): a question naming them ("what did Sam say about …") boosts their items.
    const queryWordSet = new Set(words);
    // Few authors among many rows: each author's answer is worked out once per search.
    const namedAuthors = new Map<string, boolean>();
    const namesAuthor = (source: SearchSource, row: CandidateRow) => {
      const author =
        source === 'channel_messages'
          ? row.extra.author_name
          : source === 'memories'
            ? speakerLabel(row.text)
            : null;
      if (typeof author !== 'string' || author.length === 0) return false;
      let named = namedAuthors.get(author);
      if (named === undefined) {
        named = queryWords(author).some((word) => word.length > 1 && queryWordSet.has(word));
        namedAuthors.set(author, named);
      }
      return named;
    };

    /** Every source's candidates for these lexemes, ranked, lane scoping applied. */
    const rank = async (queryLexemes: string[], termWeights?: ReadonlyMap<string, number>) => {
      const perSource = await Promise.all(
        sources.map(async (source) => {
          const { rows, corpus, read } = await sourceCandidates({
            tenantId: params.tenantId,
            source,
            lexemes: queryLexemes,
            filters,
            now: params.now,
            maxResults,
            bm25: ranking.bm25,
            versions: params.scopeVersions,
          });
          const relevanceOf = relevanceScorer(queryLexemes, corpus, termWeights, ranking.bm25);
          return { source, read, rows, relevanceOf };
        }),
      );
      // Scored and lane-scoped in one pass over every source's rows, in source order (one list, no
      // intermediate per-source lists of every candidate).
      const ranked: { source: SearchSource; row: CandidateRow; raw: number }[] = [];
      for (const { source, rows, relevanceOf } of perSource) {
        for (const row of rows) {
          const raw =
            searchScore(relevanceOf(row.tf, row.length), nowMs - row.time_ms, recencyWeight) *
            (namesAuthor(source, row) ? ranking.authorBoost : 1);
          // Lane scoping (§6.6): lane-less items and the caller's or named lanes always; others only when strong.
          if (
            params.laneKey &&
            row.lane_key &&
            !named.has(row.lane_key) &&
            Math.min(1, raw) < CROSS_LANE_MIN_SCORE
          )
            continue;
          ranked.push({ source, row, raw });
        }
      }
      ranked.sort((a, b) => b.raw - a.raw || b.row.time_ms - a.row.time_ms || (a.row.id < b.row.id ? -1 : 1));
      return { ranked, allRead: perSource.every((s) => s.read) };
    };

    const first = await rank(lexemes);
    let ranked = first.ranked;
    // Only where every scope was read whole: a large scope's second pass would walk the GIN again
    // for lexemes picked from its own results, doubling a cost the large path exists to bound.
    if (ranking.feedback && ranked.length > 0 && first.allRead) {
      // RM3: the best first-pass items are taken as relevant; their words expand the query.
      const top = ranked.slice(0, ranking.feedback.docs);
      const read = await Promise.all(
        sources.map((source) =>
          search.documentLexemes({
            tenantId: params.tenantId,
            source,
            rids: top.filter((t) => t.source === source).map((t) => t.row.rid),
          }),
        ),
      );
      const model = relevanceModel(
        top.map((t) => ({
          score: t.raw,
          lexemes: read[sources.indexOf(t.source)]!.get(t.row.rid) ?? new Map<string, number>(),
        })),
        ranking.feedback.terms,
      );
      const weights = expandQuery(lexemes, model, ranking.feedback.originalWeight);
      ranked = (await rank([...weights.keys()], weights)).ranked;
    }

    const shown = ranked.slice(0, maxResults);

    return {
      terms: lexemes,
      results: shown.map(({ source, row, raw }) => {
        const text = shownText(source, row.text);
        return {
          kind: KIND[source],
          id: row.id,
          score: round(Math.min(1, raw)),
          snippet: params.snippets === false ? '' : makeSnippet(text, lexemes),
          text,
          time: isoTime(row.time_ms),
          lane_key: row.lane_key,
          source: row.extra,
        };
      }),
    };
  }

  /** The english lexemes searchMemory would search for this query (none for no words). */
  async function lexemes(query: string): Promise<string[]> {
    const words = queryWords(query);
    return words.length === 0 ? [] : searchedLexemes(await statistics.lexemesOfWords(words));
  }

  return { searchMemory, lexemes };
}

export type MemorySearchService = ReturnType<typeof createMemorySearchService>;
