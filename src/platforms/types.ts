// What a platform adapter returns: normalized events, a Slack URL-verification challenge, or an
// explanation of why the payload carries nothing to ingest. Adapters are pure functions.
import type { ChannelEvent } from '../shared/channel-events.js';

export type AdapterResult =
  | { kind: 'events'; events: ChannelEvent[] }
  | { kind: 'challenge'; challenge: string }
  | { kind: 'ignored'; reason: string };

export interface AdapterContext {
  /** When the payload was received: the time of events that carry none (Discord deletes). */
  receivedAt: Date;
}

export const ignored = (reason: string): AdapterResult => ({ kind: 'ignored', reason });

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;

export const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

export const iso = (epochMs: number) => new Date(epochMs).toISOString();
