// The platform API clients a tenant's token opens (Slack Web API, Discord REST, Telegram Bot API),
// the hosts each may talk to, and the gate every call passes (a rate limiter plugs in there).
import type { Config } from '../../config.js';
import type { SupportedPlatform } from '../index.js';
import { createAddressGuard } from './address-guard.js';
import { createPlatformHttp } from './platform-http.js';
import { openCallGate, type PlatformCallGate, type PlatformClientDeps } from './platform-call.js';
import { createDiscordApi } from './discord-api.js';
import { createSlackApi } from './slack-api.js';
import { createTelegramApi } from './telegram-api.js';

/** Public hosts each platform serves its API and files from; the configured base URL's host joins them. */
const KNOWN_HOSTS: Record<SupportedPlatform, readonly string[]> = {
  slack: ['slack.com', 'files.slack.com', 'slack-files.com'],
  discord: ['discord.com', 'cdn.discordapp.com', 'media.discordapp.net'],
  telegram: ['api.telegram.org'],
};

export function createPlatformApis(
  config: Pick<
    Config,
    | 'SLACK_API_URL'
    | 'DISCORD_API_URL'
    | 'TELEGRAM_API_URL'
    | 'PLATFORM_TIMEOUT_MS'
    | 'PLATFORM_RESPONSE_LIMIT_BYTES'
    | 'PLATFORM_FETCH_ALLOW'
    | 'BLOB_LIMIT_BYTES'
  >,
  gate: PlatformCallGate = openCallGate,
) {
  const http = createPlatformHttp({
    guard: createAddressGuard(config.PLATFORM_FETCH_ALLOW),
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
  });
  const depsFor = (platform: SupportedPlatform, baseUrl: string): PlatformClientDeps => ({
    http,
    gate,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    hosts: new Set([...KNOWN_HOSTS[platform], new URL(baseUrl).host]),
    responseLimitBytes: config.PLATFORM_RESPONSE_LIMIT_BYTES,
    mediaLimitBytes: config.BLOB_LIMIT_BYTES,
  });
  return {
    slack: createSlackApi(depsFor('slack', config.SLACK_API_URL)),
    discord: createDiscordApi(depsFor('discord', config.DISCORD_API_URL)),
    telegram: createTelegramApi(depsFor('telegram', config.TELEGRAM_API_URL)),
  };
}

export type PlatformApis = ReturnType<typeof createPlatformApis>;
