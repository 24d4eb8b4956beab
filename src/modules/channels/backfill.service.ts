// Backfill: a read that finds a channel or thread cold fetches the missing history from the
// platform and ingests it like events, then marks it so the next read makes no call. Every call
// goes through the platform client, whose gate is the shared per-workspace rate limiter; a
// refused or failed call leaves the store as it was and becomes a "may be stale" note.
import type { Clock } from '../../shared/clock.js';
import type { PlatformCredential } from '../../platforms/api/platform-call.js';
import type { Db } from '../../db/client.js';
import type { LockManager } from '../../coord/lock.js';
import type { ChannelEvent } from '../../shared/channel-events.js';
import type { IngestService } from './ingest.service.js';
import type { ChannelScope } from './channel-rows.repository.js';
import { CHANNEL_HISTORY, type BackfillRepository } from './backfill.repository.js';
import {
  discordHistoryPage,
  DISCORD_MESSAGES_MAX_LIMIT,
  slackHistoryPage,
  SLACK_HISTORY_MAX_LIMIT,
  SLACK_REPLIES_MAX_LIMIT,
  type HistoryPage,
} from '../../platforms/history.js';
import { slackTs } from '../../platforms/slack.js';
import { backfillFailure, staleNote, type BackfillFailure } from './core/backfill-plan.js';
import type { BackfillMetrics } from './channels.metrics.js';

/** Platforms with a history API. Telegram bots have none. */
const HISTORY_PLATFORMS = new Set(['slack', 'discord']);

/** A read-path channel backfill fetches one page: Slack's recommended 200, Discord's maximum. */
const READ_PAGE = { slack: 200, discord: DISCORD_MESSAGES_MAX_LIMIT } as const;
/**
 * A thread longer than this many pages stops there (its mark says `complete: false`): Slack pages
 * from the oldest reply, Discord from the newest.
 */
const MAX_THREAD_PAGES = 10;

/**
 * The platform clients' history calls as backfill uses them; every call passes the clients'
 * gate (the shared rate limiter) and fails with a typed error (a refusal carries its delay).
 */
export interface PlatformHistoryApi {
  slackHistory(
    credential: PlatformCredential,
    params: { channel: string; limit: number; cursor?: string; latest?: string },
  ): Promise<{ messages: readonly unknown[]; nextCursor: string }>;
  slackReplies(
    credential: PlatformCredential,
    params: { channel: string; ts: string; limit: number; cursor?: string },
  ): Promise<{ messages: readonly unknown[]; nextCursor: string }>;
  discordMessages(
    credential: PlatformCredential,
    params: { channelId: string; limit: number; before?: string },
  ): Promise<readonly unknown[]>;
}

interface BackfillOutcome {
  status: 'fetched' | 'marked' | 'unavailable' | 'failed';
  calls: number;
  messages: number;
  /** Set when the read serves stored data that may be incomplete. */
  note: string | null;
}

interface HistoryReport extends BackfillOutcome {
  complete: boolean;
  pages: number;
}

/** The platform's "before this message" for an anchor: Slack `latest` (a ts), Discord `before` (a snowflake). */
function beforeAnchor(platform: string, anchor: { messageId: string; ts: number }): string | undefined {
  if (platform === 'slack') return slackTs(anchor.messageId) ?? (anchor.ts / 1000).toFixed(6);
  return /^\d{1,20}$/.test(anchor.messageId) ? anchor.messageId : undefined;
}

const none = (status: BackfillOutcome['status']): BackfillOutcome => ({
  status,
  calls: 0,
  messages: 0,
  note: null,
});

export function createBackfillService(deps: {
  db: Db;
  backfills: BackfillRepository;
  ingest: Pick<IngestService, 'ingest'>;
  api: PlatformHistoryApi;
  credentials: {
    credentialFor(params: {
      tenantId: string;
      platform: PlatformCredential['platform'];
    }): Promise<PlatformCredential | null>;
  };
  locks: LockManager;
  clock: Clock;
  enabled: boolean;
  /** How long a read waits for another replica's backfill of the same channel or thread. */
  lockWaitMs: number;
  metrics?: BackfillMetrics;
}) {
  const { db, backfills, api, clock } = deps;

  async function credentialOf(scope: ChannelScope): Promise<PlatformCredential | null> {
    if (!deps.enabled || !HISTORY_PLATFORMS.has(scope.platform)) return null;
    return deps.credentials.credentialFor({
      tenantId: scope.tenantId,
      platform: scope.platform as PlatformCredential['platform'],
    });
  }

  /** One API call for one page of history. */
  async function fetchPage(
    scope: ChannelScope,
    credential: PlatformCredential,
    request: { threadId?: string; cursor?: string; before?: string; limit: number },
  ): Promise<HistoryPage> {
    const receivedAt = clock.now();
    const { channelId } = scope;
    if (scope.platform === 'slack') {
      const paging = { limit: request.limit, ...(request.cursor ? { cursor: request.cursor } : {}) };
      const page = request.threadId
        ? await api.slackReplies(credential, { channel: channelId, ts: request.threadId, ...paging })
        : await api.slackHistory(credential, {
            channel: channelId,
            ...paging,
            ...(request.before ? { latest: request.before } : {}),
          });
      return slackHistoryPage(channelId, page, receivedAt);
    }
    const messages = await api.discordMessages(credential, {
      channelId: request.threadId ?? channelId,
      limit: request.limit,
      ...(request.before ? { before: request.before } : {}),
    });
    return discordHistoryPage(channelId, messages, receivedAt, {
      limit: request.limit,
      ...(request.threadId ? { threadId: request.threadId } : {}),
    });
  }

  /** Ingests the fetched events and writes the mark in one transaction: all or nothing. */
  async function store(
    scope: ChannelScope & { threadId: string },
    events: ChannelEvent[],
    mark: { messages: number; calls: number; complete: boolean },
  ) {
    await db.transaction(async (tx) => {
      if (events.length > 0) await deps.ingest.ingest({ tenantId: scope.tenantId, events }, tx);
      await backfills.putMark({ ...scope, ...mark, backfilledAt: clock.now() }, tx);
    });
  }

  /**
   * Runs `work` once per channel/thread across replicas: a read that finds another replica
   * backfilling the channel waits for it, then sees its mark.
   */
  async function once(
    scope: ChannelScope & { threadId: string },
    what: 'channel' | 'thread',
    work: (credential: PlatformCredential) => Promise<BackfillOutcome>,
  ): Promise<BackfillOutcome> {
    const credential = await credentialOf(scope);
    if (!credential) return none('unavailable');
    if (await backfills.getMark(scope)) return none('marked');
    // One lock per channel, which its threads share: two replicas never fetch from one channel at
    // once.
    const resource = `backfill:${JSON.stringify([scope.tenantId, scope.platform, scope.channelId])}`;
    const lock = await deps.locks.acquire(resource, { tenantId: scope.tenantId, waitMs: deps.lockWaitMs });
    if (!lock) {
      return { ...none('failed'), note: staleNote(scope.platform, what, { kind: 'busy' }) };
    }
    try {
      // Another replica backfilled it while this one waited: its rows are there to read.
      if (await backfills.getMark(scope)) return none('fetched');
      const outcome = await work(credential);
      deps.metrics?.observe(scope.platform, what, 'fetched', outcome.calls);
      return outcome;
    } catch (error) {
      const failure: BackfillFailure = backfillFailure(error);
      // A refused or failed call counts once; the calls of a thread's earlier pages are not known here.
      deps.metrics?.observe(scope.platform, what, 'failed', 0);
      return { ...none('failed'), note: staleNote(scope.platform, what, failure) };
    } finally {
      await lock.release();
    }
  }

  return {
    /**
     * A channel whose adjacency window before `anchor` is not full: one page of the history
     * before the anchor (null: the newest page), once per channel.
     */
    channel(scope: ChannelScope, anchor: { messageId: string; ts: number } | null): Promise<BackfillOutcome> {
      return once({ ...scope, threadId: CHANNEL_HISTORY }, 'channel', async (credential) => {
        const limit = READ_PAGE[scope.platform as 'slack' | 'discord'];
        const before = anchor ? beforeAnchor(scope.platform, anchor) : undefined;
        const page = await fetchPage(scope, credential, { limit, ...(before ? { before } : {}) });
        await store({ ...scope, threadId: CHANNEL_HISTORY }, page.events, {
          messages: page.count,
          calls: 1,
          complete: page.next === null,
        });
        return { status: 'fetched', calls: 1, messages: page.count, note: null };
      });
    },

    /** A thread whose root is missing or that has fewer stored replies than the platform said. */
    thread(scope: ChannelScope, threadId: string): Promise<BackfillOutcome> {
      return once({ ...scope, threadId }, 'thread', async (credential) => {
        const limit = scope.platform === 'slack' ? SLACK_REPLIES_MAX_LIMIT : DISCORD_MESSAGES_MAX_LIMIT;
        const events: ChannelEvent[] = [];
        let messages = 0;
        let calls = 0;
        let next: string | null = null;
        do {
          const page = await fetchPage(scope, credential, {
            threadId,
            limit,
            ...(next ? (scope.platform === 'slack' ? { cursor: next } : { before: next }) : {}),
          });
          calls += 1;
          messages += page.count;
          events.push(...page.events);
          next = page.next;
        } while (next !== null && calls < MAX_THREAD_PAGES);
        await store({ ...scope, threadId }, events, { messages, calls, complete: next === null });
        return { status: 'fetched', calls, messages, note: null };
      });
    },

    /**
     * The channel's whole top-level history (up to `maxMessages`), newest first, in full pages;
     * each page is ingested as it comes, the mark written at the end.
     */
    async history(
      scope: ChannelScope,
      options: { maxMessages: number; pageSize?: number },
    ): Promise<HistoryReport> {
      const credential = await credentialOf(scope);
      if (!credential) return { ...none('unavailable'), complete: false, pages: 0 };
      const max = scope.platform === 'slack' ? SLACK_HISTORY_MAX_LIMIT : DISCORD_MESSAGES_MAX_LIMIT;
      const limit = Math.min(max, Math.max(1, options.pageSize ?? max));
      let calls = 0;
      let messages = 0;
      let next: string | null = null;
      try {
        do {
          const page = await fetchPage(scope, credential, {
            limit,
            ...(next ? (scope.platform === 'slack' ? { cursor: next } : { before: next }) : {}),
          });
          calls += 1;
          messages += page.count;
          next = page.next;
          if (page.events.length > 0)
            await deps.ingest.ingest({ tenantId: scope.tenantId, events: page.events });
        } while (next !== null && messages < options.maxMessages);
      } catch (error) {
        return {
          status: 'failed',
          calls,
          messages,
          note: staleNote(scope.platform, 'channel', backfillFailure(error)),
          complete: false,
          pages: calls,
        };
      }
      const complete = next === null;
      await store({ ...scope, threadId: CHANNEL_HISTORY }, [], { messages, calls, complete });
      return { status: 'fetched', calls, messages, note: null, complete, pages: calls };
    },
  };
}

export type BackfillService = ReturnType<typeof createBackfillService>;
