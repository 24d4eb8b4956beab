// Agent tools (docs/design.md §6.7): the built-in definitions for a session and running one. Every tool
// acts inside the session's tenant, channel and lane, taken from the session row; the inputs
// have no channel or lane field (unknown fields are a 400), so an input cannot reach elsewhere.
import { z } from 'zod';
import type { Clock } from '../../shared/clock.js';
import {
  IMAGE_MAX_BYTES,
  IMAGE_MAX_DIMENSION,
  IMAGE_MEDIA_TYPES,
  imageDimensions,
  sniffMediaType,
  type ImageMediaType,
} from '../../shared/media.js';
import { continuedLaneKey } from '../sessions/core/session-keys.js';
import { searchTools } from './core/tool-deferral.js';
import { AppError } from '../../shared/errors.js';
import type { CompactionService } from '../compaction/compaction.service.js';
import type { BlobMeta } from '../sessions/blobs.repository.js';
import type { ChannelMediaRepository } from '../channels/channel-media.repository.js';
import type { PlatformMediaService } from '../platforms/platform-media.service.js';
import type { SessionRow, SessionsRepository } from '../sessions/sessions.repository.js';
import {
  builtinToolsFor,
  channelToolNames,
  isBuiltinToolName,
  toolInputSchemas,
  type BuiltinToolName,
} from './tools.schemas.js';
import { isTextMediaType, type BlobsService } from '../sessions/blobs.service.js';
import type { ChannelSearchService } from '../channels/channel-search.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { ContextService } from '../context/context.service.js';
import { visibleMemoryScopes } from '../memory/core/visible-scopes.js';
import { redactStrings, redactText } from '../memory/core/redaction.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import type { MemorySearchService } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { sessionNotFound } from '../sessions/sessions.errors.js';
import { toolInvalidInput, toolMediaNotFound, toolNeedsChannel, toolNotFound } from './tools.errors.js';

type ToolContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: ImageMediaType; data: string } };

export interface ToolReply {
  content: ToolContentBlock[];
  is_error: boolean;
}

/** Bytes of a text artifact returned by channel_messages (read_result reads on, like results). */
const MEDIA_TEXT_SLICE_BYTES = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A tool's reply as the model reads it: every string in it with secrets redacted (channel reads,
 * search results, offloaded results; what the store holds keeps them).
 */
const json = (value: unknown): ToolReply => ({
  content: [{ type: 'text', text: JSON.stringify(redactStrings(value), null, 1) }],
  is_error: false,
});

export function createToolsService(deps: {
  sessions: Pick<SessionsRepository, 'findById'>;
  channels: Pick<ChannelsService, 'getChannelMessages' | 'ensureChannelHistory'>;
  channelSearch: Pick<ChannelSearchService, 'searchChannel'>;
  memorySearch: Pick<MemorySearchService, 'searchMemory'>;
  offload: Pick<OffloadService, 'readResult'>;
  context: Pick<ContextService, 'lastDeferredTools'>;
  blobs: Pick<BlobsService, 'findMeta' | 'read' | 'readText'>;
  channelMedia: Pick<ChannelMediaRepository, 'findReferencingMessage'>;
  /** Fetches platform files the returned messages name, so their refs carry artifact ids. */
  platformMedia?: Pick<PlatformMediaService, 'fetchMissing'>;
  idempotency: Pick<IdempotencyService, 'runRecorded'>;
  compaction: Pick<CompactionService, 'compact'>;
  clock: Clock;
}) {
  async function loadSession(tenantId: string, sessionId: string): Promise<SessionRow> {
    const session = await deps.sessions.findById({ tenantId, id: sessionId });
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }
  const hasChannel = (s: SessionRow) => Boolean(s.platform && s.channelId);

  /**
   * A media artifact for the agent (§6.11: adjacent-thread media are fetched, never attached),
   * only when a live message of the session's channel references it; anything else — an unknown
   * id, another channel's or another tenant's artifact — is the same 404, so nothing leaks.
   * Images within the provider's limits come back as an image block, text as its first slice,
   * everything else as a one-line description.
   */
  async function channelMedia(
    scope: { tenantId: string; platform: string; channelId: string },
    artifactId: string,
  ): Promise<ToolReply> {
    const referenced = UUID.test(artifactId)
      ? await deps.channelMedia.findReferencingMessage({ ...scope, artifactId })
      : null;
    let meta: BlobMeta | null = null;
    if (referenced)
      meta = await deps.blobs.findMeta({ tenantId: scope.tenantId, artifactId }).catch(() => null);
    if (!referenced || !meta) {
      throw toolMediaNotFound(artifactId);
    }
    const name = meta.filename ? `"${meta.filename}" ` : '';
    const where = `message ${referenced.messageId}${referenced.threadId ? ` in thread ${referenced.threadId}` : ''}`;
    const describe = `Media ${artifactId} ${name}(${meta.mediaType}, ${meta.byteLength} bytes) from ${where}`;
    const reference = (reason: string): ToolReply => ({
      content: [{ type: 'text', text: `[${describe}: ${reason}.]` }],
      is_error: false,
    });

    if ((IMAGE_MEDIA_TYPES as readonly string[]).includes(meta.mediaType)) {
      if (meta.byteLength > IMAGE_MAX_BYTES) {
        return reference(`not shown: over the ${IMAGE_MAX_BYTES}-byte image limit`);
      }
      const { bytes } = await deps.blobs.read({ tenantId: scope.tenantId, artifactId });
      const dims = imageDimensions(bytes);
      if (sniffMediaType(bytes) !== meta.mediaType)
        return reference('not shown: the bytes are not that image type');
      if (dims && (dims.width > IMAGE_MAX_DIMENSION || dims.height > IMAGE_MAX_DIMENSION)) {
        return reference(
          `not shown: ${dims.width}×${dims.height} px is over the ${IMAGE_MAX_DIMENSION} px limit`,
        );
      }
      return {
        content: [
          { type: 'text', text: `${describe}:` },
          {
            type: 'image',
            source: {
              type: 'base64',
              media_type: meta.mediaType as ImageMediaType,
              data: Buffer.from(bytes).toString('base64'),
            },
          },
        ],
        is_error: false,
      };
    }
    if (isTextMediaType(meta.mediaType)) {
      const slice = await deps.blobs.readText({
        tenantId: scope.tenantId,
        artifactId,
        offset: 0,
        limit: MEDIA_TEXT_SLICE_BYTES,
      });
      const more =
        slice.next_offset === null
          ? ''
          : `\n[… ${meta.byteLength - slice.next_offset} more bytes. Use read_result with ref_id="${artifactId}" and offset=${slice.next_offset} to read on.]`;
      return {
        content: [{ type: 'text', text: `${describe}:\n${redactText(slice.text)}${more}` }],
        is_error: false,
      };
    }
    return reference('not shown: only images and text can be returned as content');
  }

  /** The built-in tools, each over its checked input. */
  const tools: { [N in BuiltinToolName]: (call: ToolCall, input: ToolInput<N>) => Promise<ToolReply> } = {
    async channel_context({ scope }, input) {
      // A channel the store barely knows has its history fetched once (docs/channels.md, Backfill).
      const notes = await deps.channels.ensureChannelHistory(scope);
      const found = await deps.channelSearch.searchChannel({
        ...scope,
        intent: input.intent,
        ...(input.since ? { since: new Date(input.since) } : {}),
        ...(input.authors ? { authors: input.authors } : {}),
        ...(input.max_results ? { maxResults: input.max_results } : {}),
      });
      return json(notes.length > 0 ? { ...found, notes } : found);
    },

    async channel_messages({ scope }, input) {
      if (input.media_artifact_id) return channelMedia(scope, input.media_artifact_id);
      const found = await deps.channels.getChannelMessages({
        ...scope,
        ...(input.thread_id ? { threadId: input.thread_id } : {}),
        ...(input.message_ids ? { messageIds: input.message_ids } : {}),
        ...(input.max_replies ? { maxReplies: input.max_replies } : {}),
      });
      // Platform files these messages name are fetched now, so the agent can ask for them by
      // media_artifact_id; what could not be fetched is said in media_notes.
      const views = [found.thread?.root, ...(found.thread?.replies ?? []), ...(found.messages ?? [])];
      const mediaNotes = deps.platformMedia
        ? await deps.platformMedia.fetchMissing(
            scope,
            views.flatMap((view) =>
              (view?.media ?? []).map((ref, i) => ({
                ref,
                messageId: view!.message_id,
                replace: (fetched: typeof ref) => (view!.media[i] = fetched),
              })),
            ),
          )
        : [];
      return json(mediaNotes.length > 0 ? { ...found, media_notes: mediaNotes } : found);
    },

    async read_result({ tenantId, session }, input) {
      return json(
        await deps.offload.readResult({
          tenantId,
          sessionId: session.id,
          refId: input.ref_id,
          ...(input.offset !== undefined ? { offset: input.offset } : {}),
          ...(input.limit !== undefined ? { limit: input.limit } : {}),
        }),
      );
    },

    async memory_search({ tenantId, session, laneKey }, input) {
      const max = input.max_results ?? 8;
      // Types name memories only; without them earlier conversation is searched too.
      const reply = await deps.memorySearch.searchMemory({
        tenantId,
        query: input.query,
        sources: input.types ? ['memories'] : ['memories', 'transcript_chunks'],
        filters: {
          sessionKey: session.sessionKey,
          scopes: visibleMemoryScopes(session),
          ...(input.types ? { types: input.types } : {}),
        },
        laneKey,
        now: deps.clock.now(),
        maxResults: Math.min(100, max * 3),
      });
      const results = reply.results.slice(0, max).map((r) => ({
        kind: r.kind,
        id: r.id,
        score: r.score,
        time: r.time,
        snippet: r.snippet,
        text: r.text,
        ...(r.kind === 'memory' ? memoryFields(r.source) : {}),
      }));
      return json({ results, ...(reply.note ? { note: reply.note } : {}) });
    },

    async tool_search({ tenantId, session }, input) {
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
    },

    // The same operation as POST /compact, on the lane the agent is working in.
    async compact_context({ tenantId, session, laneKey }) {
      try {
        const result = await deps.compaction.compact({
          tenantId,
          sessionId: session.id,
          laneKeys: [laneKey],
          trigger: 'tool',
          force: true,
          wait: true,
        });
        return json(result);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], is_error: true };
      }
    },
  };

  return {
    async listTools(params: { tenantId: string; sessionId: string }) {
      const session = await loadSession(params.tenantId, params.sessionId);
      return { tools: builtinToolsFor({ hasChannel: hasChannel(session) }) };
    },

    /**
     * Runs a tool. With an Idempotency-Key the reply is stored once run, so a retry with the same
     * input gets the same content even if the channel changed in between; another input under the
     * key is 409 `idempotency.key_reused`.
     */
    async runTool(params: {
      tenantId: string;
      sessionId: string;
      name: string;
      input: unknown;
      idempotencyKey?: string;
    }) {
      return deps.idempotency.runRecorded<ToolReply>(
        {
          tenantId: params.tenantId,
          scope: 'sessions.tools',
          key: params.idempotencyKey,
          request: { session_id: params.sessionId, name: params.name, input: params.input },
        },
        async (record) => {
          // Tools write nothing: the reply is stored on its own once the tool has run.
          const out = { statusCode: 200, body: await runBuiltin(params) };
          await record(out);
          return out;
        },
      );
    },
  };

  /** Checks a call (a built-in name, a channel for the channel tools, the input) and runs it. */
  async function runBuiltin(params: {
    tenantId: string;
    sessionId: string;
    name: string;
    input: unknown;
  }): Promise<ToolReply> {
    const { tenantId, name } = params;
    if (!isBuiltinToolName(name)) {
      throw toolNotFound(name);
    }
    const session = await loadSession(tenantId, params.sessionId);
    if (channelToolNames.includes(name) && !hasChannel(session)) {
      throw toolNeedsChannel(name);
    }
    const parsed = toolInputSchemas[name].safeParse(params.input ?? {});
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => ({
        path: ['body', 'input', ...i.path.map(String)].join('.'),
        message: i.message,
        code: i.code,
      }));
      throw toolInvalidInput(details);
    }
    const call: ToolCall = {
      tenantId,
      session,
      scope: { tenantId, platform: session.platform!, channelId: session.channelId! },
      laneKey: continuedLaneKey(session),
    };
    const run = tools[name] as (call: ToolCall, input: unknown) => Promise<ToolReply>;
    return run(call, parsed.data);
  }
}

/** What every tool acts in: the session's tenant, channel (for the channel tools) and lane. */
interface ToolCall {
  tenantId: string;
  session: SessionRow;
  scope: { tenantId: string; platform: string; channelId: string };
  laneKey: string;
}

type ToolInput<N extends BuiltinToolName> = z.infer<(typeof toolInputSchemas)[N]>;

export type ToolsService = ReturnType<typeof createToolsService>;

/** A memory hit's type, scope and scope key, from the search row's kind-specific fields. */
function memoryFields(source: Record<string, unknown>) {
  const text = (key: string) => (typeof source[key] === 'string' ? { [key]: source[key] } : {});
  return { ...text('type'), ...text('scope'), ...text('scope_key') };
}
