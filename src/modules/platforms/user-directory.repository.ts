// SQL for the platform user directory: display names pushed by the bot or resolved through the
// platform API (a null name is a negative entry: the platform does not know the user).
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { platformUsers } from '../../db/schema.js';

type PlatformUserRow = typeof platformUsers.$inferSelect;

export interface DirectoryEntry {
  userId: string;
  displayName: string | null;
  realName: string | null;
  isBot: boolean;
}

export function createUserDirectoryRepository(db: Executor) {
  return {
    /** Rows for these ids (negative entries included). One indexed lookup. */
    async find(
      { tenantId, platform, userIds }: { tenantId: string; platform: string; userIds: string[] },
      tx: Executor = db,
    ): Promise<PlatformUserRow[]> {
      if (userIds.length === 0) return [];
      return tx
        .select()
        .from(platformUsers)
        .where(
          and(
            eq(platformUsers.tenantId, tenantId),
            eq(platformUsers.platform, platform),
            inArray(platformUsers.userId, userIds),
          ),
        );
    },

    /** Pushed entries replace whatever is stored for their ids. */
    async upsertPushed(
      {
        tenantId,
        platform,
        users,
        at,
      }: { tenantId: string; platform: string; users: DirectoryEntry[]; at: Date },
      tx: Executor = db,
    ) {
      if (users.length === 0) return;
      await tx
        .insert(platformUsers)
        .values(users.map((u) => ({ tenantId, platform, ...u, source: 'pushed' as const, fetchedAt: at })))
        .onConflictDoUpdate({
          target: [platformUsers.tenantId, platformUsers.platform, platformUsers.userId],
          set: {
            displayName: sql`excluded.display_name`,
            realName: sql`excluded.real_name`,
            isBot: sql`excluded.is_bot`,
            source: sql`excluded.source`,
            fetchedAt: sql`excluded.fetched_at`,
          },
        });
    },

    /** A resolved entry; never overwrites a pushed one. */
    async upsertResolved(
      {
        tenantId,
        platform,
        user,
        at,
      }: { tenantId: string; platform: string; user: DirectoryEntry; at: Date },
      tx: Executor = db,
    ) {
      await tx
        .insert(platformUsers)
        .values({ tenantId, platform, ...user, source: 'resolved', fetchedAt: at })
        .onConflictDoUpdate({
          target: [platformUsers.tenantId, platformUsers.platform, platformUsers.userId],
          set: { displayName: user.displayName, realName: user.realName, isBot: user.isBot, fetchedAt: at },
          setWhere: ne(platformUsers.source, 'pushed'),
        });
    },
  };
}

export type UserDirectoryRepository = ReturnType<typeof createUserDirectoryRepository>;
