// Context notes for the model (docs/design.md §6.6 step 4): usage over 80%, a memory-flush hint the
// first turn usage crosses 50%, 75% or 90% of the effective window, and context recovery.

const USAGE_NOTE_SHARE = 0.8;
const MEMORY_FLUSH_SHARES = [0.5, 0.75, 0.9] as const;

/** `canCompact`: compact_context is in this payload's tools (else the note does not offer it). */
export function usageNote(percentage: number, canCompact = true): string | null {
  if (percentage < USAGE_NOTE_SHARE) return null;
  const shown = Math.min(100, Math.floor(percentage * 100));
  return canCompact
    ? `[Context: ${shown}% used. You can call compact_context to free space before continuing with large operations.]`
    : `[Context: ${shown}% used.]`;
}

/**
 * The highest flush threshold crossed between the previous call and this one (null when none was
 * crossed, so the hint appears once per threshold, not on every turn).
 */
function crossedFlushThreshold(previous: number | null, current: number): number | null {
  let crossed: number | null = null;
  for (const share of MEMORY_FLUSH_SHARES) {
    if ((previous ?? 0) < share && current >= share) crossed = share;
  }
  return crossed;
}

export function memoryFlushNote(previous: number | null, current: number): string | null {
  const share = crossedFlushThreshold(previous, current);
  if (share === null) return null;
  return (
    `[Context: passed ${Math.round(share * 100)}% of the window. Older turns will be summarized soon: ` +
    `state any decisions, facts or preferences that must outlive this conversation explicitly in your reply.]`
  );
}

/**
 * Said when this turn re-attaches channel context because the turn that carried it was left out
 * to fit the budget (docs/design.md §6.9's post-compaction recovery note, for truncation). Null when
 * nothing was re-attached.
 */
export function truncationRecoveryNote(parts: {
  snapshot: boolean;
  thread: boolean;
  media: number;
}): string | null {
  const what = [
    ...(parts.snapshot ? ['the channel snapshot'] : []),
    ...(parts.thread ? ['the thread context'] : []),
    ...(parts.media > 0 ? [`${parts.media} media item${parts.media === 1 ? '' : 's'} from this thread`] : []),
  ];
  if (what.length === 0) return null;
  const list = what.length === 1 ? what[0]! : `${what.slice(0, -1).join(', ')} and ${what.at(-1)!}`;
  return `[Context recovery after truncation: the turn that carried the channel context was left out to fit the budget; re-attaching ${list}.]`;
}

/** Told once after a compaction, when the thread's media leave the kept history (docs/compaction.md). */
export function compactionRecoveryNote(media: number): string | null {
  if (media === 0) return null;
  return `[Post-compaction context recovery: re-attaching ${media} media item${media === 1 ? '' : 's'} from this thread]`;
}
