// Errors of platform credentials and the user directory, with stable codes (docs/platforms.md).
import { badRequest, notFound } from '../../shared/errors.js';
import type { FormatProblem } from './core/token-format.js';

export const credentialsNotConfigured = (platform: string) =>
  notFound('platform.credentials_not_configured', `no ${platform} bot token is stored for this tenant`, {
    platform,
  });

export const credentialFormatInvalid = (problems: FormatProblem[]) =>
  badRequest('platform.credentials_invalid', `${problems[0]!.path}: ${problems[0]!.message}`, problems);
