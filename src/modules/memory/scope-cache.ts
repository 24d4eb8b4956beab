// The documents of small search scopes, kept in the process between searches (a context
// call's retrieval read and ranked every memory of the session's scopes, and every transcript chunk
// of its session, on every call). A scope's documents are held with the versions its rows had when
// read (search_versions, set by triggers in the writing transaction); the context call reads the
// versions in its first statement, and a search whose versions match picks its candidates here, in
// the same way SearchRepository.scopeCandidates picks them in SQL, without a statement. Bounded in
// bytes. docs/memory.md, "Scope cache".
import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/client.js';
import { readScope, versionToken } from './scope-documents.repository.js';
import type { CandidateRow, SearchFilters, SearchSource } from './search.repository.js';

/** The cache's heap bound (a lower bound of what is held: see bytesOf). A scope over an eighth of it is not held. */
const SCOPE_CACHE_BYTES = 32 * 2 ** 20;
const DOCUMENT_OVERHEAD_BYTES = 300;
const LEXEME_BYTES = 40;

/** The sources whose scopes have versions (search_versions.source). */
export type VersionedSource = 'memories' | 'transcript_chunks';

/** One document of a scope, with what a scope read gives of it. */
export interface ScopeDocument {
  id: string;
  rid: string;
  /** The ctid's block and offset, for SQL's tid order. */
  block: number;
  offset: number;
  text: string;
  time_ms: number;
  /** The document's time in µs since the epoch (exact; SQL's order). */
  time_us: number;
  /** A memory's expiry in µs since the epoch; null: none. */
  expires_us: number | null;
  lane_key: string | null;
  extra: Record<string, unknown>;
  length: number;
  /** Occurrences of each of its lexemes. */
  tf: ReadonlyMap<string, number>;
}

/** A scope as read: its versions' token and, when it held at most `cap` rows, every document. */
export interface ScopeRead {
  token: string | null;
  /** False: the scope has more than `cap` rows (expired memories included); none are held. */
  complete: boolean;
  documents: readonly ScopeDocument[];
}

/**
 * The search_versions keys of a search's scope, or null when the filters are not a shape the cache
 * serves: memories of a list of scopes (a session's visible memories) and transcript chunks of one
 * session key (channel filters do not apply to chunks), with no other filter.
 */
export function versionKeys(source: SearchSource, filters: SearchFilters): string[] | null {
  const { scopes, sessionKey, platform: _p, channelId: _c, ...others } = filters;
  if (Object.values(others).some((v) => v !== undefined)) return null;
  if (source === 'memories' && scopes?.length && sessionKey === undefined)
    return scopes.map((s) => `${s.scope}:${s.scopeKey}`);
  if (source === 'transcript_chunks' && sessionKey !== undefined && scopes === undefined) return [sessionKey];
  return null;
}

/** What SearchRepository.scopeCandidates answers. */
interface ScopeCandidates {
  documents: number;
  averageLength: number;
  rows: CandidateRow[];
}

const byTimeThenTid = (a: ScopeDocument, b: ScopeDocument) =>
  b.time_us - a.time_us || a.block - b.block || a.offset - b.offset;

const f32 = Math.fround;
/** ts_rank's default weight of a position with weight D (every position of to_tsvector), as a float4. */
const D_WEIGHT = f32(0.1);

/**
 * PostgreSQL's ts_rank(tsv, query) (normalization 0) of a document for an OR of `items` (the query's
 * distinct lexemes, in tsquery order: byte order), to the bit: the same float4 steps as its C
 * (calc_rank_or), every position weighted D. Per lexeme with n positions: the sum of w/i² for
 * i = 1..n, divided by π²/6 in double precision; their sum divided by the number of lexemes.
 */
export function tsRank(tf: ReadonlyMap<string, number>, items: readonly string[]): number {
  let res = 0;
  for (const item of items) {
    const positions = tf.get(item);
    if (positions === undefined) continue;
    let sum = 0;
    for (let j = 1; j <= positions; j += 1) sum = f32(sum + f32(D_WEIGHT / (j * j)));
    // (wjm + resj - wjm / 1²) in float4, then / 1.64493406685 and the addition in double.
    res = f32(res + f32(f32(D_WEIGHT + sum) - D_WEIGHT) / 1.64493406685);
  }
  return items.length > 0 ? f32(res / items.length) : 0;
}

/** A tsquery's operands as ts_rank orders them (byte order, distinct). */
export const tsqueryItems = (lexemes: readonly string[]): string[] =>
  [...new Set(lexemes)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/**
 * A held scope's documents by lexeme, in the scope's order, and what its statistics need when none
 * of its documents expires: built once when the scope is held, so a search looks up its lexemes'
 * documents instead of testing every document for each lexeme.
 */
interface ScopeIndex {
  postings: ReadonlyMap<string, readonly ScopeDocument[]>;
  /** No document has an expiry: every document is live at any time. */
  noneExpire: boolean;
  totalLength: number;
}

const indexes = new WeakMap<readonly ScopeDocument[], ScopeIndex>();

/** Indexes held documents (createScopeCache); candidatesFromDocuments then uses the index. */
export function indexScope(documents: readonly ScopeDocument[]): void {
  const postings = new Map<string, ScopeDocument[]>();
  let totalLength = 0;
  let noneExpire = true;
  for (const d of documents) {
    totalLength += d.length;
    if (d.expires_us !== null) noneExpire = false;
    for (const lexeme of d.tf.keys()) {
      const list = postings.get(lexeme);
      if (list) list.push(d);
      else postings.set(lexeme, [d]);
    }
  }
  indexes.set(documents, { postings, noneExpire, totalLength });
}

const NO_DOCUMENTS: readonly ScopeDocument[] = [];

/**
 * SearchRepository.scopeCandidates over held documents, for the query `orTsquery(lexemes)`: the
 * same documents, statistics, term and document frequencies. Per lexeme: its matches (document
 * frequency), the most recent `rankWindow` of them (time, then tid), the best `perTerm` of those by
 * ts_rank (then tid). Null when the held scope is larger than `scanLimit` (never: see createScopeCache).
 */
export function candidatesFromDocuments(
  documents: readonly ScopeDocument[],
  params: {
    lexemes: readonly string[];
    nowMs: number;
    perTerm: number;
    rankWindow: number;
    scanLimit: number;
  },
): ScopeCandidates | null {
  const nowUs = params.nowMs * 1000;
  const isLive = (d: ScopeDocument) => d.expires_us === null || d.expires_us > nowUs;
  const index = indexes.get(documents);
  const allLive = index?.noneExpire === true;
  const live = allLive ? documents : documents.filter(isLive);
  // SQL counts a term's matches up to scanLimit.
  if (live.length > params.scanLimit) return null;
  let lengths = 0;
  if (allLive) lengths = index.totalLength;
  else for (const d of live) lengths += d.length;
  /** The live documents holding a lexeme, in the scope's order. */
  const matchesOf = (lexeme: string): readonly ScopeDocument[] => {
    if (!index) return live.filter((d) => d.tf.has(lexeme));
    const posting = index.postings.get(lexeme) ?? NO_DOCUMENTS;
    return allLive ? posting : posting.filter(isLive);
  };
  const items = tsqueryItems(params.lexemes);
  const ranks = new Map<ScopeDocument, number>();
  const rankOf = (d: ScopeDocument) => {
    let rank = ranks.get(d);
    if (rank === undefined) ranks.set(d, (rank = tsRank(d.tf, items)));
    return rank;
  };
  const picked = new Set<ScopeDocument>();
  const df: Record<string, number> = {};
  for (const lexeme of params.lexemes) {
    const matches = matchesOf(lexeme);
    if (matches.length === 0) continue;
    df[lexeme] = matches.length;
    let window = matches;
    // Sorted copies: `matches` may be the index's own list.
    if (window.length > params.rankWindow)
      window = window.slice().sort(byTimeThenTid).slice(0, params.rankWindow);
    if (window.length > params.perTerm)
      window = window
        .slice()
        .sort((a, b) => rankOf(b) - rankOf(a) || a.block - b.block || a.offset - b.offset)
        .slice(0, params.perTerm);
    for (const d of window) picked.add(d);
  }
  const rows = [...picked].map((d): CandidateRow => {
    const tf: Record<string, number> = {};
    for (const lexeme of params.lexemes) {
      const n = d.tf.get(lexeme);
      if (n !== undefined) tf[lexeme] = n;
    }
    return {
      id: d.id,
      rid: d.rid,
      text: d.text,
      time_ms: d.time_ms,
      lane_key: d.lane_key,
      extra: d.extra,
      length: d.length,
      tf,
      df,
    };
  });
  return { documents: live.length, averageLength: live.length === 0 ? 0 : lengths / live.length, rows };
}

const bytesOf = (documents: readonly ScopeDocument[]) =>
  documents.reduce(
    (sum, d) => sum + DOCUMENT_OVERHEAD_BYTES + 2 * d.text.length + LEXEME_BYTES * d.tf.size,
    0,
  );

/**
 * Held scopes by tenant, source and keys, read through `db` when missing; an entry answers only for
 * the token it was read at. Concurrent searches missing the same scope share one read.
 */
export function createScopeCache(db: Executor, options: { maxBytes?: number; cap: number }) {
  const maxBytes = options.maxBytes ?? SCOPE_CACHE_BYTES;
  const held = new LRUCache<string, { token: string; documents: readonly ScopeDocument[] }>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (h) => Math.max(1, bytesOf(h.documents)),
  });
  const inFlight = new Map<string, Promise<ScopeRead>>();
  return {
    /**
     * The documents of a search's scope when the cache serves its shape (versionKeys) and `versions`
     * (scopeVersionsSql, read earlier by the caller) holds its keys: held ones at those versions, else
     * read now (newer ones, if the scope changed since: what a search in SQL would read). Null: not
     * served, or more than `cap` rows; the caller searches in SQL.
     */
    async documents(params: {
      tenantId: string;
      source: SearchSource;
      filters: SearchFilters;
      versions: Readonly<Record<string, number>> | undefined;
    }): Promise<readonly ScopeDocument[] | null> {
      const { tenantId, source, filters, versions } = params;
      if (maxBytes <= 0 || !versions || source === 'channel_messages') return null;
      const keys = versionKeys(source, filters);
      const token = keys && versionToken(source, keys, versions);
      if (!keys || token === null) return null;
      const key = JSON.stringify([tenantId, source, keys]);
      const entry = held.get(key);
      if (entry && entry.token === token) return entry.documents;
      const flightKey = `${key} ${token}`;
      let pending = inFlight.get(flightKey);
      if (!pending) {
        pending = readScope(db, { tenantId, source, filters, keys, cap: options.cap }).then((read) => {
          if (read.complete && read.token !== null && bytesOf(read.documents) <= maxBytes / 8) {
            indexScope(read.documents);
            held.set(key, { token: read.token, documents: read.documents });
          } else held.delete(key);
          return read;
        });
        const settled = () => inFlight.delete(flightKey);
        pending.then(settled, settled);
        inFlight.set(flightKey, pending);
      }
      const read = await pending;
      return read.complete ? read.documents : null;
    },
    get size() {
      return held.size;
    },
  };
}

export type ScopeCache = ReturnType<typeof createScopeCache>;
