// Agent tools (DESIGN §6.7): the built-in definitions for a session and running one. Every tool
// acts inside the session's tenant, channel and lane, taken from the session row; the inputs
// have no channel or lane field (unknown fields are a 400), so an input cannot reach elsewhere.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { defaultLaneKey } from '../core/session-keys.js';
import { searchTools } from '../core/tool-deferral.js';
import { badRequest, notFound, unprocessable } from '../errors.js';
import type { SessionRow, SessionsRepository } from '../store/sessions.repository.js';
import {
  builtinToolsFor,
  channelToolNames,
  isBuiltinToolName,
  type BuiltinToolName,
} from '../tools/definitions.js';
import type { ChannelSearchService } from './channel-search.service.js';
import type { ChannelsService } from './channels.service.js';
import type { ContextService } from './context.service.js';
import { visibleMemoryScopes } from './context.service.js';
import type { MemorySearchService } from './memory-search.service.js';
import type { OffloadService } from './offload.service.js';
import { sessionNotFound } from './sessions.service.js';

const id = z.string().min(1).max(256);
export const toolInputSchemas = {
  channel_context: z.strictObject({
    intent: z.string().min(1).max(2000),
    since: z.iso.datetime({ offset: true }).optional(),
    authors: z.array(id).max(20).optional(),
    max_results: z.number().int().min(1).max(50).optional(),
  }),
  channel_messages: z
    .strictObject({
      thread_id: id.optional(),
      message_ids: z.array(id).max(50).optional(),
      media_artifact_id: id.optional(),
      max_replies: z.number().int().min(1).max(500).optional(),
    })
    .refine((v) => v.thread_id || v.message_ids?.length || v.media_artifact_id, {
      message: 'give thread_id, message_ids or media_artifact_id',
    }),
  read_result: z.strictObject({
    ref_id: id,
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(65_536).optional(),
  }),
  memory_search: z.strictObject({
    query: z.string().min(1).max(2000),
    max_results: z.number().int().min(1).max(50).optional(),
  }),
  tool_search: z.strictObject({
    query: z.string().min(1).max(500),
    max_results: z.number().int().min(1).max(20).optional(),
  }),
  compact_context: z.strictObject({}),
} satisfies Record<BuiltinToolName, z.ZodType>;

export interface ToolReply {
  content: { type: 'text'; text: string }[];
  is_error: boolean;
}

const json = (value: unknown): ToolReply => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 1) }],
  is_error: false,
});

export function createToolsService(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  channels: Pick<ChannelsService, 'getChannelMessages'>;
  channelSearch: Pick<ChannelSearchService, 'searchChannel'>;
  memorySearch: Pick<MemorySearchService, 'searchMemory'>;
  offload: Pick<OffloadService, 'readResult'>;
  context: Pick<ContextService, 'lastDeferredTools'>;
  clock: Clock;
}) {
  async function loadSession(tenantId: string, sessionId: string): Promise<SessionRow> {
    const session = await deps.sessions.findById({ tenantId, id: sessionId });
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }
  const hasChannel = (s: SessionRow) => Boolean(s.platform && s.channelId);

  return {
    async listTools(params: { tenantId: string; sessionId: string }) {
      const session = await loadSession(params.tenantId, params.sessionId);
      return { tools: builtinToolsFor({ hasChannel: hasChannel(session) }) };
    },

    async runTool(params: {
      tenantId: string;
      sessionId: string;
      name: string;
      input: unknown;
    }): Promise<ToolReply> {
      const { tenantId, name } = params;
      if (!isBuiltinToolName(name)) {
        throw notFound('tools.not_found', `no built-in tool named "${name}"`, { name });
      }
      const session = await loadSession(tenantId, params.sessionId);
      if (channelToolNames.includes(name) && !hasChannel(session)) {
        throw unprocessable('tools.no_channel', `"${name}" needs a session bound to a channel`, { name });
      }
      const parsed = toolInputSchemas[name].safeParse(params.input ?? {});
      if (!parsed.success) {
        const details = parsed.error.issues.map((i) => ({
          path: ['body', 'input', ...i.path.map(String)].join('.'),
          message: i.message,
          code: i.code,
        }));
        throw badRequest('tools.invalid_input', `${details[0]!.path}: ${details[0]!.message}`, details);
      }
      const scope = { tenantId, platform: session.platform!, channelId: session.channelId! };
      const laneKey = session.turnState.last_lane_key ?? defaultLaneKey(session);
      switch (name) {
        case 'channel_context': {
          const input = parsed.data as z.infer<(typeof toolInputSchemas)['channel_context']>;
          return json(
            await deps.channelSearch.searchChannel({
              ...scope,
              intent: input.intent,
              ...(input.since ? { since: new Date(input.since) } : {}),
              ...(input.authors ? { authors: input.authors } : {}),
              ...(input.max_results ? { maxResults: input.max_results } : {}),
            }),
          );
        }
        case 'channel_messages': {
          const input = parsed.data as z.infer<(typeof toolInputSchemas)['channel_messages']>;
          if (input.media_artifact_id) {
            throw unprocessable(
              'tools.media_not_available',
              'fetching media through channel_messages is not available yet; use GET /v1/blobs/{artifactId}',
              { path: 'body.input.media_artifact_id' },
            );
          }
          return json(
            await deps.channels.getChannelMessages({
              ...scope,
              ...(input.thread_id ? { threadId: input.thread_id } : {}),
              ...(input.message_ids ? { messageIds: input.message_ids } : {}),
              ...(input.max_replies ? { maxReplies: input.max_replies } : {}),
            }),
          );
        }
        case 'read_result': {
          const input = parsed.data as z.infer<(typeof toolInputSchemas)['read_result']>;
          return json(
            await deps.offload.readResult({
              tenantId,
              sessionId: session.id,
              refId: input.ref_id,
              ...(input.offset !== undefined ? { offset: input.offset } : {}),
              ...(input.limit !== undefined ? { limit: input.limit } : {}),
            }),
          );
        }
        case 'memory_search': {
          const input = parsed.data as z.infer<(typeof toolInputSchemas)['memory_search']>;
          const max = input.max_results ?? 8;
          const scopes = visibleMemoryScopes(session);
          const reply = await deps.memorySearch.searchMemory({
            tenantId,
            query: input.query,
            sources: ['memories', 'transcript_chunks'],
            filters: { sessionKey: session.sessionKey },
            laneKey,
            now: deps.clock.now(),
            maxResults: Math.min(100, max * 3),
          });
          const results = reply.results
            .filter(
              (r) =>
                r.kind !== 'memory' ||
                scopes.has(`${String(r.source.scope)}:${String(r.source.scope_key ?? '')}`),
            )
            .slice(0, max)
            .map((r) => ({ kind: r.kind, score: r.score, time: r.time, snippet: r.snippet, text: r.text }));
          return json({ results, ...(reply.note ? { note: reply.note } : {}) });
        }
        case 'tool_search': {
          const input = parsed.data as z.infer<(typeof toolInputSchemas)['tool_search']>;
          const deferred = await deps.context.lastDeferredTools({ tenantId, sessionId: session.id });
          const matches = searchTools(deferred, input.query, input.max_results ?? 5);
          return json({
            tools: matches.map((t) => ({
              name: t.name,
              description: t.description,
              input_schema: t.input_schema ?? null,
            })),
            note:
              matches.length > 0
                ? 'These tools will be available on the next turn.'
                : deferred.length === 0
                  ? 'No tools are deferred in this session.'
                  : 'No deferred tool matches the query.',
          });
        }
        case 'compact_context':
          return {
            content: [
              {
                type: 'text',
                text: 'compact_context is not available yet: compaction has not shipped. Older turns are dropped from view automatically when the context is full.',
              },
            ],
            is_error: true,
          };
      }
    },
  };
}

export type ToolsService = ReturnType<typeof createToolsService>;
