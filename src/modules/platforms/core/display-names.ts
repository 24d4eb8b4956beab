// Which name a platform user is shown by, and when a stored directory entry is due for a refresh.
import type { DiscordMember, DiscordUser } from '../../../platforms/api/discord-api.js';
import type { SlackUser } from '../../../platforms/api/slack-api.js';

const nonEmpty = (v: string | null | undefined) => (v && v.trim() !== '' ? v.trim() : null);

/** Slack: the profile's display name, else the real name, else the handle. */
export function slackDisplayName(user: SlackUser): { displayName: string; realName: string | null } {
  const realName = nonEmpty(user.profile?.real_name) ?? nonEmpty(user.real_name);
  return {
    displayName: nonEmpty(user.profile?.display_name) ?? realName ?? nonEmpty(user.name) ?? user.id,
    realName,
  };
}

/** Discord: the guild nickname, else the global display name, else the username. */
export function discordDisplayName(
  user: DiscordUser,
  member?: DiscordMember,
): { displayName: string; realName: string | null } {
  return {
    displayName: nonEmpty(member?.nick) ?? nonEmpty(user.global_name) ?? user.username,
    realName: null,
  };
}

interface EntryAge {
  source: 'pushed' | 'resolved';
  displayName: string | null;
  fetchedAt: Date;
}

/** Pushed entries never expire; resolved ones after `ttlMs`, negative ones after `negativeTtlMs`. */
export function isStale(
  entry: EntryAge | undefined,
  now: Date,
  ttlMs: number,
  negativeTtlMs: number,
): boolean {
  if (!entry) return true;
  if (entry.source === 'pushed') return false;
  const age = now.getTime() - entry.fetchedAt.getTime();
  return age >= (entry.displayName === null ? negativeTtlMs : ttlMs);
}
