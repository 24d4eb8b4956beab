// The ingest state machine: applies normalized channel events to message states in memory, so a
// batch costs a few queries instead of several per event. Every rule is order-independent:
// edits are last-writer-wins on their time, a delete is a tombstone that nothing revives, a
// reaction is a last-writer-wins register per (reaction, user), and anything that references a
// message not seen yet creates a placeholder that the message's create later fills in.
import type { ChannelEvent, IngestOutcome, MediaRefInput } from './channel-events.js';
import { laneKeyFor, replyLane } from './lanes.js';

export interface MessageState {
  platform: string;
  channelId: string;
  messageId: string;
  threadId: string | null;
  replyToId: string | null;
  topicId: string | null;
  laneKey: string;
  /** Epoch milliseconds. */
  ts: number;
  authorId: string | null;
  authorName: string | null;
  authorIsBot: boolean;
  text: string;
  reactions: Record<string, number>;
  media: MediaRefInput[];
  replyCount: number;
  lastReplyTs: number | null;
  editedAt: number | null;
  deletedAt: number | null;
  isPlaceholder: boolean;
  tokenEstimate: number;
  /** What the caller sent with the message, kept as sent; contextd never reads it. */
  metadata: Record<string, unknown>;
  /** What contextd derives from reaction events (never from caller fields). */
  reactionState: ReactionState;
}

/** Per reaction name and user: [1 = on / 0 = off, event time ms]. */
export type Reactors = Record<string, Record<string, [0 | 1, number]>>;

export interface ReactionState {
  reactors?: Reactors;
  /** Reactions reported without a user: plain counters. */
  anonymous_reactions?: Record<string, number>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A stored reaction state with anything not of its shape dropped (rows written before caller
 * metadata and derived state were kept apart may hold what a caller sent).
 */
export function reactionStateOf(value: unknown): ReactionState {
  if (!isRecord(value)) return {};
  const state: ReactionState = {};
  if (isRecord(value.reactors)) {
    const reactors: Reactors = {};
    for (const [name, users] of Object.entries(value.reactors)) {
      if (!isRecord(users)) continue;
      const valid = Object.entries(users).filter(
        (entry): entry is [string, [0 | 1, number]] =>
          Array.isArray(entry[1]) &&
          (entry[1][0] === 0 || entry[1][0] === 1) &&
          typeof entry[1][1] === 'number' &&
          Number.isFinite(entry[1][1]),
      );
      if (valid.length > 0) reactors[name] = Object.fromEntries(valid);
    }
    state.reactors = reactors;
  }
  if (isRecord(value.anonymous_reactions)) {
    state.anonymous_reactions = Object.fromEntries(
      Object.entries(value.anonymous_reactions).filter(
        (entry): entry is [string, number] =>
          typeof entry[1] === 'number' && Number.isInteger(entry[1]) && entry[1] >= 0,
      ),
    );
  }
  return state;
}

export interface ApplyContext {
  /** Messages of this channel, keyed by message id; mutated in place. */
  messages: Map<string, MessageState>;
  /** Reply links (and lanes) of stored ancestors that are not loaded as full rows. */
  replyLinks: Map<string, { replyToId: string | null; laneKey: string }>;
  estimate(text: string): number;
}

export interface ApplyResult {
  outcome: IngestOutcome;
  reason?: string;
  /** Ids whose state changed and must be written. */
  touched: string[];
  /** Lanes to rename in storage: a late parent pulled its replies' lane into its own chain. */
  relanes: { from: string; to: string }[];
}

const ms = (iso: string) => new Date(iso).getTime();

function placeholder(event: ChannelEvent, tsMs: number): MessageState {
  return {
    platform: event.platform,
    channelId: event.channel_id,
    messageId: event.message_id,
    threadId: null,
    replyToId: null,
    topicId: null,
    laneKey: '',
    ts: tsMs,
    authorId: null,
    authorName: null,
    authorIsBot: false,
    text: '',
    reactions: {},
    media: [],
    replyCount: 0,
    lastReplyTs: null,
    editedAt: null,
    deletedAt: null,
    isPlaceholder: true,
    tokenEstimate: 0,
    metadata: {},
    reactionState: {},
  };
}

/** The message whose reply_count a message feeds: its thread root, else the message it replies to. */
export function parentOf(m: Pick<MessageState, 'messageId' | 'threadId' | 'replyToId'>): string | null {
  if (m.threadId && m.threadId !== m.messageId) return m.threadId;
  if (m.replyToId && m.replyToId !== m.messageId) return m.replyToId;
  return null;
}

const counts = (m: MessageState) => !m.isPlaceholder && m.deletedAt === null;

function laneOf(ctx: ApplyContext, m: MessageState): string {
  return laneKeyFor(m, (id) => {
    const stored = ctx.messages.get(id);
    if (stored)
      return stored.laneKey
        ? { replyToId: stored.replyToId, laneKey: stored.laneKey }
        : { replyToId: stored.replyToId };
    return ctx.replyLinks.get(id);
  });
}

function ensure(ctx: ApplyContext, event: ChannelEvent, tsMs: number, touched: string[]): MessageState {
  let m = ctx.messages.get(event.message_id);
  if (!m) {
    m = placeholder(event, tsMs);
    m.laneKey = laneOf(ctx, m);
    ctx.messages.set(m.messageId, m);
    touched.push(m.messageId);
  }
  return m;
}

/** A counted reply (re)appears or disappears: keep its parent's reply_count and last_reply_ts. */
function adjustParent(ctx: ApplyContext, child: MessageState, delta: 1 | -1, touched: string[]): void {
  const parentId = parentOf(child);
  if (!parentId) return;
  let parent = ctx.messages.get(parentId);
  if (!parent) {
    // Reply before its root: the placeholder root carries the counts until the root arrives.
    parent = placeholder(
      { platform: child.platform, channel_id: child.channelId, message_id: parentId } as ChannelEvent,
      child.ts,
    );
    parent.replyToId = ctx.replyLinks.get(parentId)?.replyToId ?? null;
    parent.laneKey = laneOf(ctx, parent);
    ctx.messages.set(parentId, parent);
  }
  parent.replyCount = Math.max(0, parent.replyCount + delta);
  if (delta > 0 && (parent.lastReplyTs === null || child.ts > parent.lastReplyTs))
    parent.lastReplyTs = child.ts;
  touched.push(parentId);
}

function deriveReactions(meta: ReactionState): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, users] of Object.entries(meta.reactors ?? {})) {
    const on = Object.values(users).filter(([state]) => state === 1).length;
    if (on > 0) out[name] = on;
  }
  for (const [name, n] of Object.entries(meta.anonymous_reactions ?? {})) {
    if (n > 0) out[name] = (out[name] ?? 0) + n;
  }
  // Key order independent of event order (jsonb would normalize it anyway).
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function applyCreate(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.created' }>,
  touched: string[],
  relanes: ApplyResult['relanes'],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const existing = ctx.messages.get(event.message_id);
  if (existing && !existing.isPlaceholder) return { outcome: 'duplicate' };
  const m = existing ?? placeholder(event, ms(event.ts));
  const previousLane = existing ? existing.laneKey : null;
  m.ts = ms(event.ts);
  m.threadId = event.thread_id ?? null;
  m.topicId = event.topic_id ?? null;
  m.replyToId = event.reply_to_id ?? null;
  m.authorId = event.author.id;
  m.authorName = event.author.name ?? null;
  m.authorIsBot = event.author.is_bot ?? false;
  // An edit (or a delete) that arrived first is newer than the create's text.
  if (m.editedAt === null && m.deletedAt === null) {
    m.text = event.text;
    m.media = event.media ?? [];
  }
  if (event.metadata) m.metadata = { ...event.metadata, ...m.metadata };
  m.tokenEstimate = m.deletedAt === null ? ctx.estimate(m.text) : 0;
  m.isPlaceholder = false;
  ctx.messages.set(m.messageId, m);
  m.laneKey = laneOf(ctx, m);
  // Replies that arrived before this message were laned as `reply:…:{this}`; when this message
  // is itself a reply in a longer chain, pull them into the chain's lane, as in-order arrival would.
  const ownReplyLane = replyLane(m.channelId, m.messageId);
  if (previousLane !== null && m.laneKey.startsWith('reply:') && m.laneKey !== ownReplyLane) {
    relanes.push({ from: ownReplyLane, to: m.laneKey });
    for (const other of ctx.messages.values()) {
      if (other.laneKey === ownReplyLane) {
        other.laneKey = m.laneKey;
        touched.push(other.messageId);
      }
    }
  }
  touched.push(m.messageId);
  if (counts(m)) adjustParent(ctx, m, 1, touched);
  return { outcome: 'created' };
}

function applyEdit(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.edited' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const at = ms(event.ts);
  const existed = ctx.messages.has(event.message_id);
  const m = ensure(ctx, event, ms(event.message_ts ?? event.ts), touched);
  if (m.deletedAt !== null) return { outcome: 'ignored', reason: 'the message is deleted' };
  if (m.editedAt !== null && at <= m.editedAt) {
    return m.text === event.text
      ? { outcome: 'duplicate' }
      : { outcome: 'ignored', reason: 'a newer edit is already stored' };
  }
  if (!existed) {
    m.threadId = event.thread_id ?? null;
    m.topicId = event.topic_id ?? null;
    m.replyToId = event.reply_to_id ?? null;
    if (event.author) {
      m.authorId = event.author.id;
      m.authorName = event.author.name ?? null;
      m.authorIsBot = event.author.is_bot ?? false;
    }
    m.laneKey = laneOf(ctx, m);
  }
  m.text = event.text;
  if (event.media) m.media = event.media;
  m.editedAt = at;
  m.tokenEstimate = ctx.estimate(m.text);
  touched.push(m.messageId);
  return { outcome: 'updated' };
}

function applyDelete(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.deleted' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const m = ensure(ctx, event, ms(event.message_ts ?? event.ts), touched);
  if (m.deletedAt !== null) return { outcome: 'duplicate' };
  const wasCounted = counts(m);
  m.deletedAt = ms(event.ts);
  m.text = '';
  m.media = [];
  m.tokenEstimate = 0;
  touched.push(m.messageId);
  if (wasCounted) adjustParent(ctx, m, -1, touched);
  return { outcome: 'updated' };
}

function applyReaction(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'reaction.added' | 'reaction.removed' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const m = ensure(ctx, event, ms(event.message_ts ?? event.ts), touched);
  if (m.deletedAt !== null) return { outcome: 'ignored', reason: 'the message is deleted' };
  const on: 0 | 1 = event.type === 'reaction.added' ? 1 : 0;
  const at = ms(event.ts);
  const meta = { ...m.reactionState };
  let result: Pick<ApplyResult, 'outcome' | 'reason'> = { outcome: 'updated' };
  if (event.user_id) {
    const reactors: Reactors = { ...(meta.reactors ?? {}) };
    const users = { ...(reactors[event.reaction] ?? {}) };
    const previous = users[event.user_id];
    if (previous && previous[0] === on) return { outcome: 'duplicate' };
    if (previous && previous[1] > at)
      return { outcome: 'ignored', reason: 'a newer reaction event is stored' };
    // A removal with nothing to remove is remembered, so an older add arriving late stays undone.
    if (!previous && on === 0) result = { outcome: 'ignored', reason: 'the reaction was not present' };
    users[event.user_id] = [on, at];
    reactors[event.reaction] = users;
    meta.reactors = reactors;
  } else {
    const anonymous = { ...(meta.anonymous_reactions ?? {}) };
    const current = anonymous[event.reaction] ?? 0;
    if (on === 0 && current === 0) return { outcome: 'ignored', reason: 'the reaction was not present' };
    anonymous[event.reaction] = on === 1 ? current + 1 : current - 1;
    meta.anonymous_reactions = anonymous;
  }
  m.reactionState = meta;
  m.reactions = deriveReactions(meta);
  touched.push(m.messageId);
  return result;
}

/** Applies one event to the channel's message states; the caller writes the touched ones. */
export function applyChannelEvent(ctx: ApplyContext, event: ChannelEvent): ApplyResult {
  const touched: string[] = [];
  const relanes: ApplyResult['relanes'] = [];
  let result: Pick<ApplyResult, 'outcome' | 'reason'>;
  switch (event.type) {
    case 'message.created':
      result = applyCreate(ctx, event, touched, relanes);
      break;
    case 'message.edited':
      result = applyEdit(ctx, event, touched);
      break;
    case 'message.deleted':
      result = applyDelete(ctx, event, touched);
      break;
    case 'reaction.added':
    case 'reaction.removed':
      result = applyReaction(ctx, event, touched);
      break;
  }
  return { ...result, touched, relanes };
}

/** Ids a batch of events needs loaded: each message, its thread root and reply parent. */
export function referencedIds(events: ChannelEvent[]): string[] {
  const ids = new Set<string>();
  for (const e of events) {
    ids.add(e.message_id);
    if ('thread_id' in e && e.thread_id) ids.add(e.thread_id);
    if ('reply_to_id' in e && e.reply_to_id) ids.add(e.reply_to_id);
  }
  return [...ids];
}
