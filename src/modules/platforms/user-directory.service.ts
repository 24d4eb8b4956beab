// The tenant's user directory: entries pushed by the bot (PUT /v1/platforms/{platform}/users) and
// names resolved through the platform API. Reads fill in the names of authors stored by id only;
// the fill reads stored state alone (so the same state renders the same bytes) and queues unknown
// ids for the resolver.
import type { Executor } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import { isStale } from './core/display-names.js';
import type { DirectoryEntry, UserDirectoryRepository } from './user-directory.repository.js';
import { NEGATIVE_TTL_MS, type UserResolver } from './user-resolver.service.js';
import { platformUserNotFound, pushedUsersDuplicate } from './platforms.errors.js';

/** What the fill needs of a message. */
interface AuthoredMessage {
  platform: string;
  authorId: string | null;
  authorName: string | null;
  authorIsBot: boolean;
}

export function createUserDirectoryService(deps: {
  directory: UserDirectoryRepository;
  resolver: Pick<UserResolver, 'schedule'>;
  clock: Clock;
  ttlMs: number;
}) {
  const { directory } = deps;
  return {
    /** Stores (or replaces) the pushed entries; ids must be unique within one call. */
    async push(params: { tenantId: string; platform: string; users: DirectoryEntry[] }, tx?: Executor) {
      const seen = new Map<string, number>();
      params.users.forEach((u, i) => {
        const first = seen.get(u.userId);
        if (first !== undefined) throw pushedUsersDuplicate(u.userId, first, i);
        seen.set(u.userId, i);
      });
      const at = deps.clock.now();
      await directory.upsertPushed({ ...params, at }, tx);
      return { platform: params.platform, stored: params.users.length, updated_at: at.toISOString() };
    },

    async get(params: { tenantId: string; platform: string; userId: string }) {
      const [row] = await directory.find({ ...params, userIds: [params.userId] });
      if (!row || row.displayName === null) throw platformUserNotFound(params.platform, params.userId);
      return {
        user_id: row.userId,
        display_name: row.displayName,
        real_name: row.realName,
        is_bot: row.isBot,
        source: row.source,
        fetched_at: row.fetchedAt.toISOString(),
      };
    },

    /**
     * Messages whose author is stored by id only get the directory's name (one lookup per
     * platform); ids without a fresh entry are queued for resolution, never awaited.
     */
    async fillNames<T extends AuthoredMessage>(tenantId: string, messages: T[]): Promise<T[]> {
      const idsByPlatform = new Map<string, Set<string>>();
      for (const m of messages) {
        if (m.authorName !== null || m.authorId === null) continue;
        const ids = idsByPlatform.get(m.platform) ?? new Set<string>();
        ids.add(m.authorId);
        idsByPlatform.set(m.platform, ids);
      }
      if (idsByPlatform.size === 0) return messages;
      const names = new Map<string, { name: string; isBot: boolean }>();
      const now = deps.clock.now();
      for (const [platform, ids] of idsByPlatform) {
        const rows = await directory.find({ tenantId, platform, userIds: [...ids] });
        const byId = new Map(rows.map((r) => [r.userId, r]));
        for (const row of rows) {
          if (row.displayName !== null) {
            names.set(`${platform}\u0000${row.userId}`, { name: row.displayName, isBot: row.isBot });
          }
        }
        const stale = [...ids].filter((id) => isStale(byId.get(id), now, deps.ttlMs, NEGATIVE_TTL_MS));
        if (stale.length > 0) deps.resolver.schedule(tenantId, platform, stale);
      }
      return messages.map((m) => {
        const found =
          m.authorName === null && m.authorId !== null
            ? names.get(`${m.platform}\u0000${m.authorId}`)
            : undefined;
        return found ? { ...m, authorName: found.name, authorIsBot: m.authorIsBot || found.isBot } : m;
      });
    },
  };
}

export type UserDirectoryService = ReturnType<typeof createUserDirectoryService>;
