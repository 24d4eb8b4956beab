// Request and reply shapes of /v1/platforms/{platform}/…: bot tokens (never returned) and the user
// directory.
import { z } from 'zod';
import { supportedPlatforms } from '../../platforms/index.js';
import { platformName, storable } from '../../shared/channel-events.js';

export const tokenPlatformParams = z.object({
  platform: z.enum(supportedPlatforms).describe('a platform whose API contextd can call'),
});

export const credentialsBody = z.strictObject({
  bot_token: z
    .string()
    .min(1)
    .max(512)
    .describe('Slack xoxb-…, Discord bot token, Telegram <id>:<secret>; stored, never returned'),
  workspace_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Slack team id (T…) or Discord guild id the token is used in; not for Telegram'),
});

export const credentialsView = z.object({
  platform: z.enum(supportedPlatforms),
  configured: z.boolean(),
  workspace_id: z.string().nullable(),
  /** Last 4 characters of the token; null when none is stored. */
  token_hint: z.string().nullable(),
  /** Sealed with PLATFORM_TOKEN_KEY (AES-256-GCM) at rest. */
  encrypted: z.boolean(),
  updated_at: z.string().nullable(),
});
export type CredentialsView = z.infer<typeof credentialsView>;

export const directoryPlatformParams = z.object({ platform: platformName });

const directoryText = (max: number) => storable(z.string().min(1).max(max));

export const pushUsersBody = z.strictObject({
  users: z
    .array(
      z.strictObject({
        user_id: directoryText(256),
        display_name: directoryText(256),
        real_name: directoryText(256).optional(),
        is_bot: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(1000)
    .describe('entries to store or replace (others stay); at most 1000 per call, ids unique'),
});

export const pushUsersReply = z.object({
  platform: z.string(),
  stored: z.number().int(),
  updated_at: z.string(),
});

export const directoryUserView = z.object({
  user_id: z.string(),
  display_name: z.string(),
  real_name: z.string().nullable(),
  is_bot: z.boolean(),
  source: z.enum(['pushed', 'resolved']),
  fetched_at: z.string(),
});
