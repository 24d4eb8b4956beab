// The platform adapters by name. Any adapter failure on a strange payload becomes `ignored`, and
// every produced event is checked against the normalized schema, so raw input never reaches a 500.
import { channelEventSchema, type ChannelEvent } from '../shared/channel-events.js';
import { discordDispatchToEvents } from './discord.js';
import { slackEnvelopeToEvents } from './slack.js';
import { telegramUpdateToEvents } from './telegram.js';
import type { AdapterContext, AdapterResult } from './types.js';

export const supportedPlatforms = ['slack', 'telegram', 'discord'] as const;
export type SupportedPlatform = (typeof supportedPlatforms)[number];

const adapters: Record<SupportedPlatform, (payload: unknown, context: AdapterContext) => AdapterResult> = {
  slack: (payload) => slackEnvelopeToEvents(payload),
  telegram: (payload) => telegramUpdateToEvents(payload),
  discord: discordDispatchToEvents,
};

interface AdaptedPayload {
  result: AdapterResult;
  /** Events the adapter produced that failed the normalized schema, with why. */
  rejected: { reason: string }[];
}

export function adaptPlatformPayload(
  platform: SupportedPlatform,
  payload: unknown,
  context: AdapterContext,
): AdaptedPayload {
  let result: AdapterResult;
  try {
    result = adapters[platform](payload, context);
  } catch (error) {
    return {
      result: { kind: 'ignored', reason: `unreadable ${platform} payload: ${(error as Error).message}` },
      rejected: [],
    };
  }
  if (result.kind !== 'events') return { result, rejected: [] };
  const events: ChannelEvent[] = [];
  const rejected: { reason: string }[] = [];
  for (const event of result.events) {
    const parsed = channelEventSchema.safeParse(event);
    if (parsed.success) events.push(parsed.data);
    else {
      const issue = parsed.error.issues[0];
      rejected.push({ reason: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` });
    }
  }
  if (events.length === 0) {
    return {
      result: { kind: 'ignored', reason: rejected[0]?.reason ?? `${platform} payload produced no events` },
      rejected,
    };
  }
  return { result: { kind: 'events', events }, rejected };
}
