// Errors of channel reads, with stable codes (docs/api.md lists them).
import { badRequest, notFound } from '../../shared/errors.js';

export const channelMessageNotFound = (messageId: string) =>
  notFound('channel_message.not_found', `no message ${messageId} in this channel`, { message_id: messageId });

export const channelThreadNotFound = (threadId: string) =>
  notFound('channel_thread.not_found', `no thread ${threadId} in this channel`);

export const cursorInvalid = () =>
  badRequest('cursor.invalid', 'the cursor is not one this endpoint returned', {
    path: 'querystring.cursor',
  });
