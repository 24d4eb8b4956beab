// Step 2 of the context call: material relevant to this message from memories, transcript chunks
// and the channel, within the session's scopes, best first.

import { type RetrievedItem } from './core/assemble.js';
import { isoTime } from '../../shared/iso-time.js';
import type { LeftOutCandidate } from './core/left-out.js';

import type { SessionRow } from '../sessions/sessions.repository.js';

import { visibleMemoryScopes } from '../memory/core/visible-scopes.js';
import type { MemorySearchService, SearchResult } from '../memory/memory-search.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { ChunksRepository } from '../memory/chunks.repository.js';

import type { ContextRequest } from './context.types.js';

/**
 * Retrieval per call: enough candidates to fill the cap, bounded. Chat rows are short (LoCoMo
 * turns: ~30 tokens with their time and author), and candidates already in view are dropped in
 * assembly, so it asks for about one per 15 tokens of the cap: at 30 per token, an 8,000-token cap
 * stopped at about half (docs/benchmarks.md).
 */
const MIN_RETRIEVAL = 8;
const MAX_RETRIEVAL = 400;
const TOKENS_PER_RETRIEVED_ITEM = 15;

/** How many items to retrieve for a call whose retrieved material is capped at `cap` tokens. */
export function retrievalLimit(cap: number): number {
  return Math.min(MAX_RETRIEVAL, Math.max(MIN_RETRIEVAL, Math.floor(cap / TOKENS_PER_RETRIEVED_ITEM)));
}

/**
 * Retrieved tokens per call when the caller sets no `max_context_tokens`. Retrieved material is
 * sent after the turn's cache breakpoint, so every token of it is billed at the full input price
 * on every call (docs/cost-model.md), while a token of history in the cached prefix costs a tenth
 * on a warm call: a small block of what matches well is what the model can use; the caller's cap,
 * when given, is the room instead. Measured against recall and cost in docs/benchmarks.md
 * ("Sizing retrieval").
 */
const DEFAULT_RETRIEVAL_TOKENS = 1_500;

/**
 * Without a caller's cap a hit must be relevant enough to be worth its tokens: above a floor that
 * small talk matching small talk falls under, and at least a quarter as relevant as the best hit of
 * this search (the relevance is BM25 over the query's total term weight, damped by age: 1.0 is
 * every query term matched once). A question's evidence often shares one word of several with it:
 * at half the best, most of what a 24k window's payloads missed was left out here, while most of
 * what the retrieved block cost on chatty turns scored under 0.15 (docs/benchmarks.md, "Sizing
 * retrieval"). With a cap the caller asked for the room to be used, best first.
 */
const DEFAULT_RELEVANCE = { floor: 0.15, shareOfBest: 0.25 } as const;

/** The tokens retrieved material may take in this call. */
export function retrievalCap(maxContextTokens: number | undefined): number {
  return maxContextTokens ?? DEFAULT_RETRIEVAL_TOKENS;
}

/** The least score a hit needs, given the best hit's score (see DEFAULT_RELEVANCE). */
export function minRelevance(maxContextTokens: number | undefined, best: number): number {
  return maxContextTokens === undefined
    ? Math.max(DEFAULT_RELEVANCE.floor, DEFAULT_RELEVANCE.shareOfBest * best)
    : 0;
}

/**
 * Whether this message is searched, and what the reply says when it is not: a message
 * without searchable words (empty, punctuation, only stop words) retrieves nothing, and says so.
 * Tool-result turns and requests that turn retrieval off are silent.
 */
export function retrievalPlan(params: {
  userText: string;
  isToolResultTurn: boolean;
  include: NonNullable<ContextRequest['include']>;
  /** The query's lexemes (null when not looked up). */
  lexemes: string[] | null;
}): { searchable: boolean; note: string | null } {
  const { userText, isToolResultTurn, include, lexemes } = params;
  if (isToolResultTurn || (include.memories === false && include.channel_search === false))
    return { searchable: false, note: null };
  if (userText.trim() === '')
    return { searchable: false, note: 'Nothing was retrieved: the message has no text to search with.' };
  if (!lexemes || lexemes.length === 0)
    return {
      searchable: false,
      note: 'Nothing was retrieved: the message has no words to search with (only stop words or punctuation).',
    };
  return { searchable: true, note: null };
}

/**
 * The context call ranks without pseudo-relevance feedback (its second search pass would double
 * the retrieval cost of every call; neighbour expansion below already brings the adjacent turns)
 * and with the earlier BM25 k1 1.2, b 0.75: with search's 0.9 / 0.4, LoCoMo E1 at 8,000 tokens
 * fell from 93.4% to 92.9%, below its target (docs/benchmarks.md).
 */
const CONTEXT_RANKING = { feedback: null, bm25: { k1: 1.2, b: 0.75 } };

/**
 * Neighbour expansion (docs/benchmarks.md): the message just before and just after a
 * retrieved channel message in its lane, within NEIGHBOUR_WITHIN_MS, joins the candidates at
 * NEIGHBOUR_SHARE of the hit's score — the answer to a question is often the next turn, which
 * shares no word with the query. A transcript hit's adjacent exchanges join the same way
 * (withAdjacentExchanges).
 */
const NEIGHBOUR_SHARE = 0.5;
const NEIGHBOUR_WITHIN_MS = 30 * 60_000;
/** Messages read on each side of a hit; the d-th one scores NEIGHBOUR_SHARE^d of the hit. */
const NEIGHBOUR_SPAN = 2;
/** Hits whose neighbours are read (the best ones), of each kind. */
const NEIGHBOUR_HITS = 100;

const round = (n: number) => Math.round(n * 1e6) / 1e6;

interface RetrieveParams {
  session: SessionRow;
  laneKey: string;
  query: string;
  /** The query's lexemes (memorySearch.lexemes), when already known. */
  lexemes: string[] | null;
  /** The session's scope versions (ContextRepository.loadTurn), for the held scope copies. */
  scopeVersions?: Readonly<Record<string, number>>;
  now: Date;
  limit: number;
  /** The least score a hit needs given the best one's; lower ones are left out with their neighbours. */
  minScore: (best: number) => number;
  include: NonNullable<ContextRequest['include']>;
}

type Retrieved = { items: RetrievedItem[]; leftOut: LeftOutCandidate[] };

/**
 * Retrieval: the session's memories and, beside them, its transcript chunks and channel messages
 * (two searches at once), the relevant ones best first within the limit, then the channel hits'
 * neighbours.
 */
export function createRetriever(deps: {
  memorySearch: Pick<MemorySearchService, 'searchMemory'>;
  channels?: Pick<ChannelsService, 'neighbours'>;
  chunks?: Pick<ChunksRepository, 'adjacentChunks'>;
}) {
  /** Both searches, with the session's scopes and filters. */
  function search(params: RetrieveParams) {
    const { session, laneKey, query, lexemes, now, limit, include, scopeVersions } = params;
    const hasChannel = Boolean(session.platform && session.channelId);
    const otherSources = [
      ...(include.memories === false ? [] : ['transcript_chunks' as const]),
      ...(include.channel_search === false || !hasChannel ? [] : ['channel_messages' as const]),
    ];
    const common = {
      tenantId: session.tenantId,
      query,
      ...(lexemes ? { lexemes } : {}),
      ...(scopeVersions ? { scopeVersions } : {}),
      laneKey,
      now,
      ranking: CONTEXT_RANKING,
      snippets: false,
    };
    return Promise.all([
      include.memories === false
        ? null
        : deps.memorySearch.searchMemory({
            ...common,
            sources: ['memories'],
            filters: { scopes: visibleMemoryScopes(session) },
            // Over-fetch: this lane's own summary is dropped (relevantHits).
            maxResults: Math.min(MAX_RETRIEVAL, limit * 3),
          }),
      otherSources.length === 0
        ? null
        : deps.memorySearch.searchMemory({
            ...common,
            sources: otherSources,
            filters: {
              sessionKey: session.sessionKey,
              ...(hasChannel ? { platform: session.platform!, channelId: session.channelId! } : {}),
            },
            maxResults: limit,
          }),
    ]);
  }

  /** The channel hits' neighbours join the items at a share of their hit's score. */
  async function withNeighbours(session: SessionRow, items: RetrievedItem[]): Promise<RetrievedItem[]> {
    const hits = items.filter((i) => i.kind === 'channel_message').slice(0, NEIGHBOUR_HITS);
    if (!deps.channels || hits.length === 0) return items;
    const rows = await deps.channels.neighbours({
      tenantId: session.tenantId,
      platform: session.platform!,
      channelId: session.channelId!,
      ids: hits.map((h) => h.message_id!),
      withinMs: NEIGHBOUR_WITHIN_MS,
      span: NEIGHBOUR_SPAN,
    });
    const hitOf = new Map(hits.map((h) => [h.message_id!, h]));
    const byId = new Map(items.map((i) => [i.id, i]));
    for (const row of rows) {
      const id = `${session.platform!}:${session.channelId!}:${row.messageId}`;
      const score = round((hitOf.get(row.hitId)?.score ?? 0) * NEIGHBOUR_SHARE ** row.distance);
      const known = byId.get(id);
      if (known && known.score >= score) continue;
      byId.set(id, {
        id,
        kind: 'channel_message',
        source: 'channel',
        text: row.text,
        score,
        lane_key: row.laneKey,
        ts: isoTime(row.ts),
        author: row.authorName ?? row.authorId ?? null,
        message_id: row.messageId,
      });
    }
    return [...byId.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }

  /**
   * Conversational adjacency for the session's own transcript: a transcript hit is one exchange (a
   * user turn and its replies), and a question's evidence is often the exchange just before or just
   * after the one that shares its words. Those two join the candidates at NEIGHBOUR_SHARE of the
   * hit's score when that still passes the relevance rule (`least`): only hits twice as relevant as
   * the least bring their neighbours, so small talk brings none (docs/benchmarks.md, "Sizing
   * retrieval").
   */
  async function withAdjacentExchanges(
    session: SessionRow,
    items: RetrievedItem[],
    least: number,
  ): Promise<RetrievedItem[]> {
    const hits = items.filter((i) => i.kind === 'transcript' && i.score * NEIGHBOUR_SHARE >= least);
    if (!deps.chunks || hits.length === 0) return items;
    const rows = await deps.chunks.adjacentChunks({
      tenantId: session.tenantId,
      ids: hits.slice(0, NEIGHBOUR_HITS).map((h) => h.id),
    });
    const hitOf = new Map(hits.map((h) => [h.id, h]));
    const byId = new Map(items.map((i) => [i.id, i]));
    for (const row of rows) {
      const score = round((hitOf.get(row.hit_id)?.score ?? 0) * NEIGHBOUR_SHARE);
      const known = byId.get(row.id);
      if (known && known.score >= score) continue;
      byId.set(row.id, {
        id: row.id,
        text: row.text,
        score,
        lane_key: row.lane_key,
        ts: row.end_ts,
        kind: 'transcript',
        source: 'conversation',
        seq_range: [row.first_seq, row.last_seq],
      });
    }
    return [...byId.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }

  return async function retrieve(params: RetrieveParams): Promise<Retrieved> {
    const [memories, other] = await search(params);
    const { results, leftOut, least } = relevantHits(memories?.results ?? [], other?.results ?? [], params);
    // Each item written out whole (no spread of a shared base): this runs for every candidate.
    const items = results.map(retrievedItemOf);
    const adjacent = await withAdjacentExchanges(params.session, items, least);
    return { items: await withNeighbours(params.session, adjacent), leftOut };
  };
}

/**
 * What search found, minus this lane's own summary (already the payload's first message), the hits
 * under the relevance floor and those past the limit, best first; what it leaves out, and why
 * (core/left-out.ts: listed by the inspector).
 */
function relevantHits(
  memories: readonly SearchResult[],
  other: readonly SearchResult[],
  params: Pick<RetrieveParams, 'laneKey' | 'include' | 'limit' | 'minScore'>,
): { results: SearchResult[]; leftOut: LeftOutCandidate[]; least: number } {
  const { laneKey, include, limit } = params;
  const leftOut: LeftOutCandidate[] = [];
  const leave = (r: SearchResult, reason: LeftOutCandidate['reason']) =>
    leftOut.push({ kind: itemKind(r), id: r.id, score: r.score, text: r.text, reason });
  const visible = (r: SearchResult) => {
    if (r.kind !== 'memory' || r.source.type !== 'lane_summary') return true;
    if (include.lane_summaries !== false && r.lane_key !== laneKey) return true;
    leave(r, 'lane_summary');
    return false;
  };
  const found = [...memories.filter(visible), ...other];
  const least = params.minScore(found.reduce((best, r) => Math.max(best, r.score), 0));
  const relevant: SearchResult[] = [];
  for (const r of found) {
    if (r.score >= least) relevant.push(r);
    else leave(r, 'below_relevance');
  }
  const ranked = relevant.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  for (const r of ranked.slice(limit)) leave(r, 'over_limit');
  return { results: ranked.length > limit ? ranked.slice(0, limit) : ranked, leftOut, least };
}

/** A search hit as assembly takes it. */
function retrievedItemOf(r: SearchResult): RetrievedItem {
  if (r.kind === 'channel_message') {
    return {
      id: r.id,
      text: r.text,
      score: r.score,
      lane_key: r.lane_key,
      ts: r.time,
      kind: 'channel_message',
      source: 'channel',
      author: (r.source.author_name as string | null) ?? (r.source.author_id as string | null) ?? null,
      message_id: String(r.source.message_id),
    };
  }
  if (r.kind === 'transcript_chunk') {
    return {
      id: r.id,
      text: r.text,
      score: r.score,
      lane_key: r.lane_key,
      ts: r.time,
      kind: 'transcript',
      source: 'conversation',
      seq_range: [Number(r.source.first_seq), Number(r.source.last_seq)],
    };
  }
  return {
    id: r.id,
    text: r.text,
    score: r.score,
    lane_key: r.lane_key,
    ts: r.time,
    kind: 'memory',
    source: `memory:${String(r.source.type)}`,
  };
}

function itemKind(r: SearchResult): RetrievedItem['kind'] {
  return r.kind === 'channel_message'
    ? 'channel_message'
    : r.kind === 'transcript_chunk'
      ? 'transcript'
      : 'memory';
}
