// The channel read side: snapshot, thread context, message listing and the `channel_messages`
// fetch. Loads rows through the repository and hands them to the pure builders in core/.
import { replyLane, replyLaneRoot } from './core/lanes.js';
import {
  channelSnapshotOf,
  DEFAULT_ADJACENT_COUNT,
  DEFAULT_SNAPSHOT_BUDGET,
  isoTime,
  lastHourWindow,
  authorOf,
  threadIdOf,
  type ChannelSnapshot,
  type Author,
} from './core/snapshot.js';
import {
  budgetThreadReplies,
  DEFAULT_THREAD_BUDGET,
  threadBudgetOf,
  threadReadLimit,
  threadTextCost,
  type ThreadContext,
} from './core/thread-budget.js';
import type { TextCost } from '../../shared/text-cost.js';
import type { MediaRefInput } from '../../shared/channel-events.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import type { ChannelScope, ChannelsRepository, StoredMessage } from './channels.repository.js';
import { channelMessageNotFound, channelThreadNotFound, cursorInvalid } from './channels.errors.js';
import { channelIsCold, threadIsCold } from './core/backfill-plan.js';
import { PLATFORM_REPLY_COUNT } from '../../platforms/history.js';
import type { BackfillService } from './backfill.service.js';
import type { SnapshotRead } from './snapshot-rows.repository.js';
import type { ThreadRead } from './thread-rows.repository.js';

const DEFAULT_MAX_REPLIES = 50;
export const MAX_LIST_LIMIT = 500;

export interface ChannelMessageView {
  message_id: string;
  ts: string;
  author: Author;
  text: string;
  media: MediaRefInput[];
  thread_id: string | null;
  reply_to_id: string | null;
  lane_key: string;
  reply_count: number;
  last_reply_ts: string | null;
  reactions: Record<string, number>;
  edited_at: string | null;
  token_estimate: number;
}

function messageView(m: StoredMessage): ChannelMessageView {
  return {
    message_id: m.messageId,
    ts: isoTime(m.ts),
    author: authorOf(m),
    text: m.text,
    media: m.media,
    thread_id: threadIdOf(m),
    reply_to_id: m.replyToId,
    lane_key: m.laneKey,
    reply_count: m.replyCount,
    last_reply_ts: m.lastReplyTs === null ? null : isoTime(m.lastReplyTs),
    reactions: m.reactions,
    edited_at: m.editedAt === null ? null : isoTime(m.editedAt),
    token_estimate: m.tokenEstimate,
  };
}

const encodeCursor = (m: StoredMessage) =>
  Buffer.from(JSON.stringify([m.ts, m.messageId]), 'utf8').toString('base64url');

function decodeCursor(cursor: string): { ts: number; messageId: string } {
  try {
    const [ts, messageId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [
      unknown,
      unknown,
    ];
    if (typeof ts === 'number' && Number.isFinite(ts) && typeof messageId === 'string')
      return { ts, messageId };
  } catch {
    // fall through
  }
  throw cursorInvalid();
}

/** The thread an anchor message belongs to or starts, or null. */
export function threadRootFor(anchor: StoredMessage): string | null {
  const thread = threadIdOf(anchor);
  if (thread) return thread;
  const chainRoot = replyLaneRoot(anchor.laneKey, anchor.channelId);
  if (chainRoot) return chainRoot;
  // A root fetched from the platform's history knows its replies before any is stored.
  const platformReplies = anchor.metadata[PLATFORM_REPLY_COUNT];
  return anchor.replyCount > 0 || (typeof platformReplies === 'number' && platformReplies > 0)
    ? anchor.messageId
    : null;
}

/** Notes of a read that served stored data the platform could not complete ("may be stale"). */
type ReadNotes = string[];

export function createChannelsService(deps: {
  channels: ChannelsRepository;
  estimator: TokenEstimator;
  /** Fetches cold history from the platform (absent: reads serve what is stored). */
  backfill?: Pick<BackfillService, 'channel' | 'thread'>;
}) {
  const { channels, estimator, backfill } = deps;

  async function snapshotFor(
    scope: ChannelScope,
    anchor: StoredMessage,
    adjacentCount: number,
    notes: ReadNotes,
    budget?: number,
    preRead?: SnapshotRead | null,
  ) {
    const window = lastHourWindow(anchor.ts);
    // The channel's name and the messages before the anchor: one statement.
    const read = () =>
      channels.snapshotRows({
        ...scope,
        ts: anchor.ts,
        messageId: anchor.messageId,
        limit: adjacentCount,
        repliesFrom: window.from,
        repliesTo: window.to,
      });
    // Rows another statement read for this anchor and count (ContextRepository.loadTurn) are named
    // here as the read's own would be.
    let { channelName, rows: adjacent } =
      preRead && preRead.limit === adjacentCount
        ? { channelName: preRead.channelName, rows: await channels.withNames(scope.tenantId, preRead.rows) }
        : await read();
    if (backfill && channelIsCold({ storedBefore: adjacent.length, wanted: adjacentCount })) {
      const outcome = await backfill.channel(scope, { messageId: anchor.messageId, ts: anchor.ts });
      if (outcome.note) notes.push(outcome.note);
      if (outcome.status === 'fetched') ({ channelName, rows: adjacent } = await read());
    }
    const repliesLastHour = new Map(adjacent.map((m) => [m.messageId, m.repliesInWindow]));
    return channelSnapshotOf({
      channel: { id: scope.channelId, name: channelName, platform: scope.platform },
      anchor,
      adjacent,
      repliesLastHour,
      adjacentCount,
      ...(budget !== undefined
        ? { budget: { tokens: budget, estimate: (t: string) => estimator.text(t) } }
        : {}),
    });
  }

  async function threadFor(
    scope: ChannelScope,
    rootId: string,
    options: { budget?: number; maxReplies?: number },
    notes: ReadNotes,
    /** The root's row when the caller holds it (the anchor is the root): not read again. */
    knownRoot?: StoredMessage,
    /** The thread as another statement read it (ContextRepository.loadTurn), if any. */
    preRead?: ThreadRead | null,
  ): Promise<{ thread: ThreadContext; textCost: TextCost } | null> {
    const budget = threadBudgetOf(options);
    const newest = threadReadLimit(options);
    const read = (held?: StoredMessage) =>
      Promise.all([
        held ?? channels.getRow({ ...scope, messageId: rootId }),
        channels.threadReplies({ ...scope, rootId, replyLane: replyLane(scope.channelId, rootId), newest }),
      ]);
    const held = knownRoot?.messageId === rootId ? knownRoot : undefined;
    let [root, thread] =
      preRead && preRead.rootId === rootId && preRead.newest === newest
        ? await namedThread(scope.tenantId, preRead, held)
        : await read(held);
    if (backfill && threadIsCold({ root, storedReplies: thread.total })) {
      const outcome = await backfill.thread(scope, rootId);
      if (outcome.note) notes.push(outcome.note);
      if (outcome.status === 'fetched') [root, thread] = await read();
    }
    if (!root && thread.replies.length === 0) return null;
    const rootMessage = root ?? {
      ...thread.replies[0]!,
      messageId: rootId,
      text: '',
      media: [],
      tokenEstimate: 0,
    };
    const context = budgetThreadReplies({
      threadId: rootId,
      root: rootMessage,
      replies: thread.replies,
      totalReplies: thread.total,
      ...(thread.oldestTs !== null ? { oldestReplyTs: thread.oldestTs } : {}),
      budget,
      ...(options.maxReplies !== undefined ? { maxReplies: options.maxReplies } : {}),
      estimate: (t) => estimator.text(t),
    });
    return { thread: context, textCost: threadTextCost(context, [rootMessage, ...thread.replies]) };
  }

  /** A thread read by another statement, named as the thread's own reads would be. */
  async function namedThread(
    tenantId: string,
    preRead: ThreadRead,
    held: StoredMessage | undefined,
  ): Promise<[StoredMessage | null, { replies: StoredMessage[]; total: number; oldestTs: number | null }]> {
    const { total, oldestTs } = preRead;
    // The root with the replies (one naming) unless the caller holds it named already.
    const unnamedRoot = held ? null : preRead.root;
    const named = await channels.withNames(
      tenantId,
      unnamedRoot ? [unnamedRoot, ...preRead.replies] : preRead.replies,
    );
    return unnamedRoot
      ? [named[0]!, { replies: named.slice(1), total, oldestTs }]
      : [held ?? null, { replies: named, total, oldestTs }];
  }

  async function anchorOf(scope: ChannelScope, messageId: string): Promise<StoredMessage> {
    const [anchor] = await channels.getMessages({ ...scope, ids: [messageId] });
    if (!anchor) throw channelMessageNotFound(messageId);
    return anchor;
  }

  return {
    async getSnapshot(
      params: ChannelScope & { anchorId: string; adjacentCount?: number },
    ): Promise<ChannelSnapshot & { notes?: ReadNotes }> {
      const anchor = await anchorOf(params, params.anchorId);
      const notes: ReadNotes = [];
      const { snapshot } = await snapshotFor(
        params,
        anchor,
        params.adjacentCount ?? DEFAULT_ADJACENT_COUNT,
        notes,
      );
      return notes.length > 0 ? { ...snapshot, notes } : snapshot;
    },

    async getThread(
      params: ChannelScope & { threadId: string; budget?: number; maxReplies?: number },
    ): Promise<ThreadContext & { notes?: ReadNotes }> {
      const notes: ReadNotes = [];
      const thread = (await threadFor(params, params.threadId, params, notes))?.thread ?? null;
      if (!thread) throw channelThreadNotFound(params.threadId);
      return notes.length > 0 ? { ...thread, notes } : thread;
    },

    /**
     * `channel_context`: a channel with fewer stored top-level messages than a snapshot shows gets
     * its newest history fetched once (as a snapshot read would); returns the notes.
     */
    async ensureChannelHistory(scope: ChannelScope): Promise<ReadNotes> {
      if (!backfill) return [];
      const lastTs = (await channels.getChannel(scope))?.lastTs ?? null;
      const stored =
        lastTs === null
          ? []
          : await channels.topLevelBefore({
              ...scope,
              ts: lastTs + 1,
              messageId: '',
              limit: DEFAULT_ADJACENT_COUNT,
              repliesFrom: lastTs,
              repliesTo: lastTs,
            });
      if (!channelIsCold({ storedBefore: stored.length, wanted: DEFAULT_ADJACENT_COUNT })) return [];
      const outcome = await backfill.channel(scope, null);
      return outcome.note ? [outcome.note] : [];
    },

    /**
     * What assembly attaches for an anchor message: the snapshot, and the thread context when
     * the anchor is in a thread or has replies.
     */
    /**
     * An anchor message with its stored row (for loadAnchorContext), from the row another statement
     * read (`messageJsonSql`), with the user directory's names as every read gets them; null when
     * missing or deleted.
     */
    async anchorFromRow(
      tenantId: string,
      read: StoredMessage | null,
    ): Promise<{ row: StoredMessage; view: ChannelMessageView } | null> {
      if (!read || read.deletedAt !== null) return null;
      const [row] = await channels.withNames(tenantId, [read]);
      return { row: row!, view: messageView(row!) };
    },

    /** The message before and after each hit in its lane, within `withinMs` (retrieval's neighbour expansion). */
    neighbours(params: ChannelScope & { ids: string[]; withinMs: number; span: number }) {
      return channels.neighbours(params);
    },

    /** Snapshot and thread around an anchor; pass its row (anchorFromRow) to save the read. */
    async loadAnchorContext(
      params: ChannelScope & {
        messageId: string;
        anchor?: StoredMessage;
        /** The anchor's snapshot rows as another statement read them (snapshotJsonSql), if any. */
        snapshotRead?: SnapshotRead | null;
        /** The anchor's thread as another statement read it (threadJsonSql), if any. */
        threadRead?: ThreadRead | null;
        adjacentCount?: number;
        threadBudget?: number;
        /** Cap on the snapshot (DEFAULT_SNAPSHOT_BUDGET): adjacency trimmed before the anchor. */
        snapshotBudget?: number;
      },
    ): Promise<{
      snapshot: ChannelSnapshot;
      thread: ThreadContext | null;
      /** What their stored texts cost (null: a message without a stored estimate). */
      textCost: { snapshot: TextCost | null; thread: TextCost | null };
      notes: ReadNotes;
    }> {
      const anchor =
        params.anchor?.messageId === params.messageId
          ? params.anchor
          : await anchorOf(params, params.messageId);
      const rootId = threadRootFor(anchor);
      const notes: ReadNotes = [];
      const [snapshot, thread] = await Promise.all([
        snapshotFor(
          params,
          anchor,
          params.adjacentCount ?? DEFAULT_ADJACENT_COUNT,
          notes,
          params.snapshotBudget ?? DEFAULT_SNAPSHOT_BUDGET,
          anchor === params.anchor ? params.snapshotRead : null,
        ),
        rootId
          ? threadFor(
              params,
              rootId,
              { budget: params.threadBudget ?? DEFAULT_THREAD_BUDGET },
              notes,
              anchor,
              anchor === params.anchor ? params.threadRead : null,
            )
          : null,
      ]);
      return {
        snapshot: snapshot.snapshot,
        thread: thread?.thread ?? null,
        textCost: { snapshot: snapshot.textCost, thread: thread?.textCost ?? null },
        notes,
      };
    },

    async listMessages(
      params: ChannelScope & {
        since?: Date;
        until?: Date;
        cursor?: string;
        limit?: number;
        topLevelOnly?: boolean;
      },
    ): Promise<{ messages: ChannelMessageView[]; next_cursor: string | null }> {
      const limit = Math.min(params.limit ?? 100, MAX_LIST_LIMIT);
      const rows = await channels.listMessages({
        tenantId: params.tenantId,
        platform: params.platform,
        channelId: params.channelId,
        ...(params.topLevelOnly ? { topLevelOnly: true } : {}),
        ...(params.since ? { since: params.since.getTime() } : {}),
        ...(params.until ? { until: params.until.getTime() } : {}),
        ...(params.cursor ? { after: decodeCursor(params.cursor) } : {}),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        messages: page.map(messageView),
        next_cursor: rows.length > limit && page.length > 0 ? encodeCursor(page[page.length - 1]!) : null,
      };
    },

    /**
     * `channel_messages`: a thread (root and up to `maxReplies` most recent replies) and/or
     * messages by id, in this channel only. Unknown ids are listed, not an error.
     */
    async getChannelMessages(
      params: ChannelScope & { threadId?: string; messageIds?: string[]; maxReplies?: number },
    ): Promise<ChannelMessagesOutput> {
      const out: ChannelMessagesOutput = {};
      const notes: ReadNotes = [];
      if (params.threadId) {
        out.thread =
          (
            await threadFor(
              params,
              params.threadId,
              { maxReplies: params.maxReplies ?? DEFAULT_MAX_REPLIES },
              notes,
            )
          )?.thread ?? null;
      }
      if (notes.length > 0) out.notes = notes;
      if (params.messageIds && params.messageIds.length > 0) {
        const rows = await channels.getMessages({ ...params, ids: params.messageIds });
        const byId = new Map(rows.filter((r) => r.deletedAt === null).map((r) => [r.messageId, r]));
        out.messages = params.messageIds.flatMap((id) => (byId.has(id) ? [messageView(byId.get(id)!)] : []));
        out.missing_ids = params.messageIds.filter((id) => !byId.has(id));
      }
      return out;
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;

interface ChannelMessagesOutput {
  thread?: ThreadContext | null;
  messages?: ChannelMessageView[];
  missing_ids?: string[];
  /** The thread could not be completed from the platform: what is shown may be stale. */
  notes?: ReadNotes;
}
