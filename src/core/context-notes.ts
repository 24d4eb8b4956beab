// Context notes for the model (DESIGN §6.6 step 4): usage over 80%, and a memory-flush hint the
// first turn usage crosses 50%, 75% or 90% of the effective window.

export const USAGE_NOTE_SHARE = 0.8;
export const MEMORY_FLUSH_SHARES = [0.5, 0.75, 0.9] as const;

export function usageNote(percentage: number): string | null {
  if (percentage < USAGE_NOTE_SHARE) return null;
  const shown = Math.min(100, Math.floor(percentage * 100));
  return `[Context: ${shown}% used. You can call compact_context to free space before continuing with large operations.]`;
}

/**
 * The highest flush threshold crossed between the previous call and this one (null when none was
 * crossed, so the hint appears once per threshold, not on every turn).
 */
export function crossedFlushThreshold(previous: number | null, current: number): number | null {
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
