// Resolves author ids to display names through the platform API, off the request path: ids are
// queued (deduplicated, bounded) by ingest and by reads that met an unknown id, and one worker per
// process looks them up with the tenant's token, storing names (and "unknown user" as a negative
// entry) in the directory. Transient failures store nothing, so a later read queues the id again.
import type { Clock } from '../../shared/clock.js';
import type { PlatformApis } from '../../platforms/api/platform-api.js';
import type { PlatformCredential } from '../../platforms/api/platform-call.js';
import { PlatformApiError } from '../../platforms/api/platform-errors.js';
import { discordDisplayName, isStale, slackDisplayName } from './core/display-names.js';
import type { PlatformCredentialsService } from './platform-credentials.service.js';
import type { DirectoryEntry, UserDirectoryRepository } from './user-directory.repository.js';

/** Platforms whose API can name a user from its id alone. */
const RESOLVABLE = new Set(['slack', 'discord']);
/** How long "the platform does not know this user" is believed. */
export const NEGATIVE_TTL_MS = 3_600_000;
/** Failures after which the rest of a tenant's batch is left for later (the token or the platform is the problem). */
const STOP_BATCH = new Set([
  'rate_limited',
  'unauthorized',
  'address_refused',
  'host_refused',
  'timeout',
  'network',
]);

interface Batch {
  tenantId: string;
  platform: 'slack' | 'discord';
  userIds: Set<string>;
}

export function createUserResolver(deps: {
  directory: UserDirectoryRepository;
  credentials: Pick<PlatformCredentialsService, 'credentialFor'>;
  apis: PlatformApis;
  clock: Clock;
  ttlMs: number;
  /** Most ids waiting at once; more are dropped (a later read queues them again). */
  maxPending?: number;
  onError?: (error: unknown) => void;
}) {
  const maxPending = deps.maxPending ?? 1000;
  const pending = new Map<string, Batch>();
  let pendingCount = 0;
  let running: Promise<void> | null = null;
  let closed = false;

  async function lookup(credential: PlatformCredential, userId: string): Promise<DirectoryEntry> {
    if (credential.platform === 'slack') {
      const user = await deps.apis.slack.usersInfo(credential, userId);
      return { userId, ...slackDisplayName(user), isBot: user.is_bot ?? false };
    }
    // With a guild the member's nickname is what the guild sees; without one, the global name.
    if (credential.workspaceId) {
      const member = await deps.apis.discord.guildMember(credential, credential.workspaceId, userId);
      const user = member.user ?? (await deps.apis.discord.user(credential, userId));
      return { userId, ...discordDisplayName(user, member), isBot: user.bot ?? false };
    }
    const user = await deps.apis.discord.user(credential, userId);
    return { userId, ...discordDisplayName(user), isBot: user.bot ?? false };
  }

  async function resolveBatch({ tenantId, platform, userIds }: Batch): Promise<void> {
    const credential = await deps.credentials.credentialFor({ tenantId, platform });
    if (!credential) return;
    const ids = [...userIds];
    const rows = new Map(
      (await deps.directory.find({ tenantId, platform, userIds: ids })).map((r) => [r.userId, r]),
    );
    for (const userId of ids) {
      if (closed) return;
      const now = deps.clock.now();
      if (!isStale(rows.get(userId), now, deps.ttlMs, NEGATIVE_TTL_MS)) continue;
      let entry: DirectoryEntry;
      try {
        entry = await lookup(credential, userId);
      } catch (error) {
        if (error instanceof PlatformApiError && error.kind === 'not_found') {
          entry = { userId, displayName: null, realName: null, isBot: false };
        } else {
          deps.onError?.(error);
          if (error instanceof PlatformApiError && STOP_BATCH.has(error.kind)) return;
          continue;
        }
      }
      await deps.directory.upsertResolved({ tenantId, platform, user: entry, at: now });
    }
  }

  async function drain(): Promise<void> {
    while (!closed && pending.size > 0) {
      const [key, batch] = pending.entries().next().value as [string, Batch];
      pending.delete(key);
      pendingCount -= batch.userIds.size;
      await resolveBatch(batch).catch((error: unknown) => deps.onError?.(error));
    }
  }

  function schedule(tenantId: string, platform: string, userIds: Iterable<string>): void {
    if (closed || !RESOLVABLE.has(platform)) return;
    const key = `${tenantId}\u0000${platform}`;
    let batch = pending.get(key);
    for (const id of userIds) {
      if (pendingCount >= maxPending) break;
      if (!batch) {
        batch = { tenantId, platform: platform as Batch['platform'], userIds: new Set() };
        pending.set(key, batch);
      }
      if (batch.userIds.has(id)) continue;
      batch.userIds.add(id);
      pendingCount += 1;
    }
    if (pendingCount > 0 && !running) running = drain().finally(() => (running = null));
  }

  return {
    /** Queues ids for resolution; returns at once. Platforms without a by-id lookup are skipped. */
    schedule,

    /** Queues the authors of ingested events that came without a name. */
    scheduleAuthors(
      tenantId: string,
      events: readonly { platform: string; author?: { id: string; name?: string } }[],
    ) {
      const byPlatform = new Map<string, Set<string>>();
      for (const event of events) {
        if (!event.author || event.author.name) continue;
        const ids = byPlatform.get(event.platform) ?? new Set<string>();
        ids.add(event.author.id);
        byPlatform.set(event.platform, ids);
      }
      for (const [platform, ids] of byPlatform) schedule(tenantId, platform, ids);
    },

    /** Resolves when everything queued so far has been looked up (tests, shutdown). */
    async settle(): Promise<void> {
      while (running) await running;
    },

    /** Stops taking work and waits for the lookup under way. */
    async close(): Promise<void> {
      closed = true;
      await this.settle();
    },
  };
}

export type UserResolver = ReturnType<typeof createUserResolver>;
