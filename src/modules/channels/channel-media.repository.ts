// Which channel message references a media artifact: the scope check of `channel_messages` media
// fetches (docs/design.md §6.11), so a tool input reaches only media posted in the session's own channel.
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { channelMessages } from '../../db/schema.js';

export function createChannelMediaRepository(db: Executor) {
  return {
    /**
     * The earliest live (not deleted) message of the channel whose media refs name the artifact,
     * or null. Reads the channel's rows through its (tenant, platform, channel, ts) index and
     * filters by jsonb containment: bounded by the channel's size, fine for a tool call.
     */
    async findReferencingMessage(
      params: { tenantId: string; platform: string; channelId: string; artifactId: string },
      tx: Executor = db,
    ): Promise<{ messageId: string; threadId: string | null } | null> {
      const [row] = await tx
        .select({ messageId: channelMessages.messageId, threadId: channelMessages.threadId })
        .from(channelMessages)
        .where(
          and(
            eq(channelMessages.tenantId, params.tenantId),
            eq(channelMessages.platform, params.platform),
            eq(channelMessages.channelId, params.channelId),
            isNull(channelMessages.deletedAt),
            sql`${channelMessages.media} @> ${JSON.stringify([{ artifact_id: params.artifactId }])}::jsonb`,
          ),
        )
        .orderBy(asc(channelMessages.ts), asc(channelMessages.messageId))
        .limit(1);
      return row ?? null;
    },
  };
}

export type ChannelMediaRepository = ReturnType<typeof createChannelMediaRepository>;
