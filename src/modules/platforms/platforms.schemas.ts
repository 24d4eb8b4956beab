// Request and reply shapes of /v1/platforms/{platform}/…: bot tokens (never returned) and users.
import { z } from 'zod';
import { supportedPlatforms } from '../../platforms/index.js';

export const tokenPlatformParams = z.object({
  platform: z.enum(supportedPlatforms).describe('a platform whose API contextd can call'),
});

export const credentialsBody = z.object({
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
