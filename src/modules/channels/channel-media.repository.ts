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

/** What a fetched media file adds to the message's ref. */
interface FetchedRefPatch {
  artifact_id: string;
  sha256: string;
  byte_length: number;
  media_type: string;
  width?: number;
  height?: number;
}

export function createChannelMediaWriter(db: Executor) {
  return {
    /**
     * Records that the media ref with this URL (and no artifact yet) of the message is now the
     * stored blob: later reads attach it without fetching, and `channel_messages` can serve it.
     */
    async attachArtifact(
      params: {
        tenantId: string;
        platform: string;
        channelId: string;
        messageId: string;
        url: string;
        patch: FetchedRefPatch;
      },
      tx: Executor = db,
    ) {
      await tx.execute(sql`update channel_messages set media = coalesce((
          select jsonb_agg(case when e->>'url' = ${params.url} and not (e ? 'artifact_id')
                                then e || ${JSON.stringify(params.patch)}::jsonb else e end order by ord)
            from jsonb_array_elements(media) with ordinality as t(e, ord)), '[]'::jsonb)
        where tenant_id = ${params.tenantId} and platform = ${params.platform}
          and channel_id = ${params.channelId} and message_id = ${params.messageId}`);
    },
  };
}

export type ChannelMediaWriter = ReturnType<typeof createChannelMediaWriter>;

export type ChannelMediaRepository = ReturnType<typeof createChannelMediaRepository>;
