// Channel search ranking (`channel_context`, docs/design.md §6.7): intent → terms, then a score from text
// relevance, term coverage, recency, thread activity, reactions and an author boost. Pure and
// deterministic: "now" is passed in (the anchor's time in assembly).
import type { MessageState } from './ingest-apply.js';

/** English function words and chat filler that carry no search signal. */
const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both
  but by can could did do does doing down during each few for from further had has have having he her here hers
  herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off
  on once only or other our ours ourselves out over own same she should so some such than that the their theirs
  them themselves then there these they this those through to too under until up very was we were what when where
  which while who whom why will with would you your yours yourself yourselves anyone anything someone something
  discussed discussion said say says tell know find look looking context channel message messages thread threads
  talk talked talking mentioned mention about regarding re please thanks hi hey ok okay yes yeah also get got`
    .split(/\s+/)
    .filter(Boolean),
);

export const MAX_SEARCH_TERMS = 8;

/**
 * Search terms of an intent: words (any script) lowercased, stopwords and one-letter words
 * dropped, first occurrence order, at most MAX_SEARCH_TERMS.
 */
export function intentTerms(intent: string): string[] {
  const words =
    intent
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{N}_'.-]*/gu) ?? [];
  const out: string[] = [];
  for (const raw of words) {
    const word = raw.replace(/[.'-]+$/u, '');
    const isCjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(word);
    if ((!isCjk && word.length < 2) || STOPWORDS.has(word) || out.includes(word)) continue;
    out.push(word);
    if (out.length === MAX_SEARCH_TERMS) break;
  }
  return out;
}

export interface RankCandidate extends Pick<
  MessageState,
  'messageId' | 'ts' | 'authorId' | 'authorName' | 'replyCount' | 'reactions'
> {
  /** ts_rank_cd of the message against the whole query (0 when unmatched). */
  textRank: number;
  /** Per term: did the message match it. */
  matchedTerms: boolean[];
}

interface RankOptions {
  terms: string[];
  /** Authors to boost: user ids or display names (case-insensitive). */
  authors?: string[];
  now: number;
  maxResults: number;
  /** Recency half-life. */
  halfLifeMs?: number;
}

interface RankedResult<T> {
  candidate: T;
  score: number;
  relevance_signal: string;
}

/** Coverage (share of the intent's terms matched) leads, as a soft AND; text rank orders within it. */
const SEARCH_WEIGHTS = {
  coverage: 0.4,
  text: 0.25,
  recency: 0.15,
  thread: 0.1,
  reactions: 0.05,
  author: 0.15,
};
const DEFAULT_HALF_LIFE_MS = 7 * 24 * 3_600_000;

const reactionTotal = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

export function rankSearchCandidates<T extends RankCandidate>(
  candidates: T[],
  options: RankOptions,
): RankedResult<T>[] {
  const halfLife = options.halfLifeMs ?? DEFAULT_HALF_LIFE_MS;
  const authors = new Set((options.authors ?? []).map((a) => a.toLowerCase()));
  const maxRank = Math.max(0, ...candidates.map((c) => c.textRank));
  const maxReplies = Math.max(0, ...candidates.map((c) => c.replyCount));
  const maxReactions = Math.max(0, ...candidates.map((c) => reactionTotal(c.reactions)));
  const termCount = Math.max(1, options.terms.length);
  const scored = candidates.map((c) => {
    const matched = options.terms.filter((_, i) => c.matchedTerms[i]);
    const text = maxRank > 0 ? c.textRank / maxRank : 0;
    const coverage = matched.length / termCount;
    const age = Math.max(0, options.now - c.ts);
    const recency = Math.pow(0.5, age / halfLife);
    const thread = maxReplies > 0 ? Math.log1p(c.replyCount) / Math.log1p(maxReplies) : 0;
    const reactions =
      maxReactions > 0 ? Math.log1p(reactionTotal(c.reactions)) / Math.log1p(maxReactions) : 0;
    const byAuthor =
      authors.size > 0 &&
      ((c.authorId !== null && authors.has(c.authorId.toLowerCase())) ||
        (c.authorName !== null && authors.has(c.authorName.toLowerCase())));
    const w = SEARCH_WEIGHTS;
    const score =
      w.text * text +
      w.coverage * coverage +
      w.recency * recency +
      w.thread * thread +
      w.reactions * reactions +
      (byAuthor ? w.author : 0);
    const signals: string[] = [];
    if (matched.length > 0) signals.push(`keyword:${matched.join('+')}`);
    if (byAuthor) signals.push(`author:${c.authorName ?? c.authorId}`);
    if (c.replyCount > 0 && thread >= 0.5) signals.push('thread_activity');
    if (signals.length === 0) signals.push('recent_activity');
    return { candidate: c, score: Math.round(score * 1e6) / 1e6, relevance_signal: signals.join(', ') };
  });
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      b.candidate.ts - a.candidate.ts ||
      (a.candidate.messageId < b.candidate.messageId
        ? -1
        : a.candidate.messageId > b.candidate.messageId
          ? 1
          : 0),
  );
  return scored.slice(0, Math.max(0, options.maxResults));
}
