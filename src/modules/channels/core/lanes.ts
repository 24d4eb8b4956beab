// Lanes (docs/design.md §6.2): the deterministic conversation lane of a channel message, first match wins:
// forum topic / Discord thread → Slack thread → reply chain (rooted at its first stored message)
// → the channel's root lane.

/** Reply chains are followed at most this far; it also bounds the cost of a hostile chain. */
export const MAX_REPLY_HOPS = 50;

interface LaneInput {
  channelId: string;
  messageId: string;
  topicId?: string | null;
  threadId?: string | null;
  replyToId?: string | null;
}

/** What is stored about a message on a reply chain: its reply link and, once laned, its lane. */
export type ReplyLookup = (messageId: string) => { replyToId: string | null; laneKey?: string } | undefined;

const topicLane = (channelId: string, topicId: string) => `topic:${channelId}:${topicId}`;
const threadLane = (channelId: string, threadId: string) => `thread:${channelId}:${threadId}`;
export const replyLane = (channelId: string, rootId: string) => `reply:${channelId}:${rootId}`;
export const rootLane = (channelId: string) => `root:${channelId}`;

/**
 * The first stored message of `startId`'s reply chain: walk reply links while the parent is
 * stored, at most MAX_REPLY_HOPS, stopping on a cycle. A stored message already in a reply lane
 * names its chain's root, so the walk stops there and chains longer than the hop limit stay one
 * lane. When nothing on the chain is stored the direct parent is the root, which is what a
 * later-arriving parent then also resolves to.
 */
export function replyChainRoot(startId: string, lookup: ReplyLookup, channelId?: string): string {
  let root = startId;
  const seen = new Set<string>([startId]);
  let node = lookup(startId);
  for (let hops = 1; node && hops < MAX_REPLY_HOPS; hops += 1) {
    const known = node.laneKey && channelId !== undefined ? replyLaneRoot(node.laneKey, channelId) : null;
    if (known) return known;
    const next = node.replyToId;
    if (!next || seen.has(next)) break;
    const parent = lookup(next);
    if (!parent) break;
    seen.add(next);
    root = next;
    node = parent;
  }
  return root;
}

export function laneKeyFor(message: LaneInput, lookup: ReplyLookup): string {
  const { channelId } = message;
  if (message.topicId) return topicLane(channelId, message.topicId);
  // A Slack thread root carries thread_ts == its own ts only once replies exist; it stays in the
  // lane it had before, so the lane never depends on arrival order.
  if (message.threadId && message.threadId !== message.messageId) {
    return threadLane(channelId, message.threadId);
  }
  if (message.replyToId && message.replyToId !== message.messageId) {
    return replyLane(channelId, replyChainRoot(message.replyToId, lookup, channelId));
  }
  return rootLane(channelId);
}

/** The root message id a reply lane key names, or null for other lanes. */
export function replyLaneRoot(laneKey: string, channelId: string): string | null {
  const prefix = `reply:${channelId}:`;
  return laneKey.startsWith(prefix) ? laneKey.slice(prefix.length) : null;
}
