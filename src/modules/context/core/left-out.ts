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

/** Whether `a` is listed before `b`: the better score, then (scores not ordered) the smaller id. */
function listedBefore(a: LeftOutCandidate, b: LeftOutCandidate): boolean {
  const d = b.score - a.score;
  return d < 0 || (!(d > 0) && a.id < b.id);
}

/**
 * The bounded report over every candidate left out: the counts over all, and the best-scored
 * MAX_LEFT_OUT_ITEMS (ties by id, then in the order given) with their texts cut. The best are kept
 * by insertion into a short sorted list, not a sort of every candidate (a call leaves out hundreds).
 */
export function leftOutReport(...lists: readonly (readonly LeftOutCandidate[])[]): LeftOut {
  const counts: Partial<Record<LeftOutReason, number>> = {};
  const best: LeftOutCandidate[] = [];
  for (const list of lists) {
    for (const c of list) {
      counts[c.reason] = (counts[c.reason] ?? 0) + 1;
      if (best.length === MAX_LEFT_OUT_ITEMS && !listedBefore(c, best[best.length - 1]!)) continue;
      // After every one it does not go before: equal candidates keep the order given.
      let at = best.length;
      while (at > 0 && listedBefore(c, best[at - 1]!)) at -= 1;
      if (best.length === MAX_LEFT_OUT_ITEMS) best.pop();
      best.splice(at, 0, c);
    }
  }
  return { counts, items: best.map(listedItem) };
}

function listedItem(c: LeftOutCandidate): LeftOutItem {
  return {
    kind: c.kind,
    id: c.id,
    score: c.score,
    reason: c.reason,
    ...(c.tokens !== undefined ? { tokens: c.tokens } : {}),
    excerpt: c.text.length > LEFT_OUT_EXCERPT_CHARS ? `${c.text.slice(0, LEFT_OUT_EXCERPT_CHARS)}…` : c.text,
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
  const { retrieved, laneKey, otherLaneMinScore } = params;
  if (retrieved.length === params.usedIds.length) return [];
  const eligible = new Set(params.eligible);
  const candidate = new Map<RetrievedItem, number>();
  params.candidates.forEach((c, i) => candidate.set(c, params.sizes[i]!));
  const used = new Set(params.usedIds);
  const out: LeftOutCandidate[] = [];
  for (const item of retrieved) {
    if (used.has(item.id)) continue;
    let reason: LeftOutReason;
    let tokens: number | undefined;
    if (!eligible.has(item)) {
      const otherLane = Boolean(item.lane_key) && item.lane_key !== laneKey && item.score < otherLaneMinScore;
      reason = otherLane ? 'other_lane' : 'already_shown';
    } else if (!candidate.has(item)) {
      reason = 'in_view';
    } else {
      reason = 'did_not_fit';
      tokens = candidate.get(item)!;
    }
    const c: LeftOutCandidate = { kind: item.kind, id: item.id, score: item.score, text: item.text, reason };
    if (tokens !== undefined) c.tokens = tokens;
    out.push(c);
  }
  return out;
}
