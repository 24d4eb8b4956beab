// The ingest state machine: applies normalized channel events to message states in memory, so a
// batch costs a few queries instead of several per event. Every rule is order- and
// duplicate-independent: edits are last-writer-wins on their time, a delete is a tombstone that
// nothing revives, a reaction is a last-writer-wins register per (reaction, user), and anything
// that references a message not seen yet creates a placeholder that the message's create later
// fills in.
import type { ChannelEvent, IngestOutcome, MediaRefInput } from '../../../shared/channel-events.js';
import { laneKeyFor, replyChainRoot, replyLane, type ReplyLookup } from './lanes.js';
import { applyReactionTo, type ReactionState } from './reactions.js';

export { reactionStateOf, type ReactionState, type ReactorEntry, type Reactors } from './reactions.js';

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
  /** Time of the newest edit that carried media; null while the media are the create's. */
  mediaEditedAt: number | null;
  deletedAt: number | null;
  isPlaceholder: boolean;
  tokenEstimate: number;
  /** What the caller sent with the message, kept as sent; contextd never reads it. */
  metadata: Record<string, unknown>;
  /** What contextd derives from reaction events (never from caller fields). */
  reactionState: ReactionState;
}

export interface ApplyContext {
  /** Messages of this channel, keyed by message id; mutated in place. */
  messages: Map<string, MessageState>;
  /** Reply links (and lanes) of stored ancestors that are not loaded as full rows. */
  replyLinks: Map<string, { replyToId: string | null; laneKey: string }>;
  estimate(text: string): number;
}

interface ApplyResult {
  outcome: IngestOutcome;
  reason?: string;
  /** Ids whose state changed and must be written. */
  touched: string[];
  /** Lanes to rename in storage: a late parent pulled its replies' lane into its own chain. */
  relanes: { from: string; to: string }[];
}

/** Date.parse is `new Date(iso).getTime()` without the Date object. */
const ms = (iso: string) => Date.parse(iso);

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
    mediaEditedAt: null,
    deletedAt: null,
    isPlaceholder: true,
    tokenEstimate: 0,
    metadata: {},
    reactionState: {},
  };
}

/** The message whose reply_count a message feeds: its thread root, else the message it replies to. */
function parentOf(m: Pick<MessageState, 'messageId' | 'threadId' | 'replyToId'>): string | null {
  if (m.threadId && m.threadId !== m.messageId) return m.threadId;
  if (m.replyToId && m.replyToId !== m.messageId) return m.replyToId;
  return null;
}

const counts = (m: MessageState) => !m.isPlaceholder && m.deletedAt === null;

const lookupOf =
  (ctx: ApplyContext): ReplyLookup =>
  (id) => {
    const stored = ctx.messages.get(id);
    if (stored)
      return stored.laneKey
        ? { replyToId: stored.replyToId, laneKey: stored.laneKey }
        : { replyToId: stored.replyToId };
    return ctx.replyLinks.get(id);
  };

const laneOf = (ctx: ApplyContext, m: MessageState): string => laneKeyFor(m, lookupOf(ctx));

/**
 * The row of a message, a placeholder when it has none yet. A placeholder's time is the earliest
 * any reference gave it (an event's message_ts, a reply's time), whichever arrived first.
 */
function rowFor(
  ctx: ApplyContext,
  ref: { platform: string; channelId: string; messageId: string },
  tsMs: number,
  touched: string[],
): MessageState {
  let m = ctx.messages.get(ref.messageId);
  if (!m) {
    m = placeholder(
      { platform: ref.platform, channel_id: ref.channelId, message_id: ref.messageId } as ChannelEvent,
      tsMs,
    );
    m.replyToId = ctx.replyLinks.get(ref.messageId)?.replyToId ?? null;
    m.laneKey = laneOf(ctx, m);
    ctx.messages.set(ref.messageId, m);
    touched.push(ref.messageId);
  } else if (m.isPlaceholder && tsMs < m.ts) {
    m.ts = tsMs;
    touched.push(ref.messageId);
  }
  return m;
}

/** The row an edit, delete or reaction applies to; `at` is the event's time, parsed by the caller. */
const ensure = (
  ctx: ApplyContext,
  event: Exclude<ChannelEvent, { type: 'message.created' }>,
  at: number,
  touched: string[],
) =>
  rowFor(
    ctx,
    { platform: event.platform, channelId: event.channel_id, messageId: event.message_id },
    event.message_ts == null ? at : ms(event.message_ts),
    touched,
  );

/**
 * The row of a message that `child` points at (its thread root or reply target). Every created
 * message's targets get a row, deleted ones too: a reply lane names a message on the chain, and
 * only a message that has a row is seen to join a longer chain when its own create arrives (the
 * lane rename in applyCreate).
 */
const targetRow = (ctx: ApplyContext, child: MessageState, id: string, touched: string[]) =>
  rowFor(ctx, { platform: child.platform, channelId: child.channelId, messageId: id }, child.ts, touched);

/**
 * A counted reply (re)appears (1) or disappears (-1), or a reply is created already deleted (0):
 * keep its parent's reply_count and last_reply_ts (the latest reply ever created, deleted or not).
 * A reply before its root: the placeholder root carries the counts until the root arrives.
 */
function adjustParent(ctx: ApplyContext, child: MessageState, delta: 1 | 0 | -1, touched: string[]): void {
  const parentId = parentOf(child);
  if (!parentId) return;
  const parent = targetRow(ctx, child, parentId, touched);
  parent.replyCount = Math.max(0, parent.replyCount + delta);
  if (delta >= 0 && (parent.lastReplyTs === null || child.ts > parent.lastReplyTs))
    parent.lastReplyTs = child.ts;
  touched.push(parentId);
}

/**
 * A second create of a stored message (Slack's app_mention and message events for one message):
 * what one of them lacks is filled in, so the arrival order does not decide. Caller metadata
 * keys are united (the stored value wins a conflict); the author's name is the greater of the
 * two when both have one.
 */
function mergeDuplicateCreate(
  m: MessageState,
  event: Extract<ChannelEvent, { type: 'message.created' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  if (event.is_copy) return { outcome: 'duplicate' };
  let changed = false;
  const name = event.author.name ?? null;
  if (name !== null && event.author.id === m.authorId && (m.authorName === null || name > m.authorName)) {
    m.authorName = name;
    changed = true;
  }
  const added = Object.keys(event.metadata ?? {}).filter((key) => !(key in m.metadata));
  if (added.length > 0) {
    m.metadata = { ...event.metadata, ...m.metadata };
    changed = true;
  }
  if (!changed) return { outcome: 'duplicate' };
  touched.push(m.messageId);
  return { outcome: 'updated', reason: 'filled in from a second create of the message' };
}

/**
 * A copy fills a placeholder's author, text and media (text and media only while no edit or
 * delete decided them) and leaves it a placeholder: placement, counts and listing wait for the
 * message's own create. Of two differing copies the greater text wins, whatever their order.
 */
function applyCopy(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.created' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const ref = { platform: event.platform, channelId: event.channel_id, messageId: event.message_id };
  const before = touched.length;
  const m = rowFor(ctx, ref, ms(event.ts), touched);
  const textFree = m.editedAt === null && m.deletedAt === null;
  const fills = m.authorId === null || (textFree && event.text > m.text);
  if (!fills) return touched.length > before ? { outcome: 'updated' } : { outcome: 'duplicate' };
  m.authorId = event.author.id;
  m.authorName = event.author.name ?? null;
  m.authorIsBot = event.author.is_bot ?? false;
  if (textFree) m.text = event.text;
  if (m.mediaEditedAt === null && m.deletedAt === null) m.media = event.media ?? [];
  m.tokenEstimate = m.deletedAt === null ? ctx.estimate(m.text) : 0;
  touched.push(m.messageId);
  return { outcome: 'updated', reason: 'filled from a copy; the message itself has not arrived' };
}

/**
 * Replies that arrived before `m` were laned as `reply:…:{m}`; when `m` is itself a reply in a
 * longer chain, they are pulled into the lane a reply to it gets now, as in-order arrival would.
 */
function relaneEarlyReplies(
  ctx: ApplyContext,
  m: MessageState,
  touched: string[],
  relanes: ApplyResult['relanes'],
): void {
  const ownReplyLane = replyLane(m.channelId, m.messageId);
  const childLane = replyLane(m.channelId, replyChainRoot(m.messageId, lookupOf(ctx), m.channelId));
  if (childLane === ownReplyLane) return;
  relanes.push({ from: ownReplyLane, to: childLane });
  for (const other of ctx.messages.values()) {
    if (other.laneKey === ownReplyLane) {
      other.laneKey = childLane;
      touched.push(other.messageId);
    }
  }
}

function applyCreate(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.created' }>,
  touched: string[],
  relanes: ApplyResult['relanes'],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const existing = ctx.messages.get(event.message_id);
  if (existing && !existing.isPlaceholder) return mergeDuplicateCreate(existing, event, touched);
  if (event.is_copy) return applyCopy(ctx, event, touched);
  const ts = ms(event.ts);
  const m = existing ?? placeholder(event, ts);
  const previousLane = existing ? existing.laneKey : null;
  m.ts = ts;
  m.threadId = event.thread_id ?? null;
  m.topicId = event.topic_id ?? null;
  m.replyToId = event.reply_to_id ?? null;
  m.authorId = event.author.id;
  m.authorName = event.author.name ?? null;
  m.authorIsBot = event.author.is_bot ?? false;
  // An edit (or a delete) that arrived first is newer than the create's text.
  if (m.editedAt === null && m.deletedAt === null) m.text = event.text;
  // Media have their own clock: an edit without media kept them, so only an edit with media wins.
  if (m.mediaEditedAt === null && m.deletedAt === null) m.media = event.media ?? [];
  if (event.metadata) m.metadata = { ...event.metadata, ...m.metadata };
  m.tokenEstimate = m.deletedAt === null ? ctx.estimate(m.text) : 0;
  m.isPlaceholder = false;
  ctx.messages.set(m.messageId, m);
  m.laneKey = laneOf(ctx, m);
  if (m.replyToId && m.replyToId !== m.messageId) targetRow(ctx, m, m.replyToId, touched);
  // Only a message that had a row can have replies laned under it before it arrived.
  if (previousLane !== null) relaneEarlyReplies(ctx, m, touched, relanes);
  touched.push(m.messageId);
  adjustParent(ctx, m, counts(m) ? 1 : 0, touched);
  return { outcome: 'created' };
}

function applyEdit(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.edited' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const at = ms(event.ts);
  // An edit before the create makes a plain placeholder: the create brings the placement (a
  // placeholder laned under a parent that has no row would keep its replies out of the chain).
  const m = ensure(ctx, event, at, touched);
  if (m.deletedAt !== null) return { outcome: 'ignored', reason: 'the message is deleted' };
  // Text and media converge apart, each to its newest edit (an edit without media keeps the
  // media). At equal times the greater value wins, so arrival order never decides.
  const textWins = m.editedAt === null || at > m.editedAt || (at === m.editedAt && event.text > m.text);
  const media = event.media;
  const mediaKey = (value: MediaRefInput[]) => JSON.stringify(value);
  const mediaWins =
    media !== undefined &&
    (m.mediaEditedAt === null ||
      at > m.mediaEditedAt ||
      (at === m.mediaEditedAt && mediaKey(media) > mediaKey(m.media)));
  if (!textWins && !mediaWins) {
    const same = at === m.editedAt && event.text === m.text;
    return same ? { outcome: 'duplicate' } : { outcome: 'ignored', reason: 'a newer edit is already stored' };
  }
  if (textWins) {
    m.text = event.text;
    m.editedAt = at;
    m.tokenEstimate = ctx.estimate(m.text);
  }
  if (mediaWins) {
    m.media = media;
    m.mediaEditedAt = at;
  }
  touched.push(m.messageId);
  return { outcome: 'updated' };
}

function applyDelete(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'message.deleted' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const at = ms(event.ts);
  const m = ensure(ctx, event, at, touched);
  if (m.deletedAt !== null) {
    // The earliest delete time is kept, whichever delete arrived first.
    if (at < m.deletedAt) {
      m.deletedAt = at;
      touched.push(m.messageId);
    }
    return { outcome: 'duplicate' };
  }
  const wasCounted = counts(m);
  m.deletedAt = at;
  // Edits and reactions that arrive after the delete are ignored, so the ones before it go too.
  m.text = '';
  m.media = [];
  m.editedAt = null;
  m.mediaEditedAt = null;
  m.tokenEstimate = 0;
  m.reactions = {};
  m.reactionState = {};
  touched.push(m.messageId);
  if (wasCounted) adjustParent(ctx, m, -1, touched);
  return { outcome: 'updated' };
}

function applyReaction(
  ctx: ApplyContext,
  event: Extract<ChannelEvent, { type: 'reaction.added' | 'reaction.removed' }>,
  touched: string[],
): Pick<ApplyResult, 'outcome' | 'reason'> {
  const at = ms(event.ts);
  const m = ensure(ctx, event, at, touched);
  if (m.deletedAt !== null) return { outcome: 'ignored', reason: 'the message is deleted' };
  const { changed, ...result } = applyReactionTo(m, event, at);
  if (changed) touched.push(m.messageId);
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
  const applied: ApplyResult = { outcome: result.outcome, touched, relanes };
  if (result.reason !== undefined) applied.reason = result.reason;
  return applied;
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
