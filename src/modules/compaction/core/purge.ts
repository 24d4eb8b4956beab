// Deleted channel messages whose text is still in a lane's sent history (docs/compaction.md,
// "Edits and deletes"): the cut that leaves every entry holding such a text out of the verbatim
// view, and the summarizer's input with those texts scrubbed.
import type { LaneEntry } from './types.js';
import { asBlocks, toolResultIds, toolUseIds } from '../../sessions/core/history-view.js';
import { needlesOf, scrubValue } from '../../../shared/scrub-texts.js';

export {
  DELETED_MARKER,
  PURGE_MIN_NEEDLE_CHARS,
  PURGE_NEEDLE_CHARS,
  purgeNeedle,
  scrubText,
} from '../../../shared/scrub-texts.js';

const holds = (entry: LaneEntry, needles: readonly string[]) => {
  const text = JSON.stringify(entry.content);
  return needles.some((n) => text.includes(JSON.stringify(n).slice(1, -1)));
};

/** The entries with every deleted text (and its snippet prefix) replaced by a marker. */
export function scrubEntries(entries: readonly LaneEntry[], texts: readonly string[]): LaneEntry[] {
  const needles = needlesOf(texts);
  if (needles.length === 0) return [...entries];
  return entries.map((e) => (holds(e, needles) ? { ...e, content: scrubValue(e.content, needles) } : e));
}

/**
 * The first seq the verbatim view may keep so that no kept entry holds a deleted text: just after
 * the last entry holding one, moved forward past tool results whose call would be cut off.
 * `fallback` when no entry holds one.
 */
export function purgeCut(entries: readonly LaneEntry[], texts: readonly string[], fallback: number): number {
  const needles = needlesOf(texts);
  const turns = [...entries].sort((a, b) => a.seq - b.seq);
  let last = -1;
  turns.forEach((e, i) => {
    if (needles.length > 0 && holds(e, needles)) last = i;
  });
  if (last < 0) return fallback;
  let start = last + 1;
  // A kept tool_result needs its tool_use kept: skip results answering calls left behind.
  const cutUses = new Set(turns.slice(0, start).flatMap((e) => toolUseIds(asBlocks(e.content))));
  while (
    start < turns.length &&
    toolResultIds(asBlocks(turns[start]!.content)).some((id) => cutUses.has(id))
  ) {
    for (const id of toolUseIds(asBlocks(turns[start]!.content))) cutUses.add(id);
    start += 1;
  }
  const next = turns[start];
  return Math.max(fallback, next ? next.seq : turns[turns.length - 1]!.seq + 1);
}
