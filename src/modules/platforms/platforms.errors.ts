// Errors of platform credentials and the user directory, with stable codes (docs/platforms.md).
import { badRequest, notFound, unavailable } from '../../shared/errors.js';
import type { FormatProblem } from './core/token-format.js';

export const credentialFormatInvalid = (problems: FormatProblem[]) =>
  badRequest('platform.credentials_invalid', `${problems[0]!.path}: ${problems[0]!.message}`, problems);

export const platformUserNotFound = (platform: string, userId: string) =>
  notFound('platform_user.not_found', `no ${platform} user ${userId} in the directory`, {
    platform,
    user_id: userId,
  });

export const pushedUsersDuplicate = (userId: string, first: number, again: number) =>
  badRequest(
    'platform.users_duplicate',
    `body.users.${again}.user_id: ${userId} is also at body.users.${first}`,
    [{ path: `body.users.${again}.user_id`, message: `duplicate of body.users.${first}.user_id` }],
  );

export const tokenKeyMissing = () =>
  unavailable(
    'platform.token_key_missing',
    'bot tokens are not stored unencrypted in production: the operator must set PLATFORM_TOKEN_KEY',
  );
