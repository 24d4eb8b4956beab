// Session keys (docs/design.md §6.1) and freshness: which session a turn belongs to, and when it is stale.
import { badRequest } from '../../../shared/errors.js';
import { rootLane } from '../../channels/core/lanes.js';

export interface SessionKeyParts {
  agentId: string;
  platform: string;
  chatType: string;
  userId?: string | null;
  channelId?: string | null;
}

/** `agent:{agentId}:{platform}:{chatType}:{peer}`; peer is the user id for DMs, else the channel id. */
export function sessionKeyFor(parts: SessionKeyParts): string {
  const isDm = parts.chatType === 'dm';
  const peer = isDm ? parts.userId : parts.channelId;
  if (!peer) {
    const field = isDm ? 'user_id' : 'channel_id';
    throw badRequest('session.key_parts_missing', `${field} is required for chat_type "${parts.chatType}"`, {
      path: `body.${field}`,
    });
  }
  return `agent:${parts.agentId}:${parts.platform}:${parts.chatType}:${peer}`;
}

/** A session is stale when its last turn (or, with no turns, its creation) is older than maxAgeMs. */
export function isSessionStale(
  session: { lastTurnAt: Date | null; createdAt: Date },
  now: Date,
  maxAgeMs: number,
): boolean {
  const lastActivity = session.lastTurnAt ?? session.createdAt;
  return now.getTime() - lastActivity.getTime() > maxAgeMs;
}

/** Lane of a turn that names none and continues nothing: the session's channel root (§6.2). */
export function defaultLaneKey(session: { channelId: string | null }): string {
  return session.channelId ? rootLane(session.channelId) : 'root:session';
}

/** Lane of a turn with no anchor that names none: the session's last lane, else its default lane. */
export function continuedLaneKey(session: {
  channelId: string | null;
  turnState: { last_lane_key: string | null };
}): string {
  return session.turnState.last_lane_key ?? defaultLaneKey(session);
}

/**
 * The lane of a context call's turn: the anchor message's lane, else the one the request names,
 * else the lane it continues. The load statement picks the same lane in SQL (context.repository.ts
 * loadTurn; test/integration/rules-in-sql.test.ts checks they agree).
 */
export function turnLaneKey(
  anchorLane: string | null | undefined,
  requested: string | null | undefined,
  session: Parameters<typeof continuedLaneKey>[0],
): string {
  return anchorLane ?? requested ?? continuedLaneKey(session);
}
