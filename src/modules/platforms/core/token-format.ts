// What each platform's bot token and workspace id look like, so a token pasted into the wrong
// platform (or truncated) is refused at PUT time instead of failing every later call.
import type { SupportedPlatform } from '../../../platforms/index.js';

const TOKEN_FORMATS: Record<SupportedPlatform, { pattern: RegExp; expected: string }> = {
  slack: {
    pattern: /^xox[bp]-[A-Za-z0-9-]{10,}$/,
    expected: 'a Slack bot token (xoxb-…) or user token (xoxp-…)',
  },
  discord: {
    pattern: /^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$/,
    expected: 'a Discord bot token (three dot-separated base64url parts)',
  },
  telegram: {
    pattern: /^\d{3,20}:[A-Za-z0-9_-]{30,64}$/,
    expected: 'a Telegram bot token (<bot id>:<secret>)',
  },
};

const WORKSPACE_FORMATS: Record<SupportedPlatform, { pattern: RegExp; expected: string } | null> = {
  slack: { pattern: /^[TE][A-Z0-9]{2,20}$/, expected: 'a Slack team or enterprise id (T…/E…)' },
  discord: { pattern: /^\d{15,21}$/, expected: 'a Discord guild id (a snowflake)' },
  telegram: null,
};

export interface FormatProblem {
  path: string;
  message: string;
}

/** Problems with the token and workspace id for the platform (empty: fine). Never quotes the token. */
export function credentialProblems(
  platform: SupportedPlatform,
  botToken: string,
  workspaceId: string | undefined,
): FormatProblem[] {
  const problems: FormatProblem[] = [];
  const token = TOKEN_FORMATS[platform];
  if (!token.pattern.test(botToken))
    problems.push({ path: 'body.bot_token', message: `expected ${token.expected}` });
  if (workspaceId !== undefined) {
    const workspace = WORKSPACE_FORMATS[platform];
    if (!workspace) {
      problems.push({
        path: 'body.workspace_id',
        message: `${platform} tokens have no workspace; leave it out`,
      });
    } else if (!workspace.pattern.test(workspaceId)) {
      problems.push({ path: 'body.workspace_id', message: `expected ${workspace.expected}` });
    }
  }
  return problems;
}
