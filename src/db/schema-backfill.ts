// Backfill marks, re-exported by schema.ts: which channels and threads have had their history
// fetched from the platform, so a read decides "cold" from stored state and never asks twice.
import { boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './schema-columns.js';

export const channelBackfills = pgTable(
  'channel_backfills',
  {
    tenantId: text('tenant_id').notNull(),
    platform: text('platform').notNull(),
    channelId: text('channel_id').notNull(),
    /** '' for the channel's top-level history, else the thread (root message id or topic). */
    threadId: text('thread_id').notNull().default(''),
    /** Messages the platform returned (and ingest applied, new or not). */
    messages: integer('messages').notNull(),
    /** API calls it took. */
    calls: integer('calls').notNull(),
    /** false: stopped at a message cap before the start of the history. */
    complete: boolean('complete').notNull(),
    backfilledAt: ts('backfilled_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.platform, t.channelId, t.threadId] })],
);
