// Errors of the built-in tools, with stable codes (docs/api.md lists them).
import { badRequest, notFound, unprocessable } from '../../shared/errors.js';

export const toolNotFound = (name: string) =>
  notFound('tools.not_found', `no built-in tool named "${name}"`, { name });

export const toolNeedsChannel = (name: string) =>
  unprocessable('tools.no_channel', `"${name}" needs a session bound to a channel`, { name });

export const toolInvalidInput = (details: { path: string; message: string; code: string }[]) =>
  badRequest('tools.invalid_input', `${details[0]!.path}: ${details[0]!.message}`, details);

export const toolMediaNotFound = (artifactId: string) =>
  notFound('tools.media_not_found', `no media artifact ${artifactId} in this channel`, {
    path: 'body.input.media_artifact_id',
    artifact_id: artifactId,
  });
