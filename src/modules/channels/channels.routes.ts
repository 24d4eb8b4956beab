// Channel reads: the ChannelSnapshot around an anchor message, a thread with token budgeting, and
// the message list (time window, cursor paging). Another tenant's channel simply has no messages.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_ADJACENT_COUNT } from './core/snapshot.js';
import { DEFAULT_THREAD_BUDGET } from './core/thread-budget.js';
import { MAX_LIST_LIMIT } from './channels.service.js';
import type { Services } from '../services.js';
import {
  channelSnapshotSchema,
  threadContextSchema,
  channelMessageSchema,
  channelParams,
  isoTime,
  readNotes,
} from './channels.schemas.js';

export function channelsRoutes(services: Services): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/channels/:platform/:channelId/snapshot',
      {
        schema: {
          operationId: 'getChannelSnapshot',
          tags: ['channels'],
          summary: 'ChannelSnapshot: the anchor message in full and the top-level messages before it',
          params: channelParams,
          querystring: z.object({
            anchor: z.string().min(1).max(256).describe('message id of the anchor'),
            adjacent: z.coerce.number().int().min(0).max(200).default(DEFAULT_ADJACENT_COUNT),
          }),
          response: { 200: channelSnapshotSchema.extend({ notes: readNotes }) },
        },
      },
      async (request) =>
        services.channels.getSnapshot({
          tenantId: request.tenantId,
          ...request.params,
          anchorId: request.query.anchor,
          adjacentCount: request.query.adjacent,
        }),
    );

    app.get(
      '/channels/:platform/:channelId/threads/:threadId',
      {
        schema: {
          operationId: 'getThread',
          tags: ['channels'],
          summary: 'ThreadContext: the root in full and the most recent replies within a token budget',
          params: channelParams.extend({ threadId: z.string().min(1).max(256) }),
          querystring: z.object({
            budget: z.coerce
              .number()
              .int()
              .min(0)
              .max(1_000_000)
              .optional()
              .describe(`tokens, default ${DEFAULT_THREAD_BUDGET}`),
            max_replies: z.coerce.number().int().min(0).max(1000).optional(),
          }),
          response: { 200: threadContextSchema.extend({ notes: readNotes }) },
        },
      },
      async (request) =>
        services.channels.getThread({
          tenantId: request.tenantId,
          platform: request.params.platform,
          channelId: request.params.channelId,
          threadId: request.params.threadId,
          ...(request.query.budget !== undefined ? { budget: request.query.budget } : {}),
          ...(request.query.max_replies !== undefined ? { maxReplies: request.query.max_replies } : {}),
        }),
    );

    app.get(
      '/channels/:platform/:channelId/messages',
      {
        schema: {
          operationId: 'listChannelMessages',
          tags: ['channels'],
          summary: 'Messages of a channel in a time window, oldest first, cursor-paginated',
          params: channelParams,
          querystring: z.object({
            since: isoTime.optional().describe('inclusive'),
            until: isoTime.optional().describe('exclusive'),
            cursor: z.string().max(1024).optional(),
            limit: z.coerce.number().int().min(1).max(MAX_LIST_LIMIT).default(100),
            top_level: z
              .enum(['true', 'false'])
              .optional()
              .describe('only messages not inside a thread (thread roots included)'),
          }),
          response: {
            200: z.object({ messages: z.array(channelMessageSchema), next_cursor: z.string().nullable() }),
          },
        },
      },
      async (request) => {
        const q = request.query;
        return services.channels.listMessages({
          tenantId: request.tenantId,
          ...request.params,
          ...(q.since ? { since: new Date(q.since) } : {}),
          ...(q.until ? { until: new Date(q.until) } : {}),
          ...(q.cursor ? { cursor: q.cursor } : {}),
          limit: q.limit,
          topLevelOnly: q.top_level === 'true',
        });
      },
    );
  };
}
