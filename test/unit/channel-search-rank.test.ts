// Channel search ranking: terms from an intent, and the ordering signals.
import { describe, expect, it } from 'vitest';
import {
  intentTerms,
  MAX_SEARCH_TERMS,
  rankSearchCandidates,
  type RankCandidate,
} from '../../src/modules/channels/core/channel-search-rank.js';

const NOW = Date.UTC(2026, 0, 10);
const DAY = 86_400_000;
const c = (id: string, extra: Partial<RankCandidate> = {}): RankCandidate => ({
  messageId: id,
  ts: NOW - DAY,
  authorId: 'U1',
  authorName: 'Ana',
  replyCount: 0,
  reactions: {},
  textRank: 0.1,
  matchedTerms: [true],
  ...extra,
});

describe('intentTerms', () => {
  it('drops stopwords, short words and repeats; keeps any script', () => {
    expect(intentTerms('What did we decide about the rollout of the Rollout plan?')).toEqual([
      'decide',
      'rollout',
      'plan',
    ]);
    expect(intentTerms('déploiement 部署 v2.3 ключ')).toEqual(['déploiement', '部署', 'v2.3', 'ключ']);
    expect(intentTerms('')).toEqual([]);
    expect(intentTerms("'; drop table channel_messages; --")).toEqual(['drop', 'table', 'channel_messages']);
  });

  it('keeps at most MAX_SEARCH_TERMS', () => {
    expect(intentTerms('alpha bravo charlie delta echo foxtrot golf hotel india juliet')).toHaveLength(
      MAX_SEARCH_TERMS,
    );
  });
});

describe('rankSearchCandidates', () => {
  const options = { terms: ['rollout', 'plan'], now: NOW, maxResults: 8 };

  it('ranks by text relevance and term coverage first', () => {
    const ranked = rankSearchCandidates(
      [
        c('weak', { textRank: 0.1, matchedTerms: [true, false] }),
        c('strong', { textRank: 0.5, matchedTerms: [true, true] }),
      ],
      options,
    );
    expect(ranked.map((r) => r.candidate.messageId)).toEqual(['strong', 'weak']);
    expect(ranked[0]!.relevance_signal).toBe('keyword:rollout+plan');
    expect(ranked[1]!.relevance_signal).toBe('keyword:rollout');
  });

  it('breaks equal relevance by recency, thread activity and reactions', () => {
    expect(
      rankSearchCandidates([c('old', { ts: NOW - 30 * DAY }), c('new')], options)[0]!.candidate.messageId,
    ).toBe('new');
    const busy = rankSearchCandidates([c('quiet'), c('busy', { replyCount: 12 })], options);
    expect(busy[0]!.candidate.messageId).toBe('busy');
    expect(busy[0]!.relevance_signal).toContain('thread_activity');
    expect(
      rankSearchCandidates([c('plain'), c('liked', { reactions: { tada: 4 } })], options)[0]!.candidate
        .messageId,
    ).toBe('liked');
  });

  it('boosts named authors by id or display name, case-insensitively', () => {
    const ranked = rankSearchCandidates(
      [c('ana'), c('sam', { authorId: 'U2', authorName: 'Sam', ts: NOW - 3 * DAY })],
      {
        ...options,
        authors: ['sam'],
      },
    );
    expect(ranked[0]!.candidate.messageId).toBe('sam');
    expect(ranked[0]!.relevance_signal).toContain('author:Sam');
  });

  it('is deterministic on ties and respects max_results', () => {
    const many = Array.from({ length: 20 }, (_, i) => c(`m${String(i).padStart(2, '0')}`));
    const a = rankSearchCandidates(many, { ...options, maxResults: 5 });
    const b = rankSearchCandidates([...many].reverse(), { ...options, maxResults: 5 });
    expect(a.map((r) => r.candidate.messageId)).toEqual(b.map((r) => r.candidate.messageId));
    expect(a).toHaveLength(5);
    expect(rankSearchCandidates([], options)).toEqual([]);
  });

  it('labels candidates without matched terms as recent activity', () => {
    expect(
      rankSearchCandidates([c('x', { matchedTerms: [], textRank: 0 })], { ...options, terms: [] })[0]!
        .relevance_signal,
    ).toBe('recent_activity');
  });
});
