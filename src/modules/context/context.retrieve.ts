// Step 2 of the context call: material relevant to this message from memories, transcript chunks
// and the channel, within the session's scopes, best first.

import { type RetrievedItem } from './core/assemble.js';

import type { SessionRow } from '../sessions/sessions.repository.js';

import type { MemoryScope } from '../memory/memories.repository.js';
import type { MemorySearchService, SearchResult } from '../memory/memory-search.service.js';

import type { ContextRequest } from './context.types.js';

/** Retrieval per call: enough to fill the cap, bounded. */
export const MIN_RETRIEVAL = 8;
export const MAX_RETRIEVAL = 100;
export const TOKENS_PER_RETRIEVED_ITEM = 30;

/** How many items to retrieve for a call whose added material is capped at `cap` (default 4,000). */
export function retrievalLimit(cap: number | undefined): number {
  return Math.min(
    MAX_RETRIEVAL,
    Math.max(MIN_RETRIEVAL, Math.floor((cap ?? 4000) / TOKENS_PER_RETRIEVED_ITEM)),
  );
}

/**
 * The memory scopes visible to a session (docs/design.md §4 memories.scope / scope_key). Searches
 * pass them as a filter, so the database reads only these scopes' memories.
 */
export function visibleMemoryScopes(session: SessionRow): { scope: MemoryScope; scopeKey: string }[] {
  return [
    { scope: 'tenant', scopeKey: '' },
    ...(session.platform && session.channelId
      ? [{ scope: 'channel' as const, scopeKey: `${session.platform}:${session.channelId}` }]
      : []),
    ...(session.platform && session.userId
      ? [{ scope: 'user' as const, scopeKey: `${session.platform}:${session.userId}` }]
      : []),
    { scope: 'session', scopeKey: session.sessionKey },
  ];
}

export function createRetriever(deps: { memorySearch: Pick<MemorySearchService, 'searchMemory'> }) {
  return async function retrieve(params: {
    session: SessionRow;
    laneKey: string;
    query: string;
    /** The query's lexemes (memorySearch.lexemes), when already known. */
    lexemes: string[] | null;
    now: Date;
    limit: number;
    include: NonNullable<ContextRequest['include']>;
  }): Promise<RetrievedItem[]> {
    const { session, laneKey, query, lexemes, now, limit, include } = params;
    const scopes = visibleMemoryScopes(session);
    const hasChannel = Boolean(session.platform && session.channelId);
    const otherSources = [
      ...(include.memories === false ? [] : ['transcript_chunks' as const]),
      ...(include.channel_search === false || !hasChannel ? [] : ['channel_messages' as const]),
    ];
    const [memories, other] = await Promise.all([
      include.memories === false
        ? null
        : deps.memorySearch.searchMemory({
            tenantId: session.tenantId,
            query,
            ...(lexemes ? { lexemes } : {}),
            sources: ['memories'],
            filters: { scopes },
            laneKey,
            now,
            // Over-fetch: this lane's own summary is dropped below.
            maxResults: Math.min(MAX_RETRIEVAL, limit * 3),
          }),
      otherSources.length === 0
        ? null
        : deps.memorySearch.searchMemory({
            tenantId: session.tenantId,
            query,
            ...(lexemes ? { lexemes } : {}),
            sources: otherSources,
            filters: {
              sessionKey: session.sessionKey,
              ...(hasChannel ? { platform: session.platform!, channelId: session.channelId! } : {}),
            },
            laneKey,
            now,
            maxResults: limit,
          }),
    ]);
    const visible = (r: SearchResult) => {
      if (r.kind !== 'memory' || r.source.type !== 'lane_summary') return true;
      // This lane's own summary is already the payload's first message.
      return include.lane_summaries !== false && r.lane_key !== laneKey;
    };
    const results = [...(memories?.results ?? []).filter(visible), ...(other?.results ?? [])]
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
    return results.map((r): RetrievedItem => {
      const base = { id: r.id, text: r.text, score: r.score, lane_key: r.lane_key, ts: r.time };
      if (r.kind === 'channel_message') {
        return {
          ...base,
          kind: 'channel_message',
          source: 'channel',
          author: (r.source.author_name as string | null) ?? (r.source.author_id as string | null) ?? null,
          message_id: String(r.source.message_id),
        };
      }
      if (r.kind === 'transcript_chunk') {
        return {
          ...base,
          kind: 'transcript',
          source: 'conversation',
          seq_range: [Number(r.source.first_seq), Number(r.source.last_seq)],
        };
      }
      return { ...base, kind: 'memory', source: `memory:${String(r.source.type)}` };
    });
  };
}
