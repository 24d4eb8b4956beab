// Retrieval candidates that did not go into the payload, and why: what the inspector shows to answer
// "was X in the payload, and if not, why". Search leaves some out (relevance, the candidate limit,
// lane summaries); assembly the rest (another lane, shown elsewhere, in view, no room). The list is
// bounded (best first) with a count per reason over all of them, so a call's log row stays small.

import type { RetrievedItem } from './assemble.types.js';

export const leftOutReasons = [
  'below_relevance',
  'over_limit',
  'lane_summary',
  'other_lane',
  'already_shown',
  'in_view',
  'did_not_fit',
] as const;
type LeftOutReason = (typeof leftOutReasons)[number];

/** What each reason means (the reply's schema and the inspector say it in these words). */
export const LEFT_OUT_REASON_TEXT: Record<LeftOutReason, string> = {
  below_relevance:
    'scored under the relevance floor (without max_context_tokens: at least a quarter of the best hit and 0.15)',
  over_limit: 'ranked past the number of candidates retrieval keeps for its token cap',
  lane_summary:
    "a lane summary: this lane's own is the payload's summary block (or include.lane_summaries is false)",
  other_lane: 'from another lane and scored under the other-lane minimum (0.8)',
  already_shown: 'its message is the anchor, the quoted reply, or in the snapshot or thread attached',
  in_view: 'the history this payload sends already holds it',
  did_not_fit:
    'did not fit the room left for retrieved material (max_context_tokens, the default cap, or the window)',
};

/** Items listed at most per call (the counts cover all), and characters of each one's text kept. */
export const MAX_LEFT_OUT_ITEMS = 30;
const LEFT_OUT_EXCERPT_CHARS = 240;

interface LeftOutItem {
  kind: RetrievedItem['kind'];
  id: string;
  score: number;
  reason: LeftOutReason;
  /** The row's tokens as it would have been sent (did_not_fit only). */
  tokens?: number;
  /** The start of its text. */
  excerpt: string;
}

export interface LeftOut {
  /** Candidates left out, by reason (every one of them). */
  counts: Partial<Record<LeftOutReason, number>>;
  /** The best-scored of them, at most MAX_LEFT_OUT_ITEMS. */
  items: LeftOutItem[];
}

/** A candidate search left out, before it is listed (its text cut only when listed). */
export interface LeftOutCandidate {
  kind: RetrievedItem['kind'];
  id: string;
  score: number;
  text: string;
  reason: LeftOutReason;
  tokens?: number;
}

/** The bounded report over every candidate left out. */
export function leftOutReport(candidates: readonly LeftOutCandidate[]): LeftOut {
  if (candidates.length === 0) return { counts: {}, items: [] };
  const counts: Partial<Record<LeftOutReason, number>> = {};
  for (const c of candidates) counts[c.reason] = (counts[c.reason] ?? 0) + 1;
  const best = [...candidates]
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, MAX_LEFT_OUT_ITEMS);
  return {
    counts,
    items: best.map((c) => ({
      kind: c.kind,
      id: c.id,
      score: c.score,
      reason: c.reason,
      ...(c.tokens !== undefined ? { tokens: c.tokens } : {}),
      excerpt:
        c.text.length > LEFT_OUT_EXCERPT_CHARS ? `${c.text.slice(0, LEFT_OUT_EXCERPT_CHARS)}…` : c.text,
    })),
  };
}

/**
 * Assembly's part: each retrieved item that is not in the payload, with the step that left it out.
 * `eligible`: past the lane and shown-elsewhere filters; `candidates`: also outside the history in
 * view; `used`: packed into the block. `sizes[i]` is candidates[i]'s row size.
 */
export function assemblyLeftOut(params: {
  retrieved: readonly RetrievedItem[];
  laneKey: string;
  otherLaneMinScore: number;
  eligible: readonly RetrievedItem[];
  candidates: readonly RetrievedItem[];
  sizes: readonly number[];
  usedIds: readonly string[];
}): LeftOutCandidate[] {
  const { retrieved } = params;
  if (retrieved.length === params.usedIds.length) return [];
  const eligible = new Set(params.eligible);
  const candidate = new Map(params.candidates.map((c, i) => [c, params.sizes[i]!]));
  const used = new Set(params.usedIds);
  const out: LeftOutCandidate[] = [];
  for (const item of retrieved) {
    if (used.has(item.id)) continue;
    const base = { kind: item.kind, id: item.id, score: item.score, text: item.text };
    if (!eligible.has(item)) {
      const otherLane =
        Boolean(item.lane_key) && item.lane_key !== params.laneKey && item.score < params.otherLaneMinScore;
      out.push({ ...base, reason: otherLane ? 'other_lane' : 'already_shown' });
    } else if (!candidate.has(item)) {
      out.push({ ...base, reason: 'in_view' });
    } else {
      out.push({ ...base, reason: 'did_not_fit', tokens: candidate.get(item)! });
    }
  }
  return out;
}
