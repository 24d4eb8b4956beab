// The SQL of backfill marks: which channels and threads had their history fetched from the
// platform. A mark is written in the transaction that ingests what was fetched.
import { and, eq } from 'drizzle-orm';
import { channelBackfills } from '../../db/schema.js';
import type { Executor } from '../../db/client.js';
import type { ChannelScope } from './channel-rows.repository.js';

interface BackfillMark {
  messages: number;
  calls: number;
  complete: boolean;
  backfilledAt: Date;
}

/** '' stands for the channel's top-level history. */
export const CHANNEL_HISTORY = '';

export function createBackfillRepository(db: Executor) {
  return {
    async getMark(
      scope: ChannelScope & { threadId: string },
      tx: Executor = db,
    ): Promise<BackfillMark | null> {
      const [row] = await tx
        .select({
          messages: channelBackfills.messages,
          calls: channelBackfills.calls,
          complete: channelBackfills.complete,
          backfilledAt: channelBackfills.backfilledAt,
        })
        .from(channelBackfills)
        .where(
          and(
            eq(channelBackfills.tenantId, scope.tenantId),
            eq(channelBackfills.platform, scope.platform),
            eq(channelBackfills.channelId, scope.channelId),
            eq(channelBackfills.threadId, scope.threadId),
          ),
        );
      return row ?? null;
    },

    async putMark(
      scope: ChannelScope & { threadId: string } & BackfillMark,
      tx: Executor = db,
    ): Promise<void> {
      const values = {
        tenantId: scope.tenantId,
        platform: scope.platform,
        channelId: scope.channelId,
        threadId: scope.threadId,
        messages: scope.messages,
        calls: scope.calls,
        complete: scope.complete,
        backfilledAt: scope.backfilledAt,
      };
      await tx
        .insert(channelBackfills)
        .values(values)
        .onConflictDoUpdate({
          target: [
            channelBackfills.tenantId,
            channelBackfills.platform,
            channelBackfills.channelId,
            channelBackfills.threadId,
          ],
          set: {
            messages: values.messages,
            calls: values.calls,
            complete: values.complete,
            backfilledAt: values.backfilledAt,
          },
        });
    },
  };
}

export type BackfillRepository = ReturnType<typeof createBackfillRepository>;
