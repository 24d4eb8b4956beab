// Ingest of normalized channel events: one transaction per batch, per-channel row locks so
// concurrent batches cannot lose each other's updates, event-id dedupe, then the pure state
// machine (core/ingest-apply) over the rows the batch touches, written back in bulk. A raw
// platform payload is adapted to such a batch first.
import type { Clock } from '../../shared/clock.js';
import type { ChannelEvent, IngestOutcome } from '../../shared/channel-events.js';
import { applyChannelEvent, referencedIds, type ApplyContext } from './core/ingest-apply.js';
import { MAX_REPLY_HOPS } from './core/lanes.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import { adaptPlatformPayload, type SupportedPlatform } from '../../platforms/index.js';
import type { Db, Executor } from '../../db/client.js';
import { afterCommit } from '../../db/retries.js';
import type { ChannelsRepository, ChannelUpsert } from './channels.repository.js';
import type { IngestStatistics } from './ingest-statistics.js';
import type { MessageWrite } from './channel-ingest.repository.js';

export interface IngestItemResult {
  index: number;
  type: ChannelEvent['type'];
  message_id: string;
  outcome: IngestOutcome;
  reason?: string;
  lane_key?: string;
}

interface IngestResult {
  results: IngestItemResult[];
  counts: Record<IngestOutcome, number>;
}

/** What one raw platform payload came to: its events ingested, or the payload ignored and why. */
interface PlatformIngestResult extends IngestResult {
  outcome: 'ingested' | 'ignored';
  /** Why the payload was ignored, or which adapted events were dropped. */
  reason?: string;
  /** Slack's url_verification challenge, when that was the payload. */
  challenge?: string;
}

const noCounts = (): Record<IngestOutcome, number> => ({ created: 0, updated: 0, duplicate: 0, ignored: 0 });

interface ChannelGroup {
  platform: string;
  channelId: string;
  indexes: number[];
  ctx: ApplyContext;
  touched: Set<string>;
  /**
   * The text and search text of each row read from storage, by message id (its write sets them only
   * if the text changed).
   */
  stored: Map<string, { text: string; searchText: string | null }>;
  relanes: { from: string; to: string }[];
  channel: ChannelUpsert;
}

interface ChangedMessage {
  platform: string;
  channelId: string;
  messageId: string;
  /** The text before this batch's edit or delete (null when the message was not stored). */
  previousText: string | null;
  deleted: boolean;
}

type GroupOf = (platform: string, channelId: string) => ChannelGroup;

const channelKey = (platform: string, channelId: string) => `${platform}\u0000${channelId}`;
const messageKey = (platform: string, channelId: string, messageId: string) =>
  `${platform}\u0000${channelId}\u0000${messageId}`;

/** Event ids: a repeat inside the batch is a duplicate; the rest, by source, to check against earlier batches. */
function eventIdsOf(events: ChannelEvent[]) {
  const duplicateByEventId = new Set<number>();
  const bySource = new Map<string, { index: number; id: string }[]>();
  const seenInBatch = new Set<string>();
  events.forEach((event, index) => {
    if (!event.event_id) return;
    const key = `${event.platform}\u0000${event.event_id}`;
    if (seenInBatch.has(key)) {
      duplicateByEventId.add(index);
      return;
    }
    seenInBatch.add(key);
    const list = bySource.get(event.platform) ?? [];
    list.push({ index, id: event.event_id });
    bySource.set(event.platform, list);
  });
  return { duplicateByEventId, bySource };
}

/**
 * One group per channel, ordered by key: locked in a fixed order so two batches cannot deadlock.
 * `groupAt[i]` is event i's group (looked up once: the steps after read it by index).
 */
function groupByChannel(events: ChannelEvent[], estimate: (text: string) => number) {
  // By platform, then channel id: no key string to build and hash per event.
  const byPlatform = new Map<string, Map<string, ChannelGroup>>();
  const all: ChannelGroup[] = [];
  const groupAt: ChannelGroup[] = new Array<ChannelGroup>(events.length);
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index]!;
    let channels = byPlatform.get(event.platform);
    if (!channels) {
      channels = new Map();
      byPlatform.set(event.platform, channels);
    }
    let group = channels.get(event.channel_id);
    if (!group) {
      group = {
        platform: event.platform,
        channelId: event.channel_id,
        indexes: [],
        ctx: { messages: new Map(), replyLinks: new Map(), estimate },
        touched: new Set(),
        stored: new Map(),
        relanes: [],
        channel: { platform: event.platform, channelId: event.channel_id },
      };
      channels.set(event.channel_id, group);
      all.push(group);
    }
    groupAt[index] = group;
    group.indexes.push(index);
    if (event.channel?.name) group.channel.name = event.channel.name;
    if (event.channel?.kind) group.channel.kind = event.channel.kind;
  }
  const ordered = all
    .map((g) => ({ key: channelKey(g.platform, g.channelId), g }))
    .sort(({ key: a }, { key: b }) => (a < b ? -1 : a > b ? 1 : 0))
    .map(({ g }) => g);
  const groupOf: GroupOf = (platform, channelId) => byPlatform.get(platform)!.get(channelId)!;
  return { groupOf, groupAt, ordered };
}

/** The text each edited or deleted message had before this batch (what a summary may quote). */
function textsBeforeChange(events: ChannelEvent[], groupAt: ChannelGroup[]): Map<string, string> {
  const before = new Map<string, string>();
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    if (event.type !== 'message.edited' && event.type !== 'message.deleted') continue;
    const key = messageKey(event.platform, event.channel_id, event.message_id);
    const row = groupAt[i]!.ctx.messages.get(event.message_id);
    if (!before.has(key) && row && !row.isPlaceholder) before.set(key, row.text);
  }
  return before;
}

const duplicateItem = (index: number, event: ChannelEvent): IngestItemResult => ({
  index,
  type: event.type,
  message_id: event.message_id,
  outcome: 'duplicate',
  reason: 'event_id already ingested',
});

function widenSpan(channel: ChannelUpsert, ts: number): void {
  channel.firstTs = Math.min(channel.firstTs ?? ts, ts);
  channel.lastTs = Math.max(channel.lastTs ?? ts, ts);
}

/** The state machine over the batch in order; each item reports the lane its message ended in. */
function applyBatch(events: ChannelEvent[], groupAt: ChannelGroup[], duplicateByEventId: Set<number>) {
  const results = events.map((event, index): IngestItemResult => {
    if (duplicateByEventId.has(index)) return duplicateItem(index, event);
    const group = groupAt[index]!;
    const applied = applyChannelEvent(group.ctx, event);
    for (const id of applied.touched) group.touched.add(id);
    for (const relane of applied.relanes) group.relanes.push(relane);
    const state = group.ctx.messages.get(event.message_id);
    // A created message's time is the event's, parsed once by the state machine.
    if (event.type === 'message.created' && applied.outcome === 'created')
      widenSpan(group.channel, state!.ts);
    const item: IngestItemResult = {
      index,
      type: event.type,
      message_id: event.message_id,
      outcome: applied.outcome,
    };
    if (applied.reason) item.reason = applied.reason;
    item.lane_key = state?.laneKey;
    return item;
  });
  // Lanes may have moved after an item was applied (a late parent): report where they ended.
  for (const item of results) {
    const lane = groupAt[item.index]!.ctx.messages.get(item.message_id)?.laneKey;
    if (lane) item.lane_key = lane;
  }
  return results;
}

/** The messages an edit or delete of this batch changed, for the change hooks. */
function changedMessages(
  events: ChannelEvent[],
  results: IngestItemResult[],
  groupAt: ChannelGroup[],
  before: Map<string, string>,
): ChangedMessage[] {
  return results
    .filter(
      (item) =>
        item.outcome === 'updated' && (item.type === 'message.edited' || item.type === 'message.deleted'),
    )
    .map((item) => {
      const { platform, channel_id: channelId } = events[item.index]!;
      const state = groupAt[item.index]!.ctx.messages.get(item.message_id);
      return {
        platform,
        channelId,
        messageId: item.message_id,
        previousText: before.get(messageKey(platform, channelId, item.message_id)) ?? null,
        deleted: state?.deletedAt != null,
      };
    });
}

export function createIngestService(deps: {
  db: Db;
  channels: ChannelsRepository;
  clock: Clock;
  estimator: TokenEstimator;
  /** Keeps the planner's statistics current after bulk loads (ingest-statistics.ts). */
  statistics?: Pick<IngestStatistics, 'applied'>;
}) {
  const { channels, clock, estimator } = deps;
  /**
   * Called in the ingest transaction with the messages an edit or delete changed (chunk rebuilds,
   * stale summaries), with the text each had before the batch and whether it is now deleted.
   */
  const changeHooks: ((
    tx: Executor,
    params: { tenantId: string; messages: ChangedMessage[] },
  ) => Promise<unknown>)[] = [];

  /** Token estimates of the batch's texts, computed before the transaction so the locks are held for less. */
  function estimateTexts(events: ChannelEvent[]): Map<string, number> {
    const estimates = new Map<string, number>();
    for (const event of events)
      if ('text' in event && typeof event.text === 'string' && !estimates.has(event.text))
        estimates.set(event.text, estimator.text(event.text));
    return estimates;
  }

  /**
   * One batch in its transaction, as named steps: the event ids and channel groups (in memory),
   * the locks and reads (one round trip), the texts before any edit, the state machine, then the
   * writes and change hooks (one round trip).
   */
  async function ingestInTx(
    tenantId: string,
    events: ChannelEvent[],
    tx: Executor,
    estimates = estimateTexts(events),
  ): Promise<IngestResult> {
    const estimate = (text: string) => estimates.get(text) ?? estimator.text(text);
    const { duplicateByEventId, bySource } = eventIdsOf(events);
    const { groupOf, groupAt, ordered } = groupByChannel(events, estimate);
    await loadBatchRows(tenantId, events, { ordered, groupOf, bySource, duplicateByEventId }, tx);
    const before = textsBeforeChange(events, groupAt);
    const results = applyBatch(events, groupAt, duplicateByEventId);
    const changed = changedMessages(events, results, groupAt, before);
    await writeBatch(tenantId, ordered, changed, tx);
    const counts = noCounts();
    for (const item of results) counts[item.outcome] += 1;
    return { results, counts };
  }

  /**
   * The locks, the event ids, every referenced row of every channel and the reply chains are
   * sent together: pipelined on the transaction's connection, they run in this order (the reads
   * after the locks) for one round trip. The rows come with their stored parents (a delete of a
   * stored reply updates its parent's counters). An event id already recorded marks its events
   * duplicates.
   */
  async function loadBatchRows(
    tenantId: string,
    events: ChannelEvent[],
    batch: {
      ordered: ChannelGroup[];
      groupOf: GroupOf;
      bySource: Map<string, { index: number; id: string }[]>;
      duplicateByEventId: Set<number>;
    },
    tx: Executor,
  ): Promise<void> {
    const { ordered, groupOf } = batch;
    const refs = ordered.flatMap((g) =>
      referencedIds(g.indexes.map((i) => events[i]!)).map((messageId) => ({
        platform: g.platform,
        channelId: g.channelId,
        messageId,
      })),
    );
    const replyParents = ordered.flatMap((g) =>
      g.indexes.flatMap((i) => {
        const e = events[i]!;
        return 'reply_to_id' in e && e.reply_to_id
          ? [{ platform: g.platform, channelId: g.channelId, messageId: e.reply_to_id }]
          : [];
      }),
    );
    const locked = channels.lockChannels({ tenantId, channels: ordered }, tx);
    const recorded = [...batch.bySource].map(async ([source, items]) => {
      const fresh = await channels.recordEventIds(
        { tenantId, source, eventIds: items.map((i) => i.id), at: clock.now() },
        tx,
      );
      for (const item of items) if (!fresh.has(item.id)) batch.duplicateByEventId.add(item.index);
    });
    const loaded = channels.loadMessagesWithParents({ tenantId, keys: refs }, tx);
    const chains = channels.loadReplyChains({ tenantId, keys: replyParents, maxHops: MAX_REPLY_HOPS }, tx);
    const [, , referenced, links] = await Promise.all([locked, Promise.all(recorded), loaded, chains]);
    for (const { message: row, searchText } of referenced) {
      const group = groupOf(row.platform, row.channelId);
      group.ctx.messages.set(row.messageId, row);
      group.stored.set(row.messageId, { text: row.text, searchText });
    }
    for (const link of links) groupOf(link.platform, link.channelId).ctx.replyLinks.set(link.messageId, link);
  }

  /**
   * Pipelined like the reads: the upsert, the lane renames, the channels, then the change hooks
   * (whose first statement runs after the upsert on the same connection, so it sees the rows).
   */
  async function writeBatch(
    tenantId: string,
    ordered: ChannelGroup[],
    changed: ChangedMessage[],
    tx: Executor,
  ): Promise<void> {
    const rows: MessageWrite[] = ordered.flatMap((g) =>
      [...g.touched].map((id) => ({ state: g.ctx.messages.get(id)!, stored: g.stored.get(id) })),
    );
    const writes = [
      channels.upsertMessages({ tenantId, messages: rows }, tx),
      ...ordered.flatMap((g) => g.relanes).map((relane) => channels.renameLane({ tenantId, ...relane }, tx)),
      channels.upsertChannels({ tenantId, channels: ordered.map((g) => g.channel) }, tx),
    ];
    const hooks = async () => {
      for (const hook of changeHooks) await hook(tx, { tenantId, messages: changed });
    };
    await Promise.all([...writes, ...(changed.length > 0 ? [hooks()] : [])]);
  }

  const ingestedHooks: ((params: { tenantId: string; events: ChannelEvent[] }) => void)[] = [];

  /** Applies a validated batch. Pass `tx` to run inside a caller's transaction (Idempotency-Key). */
  async function ingest(
    { tenantId, events }: { tenantId: string; events: ChannelEvent[] },
    tx?: Executor,
  ): Promise<IngestResult> {
    const estimates = estimateTexts(events);
    const result = await (tx
      ? ingestInTx(tenantId, events, tx, estimates)
      : deps.db.transaction((t) => ingestInTx(tenantId, events, t, estimates)));
    // The check (and the ANALYZE it may start on another connection) must see this batch: inside a
    // caller's transaction it waits for that commit, else an ANALYZE could count none of its rows.
    const applied = events.length;
    afterCommit(tx ?? deps.db, () => deps.statistics?.applied(applied));
    for (const hook of ingestedHooks) hook({ tenantId, events });
    return result;
  }

  /**
   * One raw platform payload (Slack envelope, Telegram Update, Discord dispatch): adapted to
   * events and ingested. A url_verification challenge or a shape with nothing to store is ignored
   * with its reason; adapted events the normalized schema refuses are dropped and named.
   */
  async function ingestPlatformPayload(
    { tenantId, platform, payload }: { tenantId: string; platform: SupportedPlatform; payload: unknown },
    tx?: Executor,
  ): Promise<PlatformIngestResult> {
    const adapted = adaptPlatformPayload(platform, payload, { receivedAt: clock.now() });
    const { result } = adapted;
    if (result.kind === 'challenge') {
      const ignored = {
        outcome: 'ignored',
        reason: 'url_verification',
        challenge: result.challenge,
      } as const;
      return { ...ignored, results: [], counts: noCounts() };
    }
    if (result.kind === 'ignored')
      return { outcome: 'ignored', reason: result.reason, results: [], counts: noCounts() };
    const ingested = await ingest({ tenantId, events: result.events }, tx);
    const dropped = adapted.rejected.map((r) => r.reason).join('; ');
    return { outcome: 'ingested', ...(dropped ? { reason: `dropped: ${dropped}` } : {}), ...ingested };
  }

  return {
    /** Registers a callback told of each applied batch (it must not block: background work only). */
    addIngestedHook(hook: (typeof ingestedHooks)[number]) {
      ingestedHooks.push(hook);
    },
    /** Registers work to run, inside the ingest transaction, for messages changed by edits/deletes. */
    addChangeHook(hook: (typeof changeHooks)[number]) {
      changeHooks.push(hook);
    },
    ingest,
    ingestPlatformPayload,
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
