// When a read needs history from the platform, and what it says when it could not get it. Pure:
// the decisions are made over stored state (the rows a read loaded and the backfill mark).
import { PLATFORM_REPLY_COUNT } from '../../../platforms/history.js';
import type { MessageState } from './ingest-apply.js';

/** The snapshot's window before the anchor is not full and the channel was never backfilled. */
export function channelIsCold(input: { storedBefore: number; wanted: number }): boolean {
  return input.storedBefore < input.wanted;
}

/**
 * A thread is cold when its root is not stored (or only as a placeholder a reply made), or when
 * the platform said it has more replies than are stored (a root that came from a history page).
 * A thread that events built from its start has neither: steady state makes no call.
 */
export function threadIsCold(input: { root: MessageState | null; storedReplies: number }): boolean {
  const { root } = input;
  if (!root || root.isPlaceholder) return true;
  const platformCount = root.metadata[PLATFORM_REPLY_COUNT];
  return typeof platformCount === 'number' && platformCount > input.storedReplies;
}

export type BackfillFailure =
  { kind: 'rate_limited'; retryAfterMs: number } | { kind: 'busy' } | { kind: 'failed'; reason: string };

/**
 * What went wrong, from the error the platform client threw (PlatformApiError): a refusal of
 * the rate limiter or a platform 429 (`rate_limited`) carries its delay; anything else its
 * message (the client never puts the token in one).
 */
export function backfillFailure(error: unknown): BackfillFailure {
  const typed = error as { kind?: unknown; details?: { retryAfterMs?: unknown } } | null;
  if (typed?.kind === 'rate_limited') {
    const retryAfterMs = typed.details?.retryAfterMs;
    return { kind: 'rate_limited', retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : 1000 };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'failed', reason: message.slice(0, 200) };
}

export function staleNote(platform: string, what: 'channel' | 'thread', failure: BackfillFailure): string {
  const why =
    failure.kind === 'rate_limited'
      ? `rate limited; retry in ${Math.max(1, Math.ceil(failure.retryAfterMs / 1000))} s`
      : failure.kind === 'busy'
        ? 'another backfill of it is still running'
        : failure.reason;
  const subject = what === 'channel' ? 'Channel history' : 'Thread history';
  return `${subject} could not be fetched from ${platform} (${why}); the ${what} context shown may be stale.`;
}
