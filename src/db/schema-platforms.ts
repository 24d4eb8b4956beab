// Platform API access, re-exported by schema.ts: per-tenant bot tokens (encrypted at rest when a
// key is configured) and the user directory that turns author ids into display names.
import { boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenants } from './schema.js';
import { createdAt, ts } from './schema-columns.js';

/** One bot token per tenant and platform; no API returns `token`. */
export const platformCredentials = pgTable(
  'platform_credentials',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    /** Slack team id or Discord guild id the token belongs to, when the caller says so. */
    workspaceId: text('workspace_id'),
    /** `enc:v1:…` (AES-256-GCM under PLATFORM_TOKEN_KEY) or `plain:…` when no key is configured. */
    token: text('token').notNull(),
    /** The token's last 4 characters: enough to tell two tokens apart, useless to an attacker. */
    tokenHint: text('token_hint').notNull(),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.platform] })],
);

/** Display names of platform users: pushed by the bot or resolved through the platform API. */
export const platformUsers = pgTable(
  'platform_users',
  {
    tenantId: text('tenant_id').notNull(),
    platform: text('platform').notNull(),
    userId: text('user_id').notNull(),
    /** Null: the platform said the user does not exist (a negative cache entry). */
    displayName: text('display_name'),
    realName: text('real_name'),
    isBot: boolean('is_bot').notNull().default(false),
    source: text('source', { enum: ['pushed', 'resolved'] }).notNull(),
    fetchedAt: ts('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.platform, t.userId] })],
);
