// Channel search for the `channel_context` tool (docs/design.md §6.7): full-text candidates from Postgres
// (capped, newest first, so latency stays bounded however common a term is), ranked in
// core/channel-search-rank with recency, thread activity, reactions and the author boost.
import { intentTerms, rankSearchCandidates } from './core/channel-search-rank.js';
import { authorOf, isoTime, threadIdOf, type Author } from './core/snapshot.js';
import { takeGraphemes, ELLIPSIS } from '../../shared/text-cut.js';
import type { Clock } from '../../shared/clock.js';
import type { ChannelScope, ChannelsRepository, SearchCandidate } from './channels.repository.js';

const DEFAULT_MAX_RESULTS = 8;
const MAX_MAX_RESULTS = 50;
/** Ranking candidates per query: the newest matches only. */
const SEARCH_CANDIDATE_CAP = 400;
/** Result text is cut here; channel_messages returns the full message. */
const RESULT_TEXT_CHARS = 1000;
const PARTICIPANTS_PER_THREAD = 8;

interface ChannelSearchResult {
  message_id: string;
  thread_id: string | null;
  ts: string;
  author: Author;
  text: string;
  is_truncated: boolean;
  thread_summary: { reply_count: number; last_reply_ts: string | null; participant_names: string[] } | null;
  relevance_signal: string;
  score: number;
}

interface ChannelSearchOutput {
  terms: string[];
  results: ChannelSearchResult[];
  coverage: { messages_scanned: number; time_range: [string, string] | null };
}

interface ChannelSearchParams extends ChannelScope {
  intent: string;
  since?: Date;
  authors?: string[];
  maxResults?: number;
  /** Restrict to one lane (assembly's retrieval inside the session's lane). */
  laneKey?: string;
  /** Reference time for recency; assembly passes the anchor's time. Defaults to the clock. */
  now?: Date;
}

export function createChannelSearchService(deps: { channels: ChannelsRepository; clock: Clock }) {
  const { channels, clock } = deps;
  return {
    async searchChannel(params: ChannelSearchParams): Promise<ChannelSearchOutput> {
      const terms = intentTerms(params.intent);
      const maxResults = Math.min(Math.max(1, params.maxResults ?? DEFAULT_MAX_RESULTS), MAX_MAX_RESULTS);
      const filters = {
        tenantId: params.tenantId,
        platform: params.platform,
        channelId: params.channelId,
        ...(params.since ? { since: params.since.getTime() } : {}),
        ...(params.laneKey ? { laneKey: params.laneKey } : {}),
        limit: SEARCH_CANDIDATE_CAP,
      };
      const candidates: SearchCandidate[] =
        terms.length > 0
          ? await channels.searchCandidates({ ...filters, terms })
          : await channels.recentCandidates(filters);
      const ranked = rankSearchCandidates(candidates, {
        terms,
        ...(params.authors ? { authors: params.authors } : {}),
        now: (params.now ?? clock.now()).getTime(),
        maxResults,
      });
      const scope = { tenantId: params.tenantId, platform: params.platform, channelId: params.channelId };
      const roots = ranked.filter((r) => r.candidate.replyCount > 0).map((r) => r.candidate.messageId);
      const [participants, rows] = await Promise.all([
        channels.threadParticipants({ ...scope, rootIds: roots, perThread: PARTICIPANTS_PER_THREAD }),
        channels.getMessages({ ...scope, ids: ranked.map((r) => r.candidate.messageId) }),
      ]);
      const full = new Map(rows.map((row) => [row.messageId, row]));
      const times = candidates.map((c) => c.ts);
      return {
        terms,
        // A winner deleted between the two reads is dropped.
        results: ranked.flatMap(({ candidate, score, relevance_signal }) => {
          const c = full.get(candidate.messageId);
          if (!c || c.deletedAt !== null) return [];
          const { head, cut } = takeGraphemes(c.text, RESULT_TEXT_CHARS);
          return {
            message_id: c.messageId,
            thread_id: threadIdOf(c),
            ts: isoTime(c.ts),
            author: authorOf(c),
            text: cut ? head + ELLIPSIS : head,
            is_truncated: cut,
            thread_summary:
              c.replyCount > 0
                ? {
                    reply_count: c.replyCount,
                    last_reply_ts: c.lastReplyTs === null ? null : isoTime(c.lastReplyTs),
                    participant_names: participants.get(c.messageId) ?? [],
                  }
                : null,
            relevance_signal,
            score,
          };
        }),
        coverage: {
          messages_scanned: candidates.length,
          time_range: times.length > 0 ? [isoTime(Math.min(...times)), isoTime(Math.max(...times))] : null,
        },
      };
    },
  };
}

export type ChannelSearchService = ReturnType<typeof createChannelSearchService>;
