// The context call (docs/design.md §5 "Context", §6.6): loads what assembly needs in two parallel rounds
// of queries, runs the pure assembleContext (again with the channel context, read only then, when
// truncation left out the turn that carried it), and — unless dry_run — appends the rendered user
// turn through the transcript service with the audit row, the lane's attached-context marker, the
// consumed pending slot and the Idempotency-Key record in the same transaction.
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../../config.js';
import {
  assembleContext,
  type AssembleResult,
  type ChannelContextInput,
  type CompactionMode,
  type MediaCandidate,
  type RetrievedItem,
  type SystemSection,
} from './core/assemble.js';
import { DEFAULT_SAFETY_MARGIN, budgetState, type BudgetReport } from './core/budget.js';
import { budgetCalibration } from '../sessions/core/calibration.js';
import type { ContentBlock, TurnContent } from '../../shared/content-blocks.js';
import { plainText } from './core/current-turn.js';
import { asBlocks, toolResultIds } from '../sessions/core/history-view.js';
import { toOpenAIChat, type OpenAIChatPayload } from './core/openai-format.js';
import { pendingSlotSchema } from './core/pending-slot.js';
import type { ChannelSnapshot } from '../channels/core/snapshot.js';
import type { ThreadContext } from '../channels/core/thread-budget.js';
import { defaultLaneKey } from '../sessions/core/session-keys.js';
import { searchTools, type CallerTool, type DeferredTool } from '../tools/core/tool-deferral.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import { validateTurnSequence } from '../sessions/core/turn-validation.js';
import type { Db, Executor } from '../../db/client.js';
import { conflict, unprocessable } from '../../shared/errors.js';
import type { ContextLogRow, ContextRepository } from './context.repository.js';
import type { SessionRow, SessionsRepository } from '../sessions/sessions.repository.js';
import type { TranscriptEntryRow } from '../sessions/transcript.repository.js';
import type { MediaRefInput } from '../channels/core/channel-events.js';
import type { BlobsRepository } from '../sessions/blobs.repository.js';
import type { AgentSectionsService } from '../agents/agent-sections.service.js';
import type { ManifestService } from '../sessions/manifest.service.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { IdempotencyService } from '../../http/idempotency/idempotency.service.js';
import type { MemorySearchService, SearchResult } from '../memory/memory-search.service.js';
import type { OffloadService } from '../sessions/offload.service.js';
import { sessionEnded, sessionNotFound } from '../sessions/sessions.service.js';
import type { TranscriptService } from '../sessions/transcript.service.js';
import { toolSafeStart } from '../sessions/core/render.js';
import type { CompactionReport, CompactionRun, ContextCompaction } from './context.compaction.js';

export type OutputFormat = 'anthropic' | 'openai';

export interface ContextRequest {
  message: {
    content: TurnContent;
    /** The channel message this turn is (its anchor): must be in the session's channel. */
    source?: { platform: string; channel_id: string; message_id: string };
    lane_key?: string;
    author?: { id?: string; name?: string };
    time?: string;
  };
  model?: string;
  budget?: { total?: number; max_output_tokens?: number; max_context_tokens?: number };
  system?: { name: string; text: string; cacheable?: boolean }[];
  agent_id?: string;
  tools?: CallerTool[];
  include?: {
    snapshot?: boolean;
    thread?: boolean;
    memories?: boolean;
    channel_search?: boolean;
    lane_summaries?: boolean;
    media?: 'none' | 'thread';
  };
  compaction?: CompactionMode;
  /** At most this many of the lane's latest turns are sent (a view that never splits a tool pair). */
  history_turns?: number;
  dry_run?: boolean;
  format?: OutputFormat;
}

export interface ContextReply {
  payload: Anthropic.MessageCreateParamsNonStreaming | OpenAIChatPayload;
  format: OutputFormat;
  budget: BudgetReport;
  compaction: CompactionReport;
  context: AssembleResult['context'];
  attachments: AssembleResult['attachments'];
  deferred_tools: DeferredTool[];
  notes: string[];
  cache: AssembleResult['cache'];
  /** Seq of the appended user turn; null on a dry run. */
  turn_seq: number | null;
  payload_sha256: string;
  dry_run: boolean;
}

/** What a context_log row's budget column holds besides the report. */
interface LoggedBudget extends BudgetReport {
  deferred_tools?: (DeferredTool & { input_schema?: unknown })[];
}

/** Retrieval per call: enough to fill the cap, bounded. */
const MIN_RETRIEVAL = 8;
const MAX_RETRIEVAL = 100;
const TOKENS_PER_RETRIEVED_ITEM = 30;
/** Media larger than this is referenced, not attached (the provider's per-image limit is 5 MB). */
const MEDIA_MAX_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Entries scanned for tool_search calls whose matches are promoted this turn. */
const PROMOTION_WINDOW = 10;

export function payloadSha256(payload: unknown): string {
  return createHash('sha256').update(JSON.stringify(payload)).digest('hex');
}

/** The anchor's snapshot and thread as assembly takes them, with the message ids they show. */
function channelContextInput(
  session: SessionRow,
  loaded: { snapshot: ChannelSnapshot; thread: ThreadContext | null },
  include: NonNullable<ContextRequest['include']>,
): ChannelContextInput {
  const thread = include.thread === false ? null : loaded.thread;
  return {
    platform: session.platform!,
    channelId: session.channelId!,
    channelName: loaded.snapshot.channel.name || null,
    snapshot: loaded.snapshot,
    thread,
    snapshotMessageIds: loaded.snapshot.adjacent.map((m) => m.message_id),
    threadMessageIds: thread ? [thread.root.message_id, ...thread.replies.map((r) => r.message_id)] : [],
  };
}

/** Scope keys of memories visible to a session (docs/design.md §4 memories.scope / scope_key). */
export function visibleMemoryScopes(session: SessionRow): Set<string> {
  const out = new Set<string>(['tenant:']);
  if (session.platform && session.channelId) out.add(`channel:${session.platform}:${session.channelId}`);
  if (session.platform && session.userId) out.add(`user:${session.platform}:${session.userId}`);
  out.add(`session:${session.sessionKey}`);
  return out;
}

export function createContextService(deps: {
  db: Db;
  config: Pick<
    Config,
    | 'DEFAULT_MODEL'
    | 'CONTEXT_BUDGET'
    | 'MAX_OUTPUT_TOKENS'
    | 'COMPACT_TRIGGER'
    | 'HARD_BLOCK'
    | 'TOOL_DEFERRAL_SHARE'
    | 'THREAD_BUDGET'
  >;
  estimator: TokenEstimator;
  sessions: Pick<SessionsRepository, 'findById'>;
  transcript: Pick<TranscriptService, 'laneEntries' | 'appendTurns'>;
  channels: Pick<ChannelsService, 'loadAnchorContext' | 'getChannelMessages' | 'getAnchor'>;
  memorySearch: Pick<MemorySearchService, 'searchMemory' | 'lexemes'>;
  agentSections: Pick<AgentSectionsService, 'listAgentSections'>;
  offload: Pick<OffloadService, 'offloadToolResults'>;
  blobs: Pick<BlobsRepository, 'findMeta' | 'readBytes'>;
  manifest: Pick<ManifestService, 'list' | 'record'>;
  context: ContextRepository;
  idempotency: Pick<IdempotencyService, 'runRecorded'>;
  /** Compaction before a payload that needs it, and scheduling in the background. */
  compaction?: ContextCompaction;
}) {
  const { config, context } = deps;

  /**
   * Current-thread media (§6.11) as content blocks: images and PDFs stored as blobs of this
   * tenant, referenced by the anchor or its thread. Other media types and missing blobs are skipped.
   */
  async function loadThreadMedia(tenantId: string, refs: MediaRefInput[], sources: (string | null)[][]) {
    const out: MediaCandidate[] = [];
    const seen = new Set<string>();
    for (const [index, ref] of refs.entries()) {
      const artifactId = ref.artifact_id;
      if (!artifactId || seen.has(artifactId) || !UUID.test(artifactId)) continue;
      seen.add(artifactId);
      const meta = await deps.blobs.findMeta({ tenantId, artifactId });
      if (!meta || meta.byteLength > MEDIA_MAX_BYTES) continue;
      const isImage = IMAGE_TYPES.has(meta.mediaType);
      if (!isImage && meta.mediaType !== 'application/pdf') continue;
      const bytes = await deps.blobs.readBytes({ tenantId, artifactId, start: 0, length: meta.byteLength });
      if (!bytes) continue;
      const data = Buffer.from(bytes).toString('base64');
      const [messageId, threadId] = sources[index] ?? [null, null];
      out.push({
        artifact_id: artifactId,
        sha256: meta.sha256,
        media_type: meta.mediaType,
        filename: meta.filename ?? ref.filename ?? null,
        source_message_id: messageId ?? null,
        source_thread_id: threadId ?? null,
        block: isImage
          ? {
              type: 'image',
              source: { type: 'base64', media_type: meta.mediaType as 'image/png', data },
            }
          : { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } },
      });
    }
    return out;
  }

  async function loadSession(tenantId: string, sessionId: string): Promise<SessionRow> {
    const session = await deps.sessions.findById({ tenantId, id: sessionId });
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  /** A source message must be one of the session's own channel (its row is read beside the session). */
  function checkAnchorSource(session: SessionRow, source: ContextRequest['message']['source']) {
    if (!source) return;
    if (source.platform !== session.platform || source.channel_id !== session.channelId) {
      throw unprocessable(
        'context.message_outside_session_channel',
        "message.source must be a message of the session's own channel",
        {
          path: 'message.source',
          session_channel: session.channelId ? `${session.platform}:${session.channelId}` : null,
        },
      );
    }
  }

  async function retrieve(params: {
    session: SessionRow;
    laneKey: string;
    query: string;
    /** The query's lexemes (memorySearch.lexemes), when already known. */
    lexemes: string[] | null;
    now: Date;
    limit: number;
    include: NonNullable<ContextRequest['include']>;
  }): Promise<RetrievedItem[]> {
    const { session, laneKey, query, lexemes, now, limit, include } = params;
    const scopes = visibleMemoryScopes(session);
    const hasChannel = Boolean(session.platform && session.channelId);
    const otherSources = [
      ...(include.memories === false ? [] : ['transcript_chunks' as const]),
      ...(include.channel_search === false || !hasChannel ? [] : ['channel_messages' as const]),
    ];
    const [memories, other] = await Promise.all([
      include.memories === false
        ? null
        : deps.memorySearch.searchMemory({
            tenantId: session.tenantId,
            query,
            ...(lexemes ? { lexemes } : {}),
            sources: ['memories'],
            laneKey,
            now,
            // Over-fetch: results outside the session's scopes are dropped below.
            maxResults: Math.min(MAX_RETRIEVAL, limit * 3),
          }),
      otherSources.length === 0
        ? null
        : deps.memorySearch.searchMemory({
            tenantId: session.tenantId,
            query,
            ...(lexemes ? { lexemes } : {}),
            sources: otherSources,
            filters: {
              sessionKey: session.sessionKey,
              ...(hasChannel ? { platform: session.platform!, channelId: session.channelId! } : {}),
            },
            laneKey,
            now,
            maxResults: limit,
          }),
    ]);
    const visible = (r: SearchResult) => {
      if (r.kind !== 'memory') return true;
      const scope = `${String(r.source.scope)}:${String(r.source.scope_key ?? '')}`;
      if (!scopes.has(scope)) return false;
      if (r.source.type !== 'lane_summary') return true;
      // This lane's own summary is already the payload's first message.
      return include.lane_summaries !== false && r.lane_key !== laneKey;
    };
    const results = [...(memories?.results ?? []).filter(visible), ...(other?.results ?? [])]
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
    return results.map((r): RetrievedItem => {
      const base = { id: r.id, text: r.text, score: r.score, lane_key: r.lane_key, ts: r.time };
      if (r.kind === 'channel_message') {
        return {
          ...base,
          kind: 'channel_message',
          source: 'channel',
          author: (r.source.author_name as string | null) ?? (r.source.author_id as string | null) ?? null,
          message_id: String(r.source.message_id),
        };
      }
      if (r.kind === 'transcript_chunk') {
        return {
          ...base,
          kind: 'transcript',
          source: 'conversation',
          seq_range: [Number(r.source.first_seq), Number(r.source.last_seq)],
        };
      }
      return { ...base, kind: 'memory', source: `memory:${String(r.source.type)}` };
    });
  }

  /**
   * One context call. `beforeCommit` runs inside the append transaction with the reply (a
   * non-dry-run call only), after everything else the call writes.
   */
  async function assembleTurn(params: {
    tenantId: string;
    sessionId: string;
    request: ContextRequest;
    beforeCommit?: (tx: Executor, reply: ContextReply) => Promise<void>;
    /** Set on the second pass, after a compaction this call ran (it runs at most one). */
    compacted?: CompactionRun;
  }): Promise<ContextReply> {
    const { tenantId, sessionId, request } = params;
    const include = request.include ?? {};
    const userText = plainText(asBlocks(request.message.content) as Anthropic.ContentBlockParam[]);
    const isToolResultTurn =
      toolResultIds(asBlocks(request.message.content) as Anthropic.ContentBlockParam[]).length > 0;
    const wantsRetrieval =
      userText.trim() !== '' &&
      !isToolResultTurn &&
      (include.memories !== false || include.channel_search !== false);
    const source = request.message.source;

    // Round 1: the session, and beside it what does not depend on it: the anchor's row (read in
    // the caller's tenant, checked against the session's channel before use), the previous call,
    // the query's lexemes, and the sections when the request names the agent.
    const round1 = {
      anchor: source
        ? deps.channels.getAnchor({
            tenantId,
            platform: source.platform,
            channelId: source.channel_id,
            messageId: source.message_id,
          })
        : Promise.resolve(null),
      lastLog: context.lastLog({ tenantId, sessionId }),
      // The query's lexemes depend only on the message: fetched here, off the retrieval's path.
      lexemes: wantsRetrieval ? deps.memorySearch.lexemes(userText) : Promise.resolve(null),
      sections: request.agent_id ? deps.agentSections.listAgentSections(tenantId, request.agent_id) : null,
    };
    // Awaited below; a failure while the session is still loading (or missing) is not unhandled.
    for (const pending of Object.values(round1)) pending?.catch(() => {});
    const session = await loadSession(tenantId, sessionId);
    if (session.endedAt) throw sessionEnded(session);
    checkAnchorSource(session, source);
    const agentId = request.agent_id ?? session.agentId ?? null;
    const [found, sections, lastLog, lexemes] = await Promise.all([
      round1.anchor,
      round1.sections ?? (agentId ? deps.agentSections.listAgentSections(tenantId, agentId) : []),
      round1.lastLog,
      round1.lexemes,
    ]);
    const anchor = found?.view ?? null;
    // Without an anchor or an explicit lane, the turn continues the lane of the last turn.
    const laneKey =
      anchor?.lane_key ??
      request.message.lane_key ??
      session.turnState.last_lane_key ??
      defaultLaneKey(session);
    // The session-wide turn rules (role order, tool pairing), with their stable codes.
    validateTurnSequence(
      session.turnState,
      [{ role: 'user', content: request.message.content, lane_key: laneKey }],
      laneKey,
    );

    // Round 2: lane state, the lane's entries, channel context, retrieval.
    const laneState = await context.getLaneState({ tenantId, sessionId, laneKey });
    // A deleted message's text is in this lane's view: compact first, so no payload carries it.
    if (deps.compaction && !params.compacted && (laneState?.purgeTexts?.length ?? 0) > 0) {
      const run = await deps.compaction.compactNow({ tenantId, sessionId, laneKey, trigger: 'purge' });
      return assembleTurn({ ...params, compacted: run });
    }
    const lane = {
      laneKey,
      summary: laneState?.summary ?? null,
      summaryVersion: laneState?.summaryVersion ?? 0,
      firstKeptSeq: laneState?.firstKeptSeq ?? 0,
      clearedBeforeSeq: laneState?.clearedBeforeSeq ?? 0,
      version: laneState?.version ?? 0,
      // The turn that carried the channel context attached for this summary version (-1: attached
      // before the seq was recorded, so re-attached once), or null when none is.
      contextAttachedSeq:
        laneState && laneState.contextAttachedVersion === laneState.summaryVersion
          ? (laneState.contextAttachedSeq ?? -1)
          : null,
      compactedSinceAttach:
        laneState !== null &&
        laneState.summaryVersion > 0 &&
        laneState.contextAttachedVersion !== laneState.summaryVersion,
    };
    const pendingSlot = pendingSlotSchema.safeParse(laneState?.pendingSlot ?? undefined);
    const hasChannel = Boolean(session.platform && session.channelId);
    const canAttachChannelContext = hasChannel && anchor !== null && include.snapshot !== false;
    // Loaded with the history while the lane has none attached; when the turn that carried it may
    // have left the payload, only after an assembly without it says so (below).
    const loadChannelContext = () =>
      deps.channels.loadAnchorContext({
        tenantId,
        platform: session.platform!,
        channelId: session.channelId!,
        messageId: anchor!.message_id,
        anchor: found!.row,
        threadBudget: config.THREAD_BUDGET,
      });
    const capForRetrieval = request.budget?.max_context_tokens ?? 4000;
    const retrievalLimit = Math.min(
      MAX_RETRIEVAL,
      Math.max(MIN_RETRIEVAL, Math.floor(capForRetrieval / TOKENS_PER_RETRIEVED_ITEM)),
    );
    const provisionalNow = anchor
      ? new Date(anchor.ts)
      : request.message.time
        ? new Date(request.message.time)
        : null;

    // Retrieval needs "now": with an anchor or a stated time it starts beside the reads below.
    const retrieveAt = (now: Date) =>
      wantsRetrieval
        ? retrieve({ session, laneKey, query: userText, lexemes, now, limit: retrievalLimit, include })
        : Promise.resolve([]);
    const early = provisionalNow ? retrieveAt(provisionalNow) : null;
    // Awaited below; until then a failure must not count as unhandled.
    early?.catch(() => {});
    const [entries, channelContext, quoted] = await Promise.all([
      deps.transcript.laneEntries({ tenantId, sessionId, laneKey, fromSeq: lane.firstKeptSeq }),
      canAttachChannelContext && lane.contextAttachedSeq === null ? loadChannelContext() : null,
      anchor?.reply_to_id && hasChannel
        ? deps.channels.getChannelMessages({
            tenantId,
            platform: session.platform!,
            channelId: session.channelId!,
            messageIds: [anchor.reply_to_id],
          })
        : null,
    ]);
    // "Now" is the anchor's time; without an anchor, the message's stated time, else the
    // latest stored turn of the lane, else the session's creation: never the wall clock.
    const now = provisionalNow ?? entries.at(-1)?.createdAt ?? session.createdAt;
    const retrieved = await (early ?? retrieveAt(now));

    // Media of the current thread, opt-in (§6.11); the manifest decides attach or reference.
    let media: MediaCandidate[] = [];
    let manifestRows: Awaited<ReturnType<typeof deps.manifest.list>> = [];
    if (include.media === 'thread' && anchor && hasChannel) {
      const threadId = anchor.thread_id ?? (anchor.reply_count > 0 ? anchor.message_id : null);
      const thread =
        channelContext?.thread ??
        (threadId
          ? ((
              await deps.channels.getChannelMessages({
                tenantId,
                platform: session.platform!,
                channelId: session.channelId!,
                threadId,
              })
            ).thread ?? null)
          : null);
      const refs: MediaRefInput[] = [];
      const sources: (string | null)[][] = [];
      const add = (items: MediaRefInput[], messageId: string) => {
        for (const item of items) {
          refs.push(item);
          sources.push([messageId, threadId]);
        }
      };
      if (thread) {
        add(thread.root.media, thread.root.message_id);
        for (const reply of thread.replies) add(reply.media, reply.message_id);
      }
      add(anchor.media, anchor.message_id);
      [media, manifestRows] = await Promise.all([
        loadThreadMedia(tenantId, refs, sources),
        deps.manifest.list({ tenantId, sessionId }),
      ]);
    }

    const quotedMessage = quoted?.messages?.[0] ?? null;
    const knownMessageIds = [
      ...(anchor ? [anchor.message_id] : []),
      ...(quotedMessage ? [quotedMessage.message_id] : []),
    ];

    // Tool history in view: last use per tool, and tool_search calls to promote from.
    const toolLastUsed: Record<string, number> = {};
    const searches: string[] = [];
    const toolNames: Record<string, string> = {};
    entries.forEach((entry, index) => {
      for (const block of asBlocks(entry.content)) {
        if (block.type !== 'tool_use') continue;
        toolLastUsed[block.name] = entry.seq;
        toolNames[block.id] = block.name;
        const query = (block.input as { query?: unknown } | undefined)?.query;
        if (
          block.name === 'tool_search' &&
          typeof query === 'string' &&
          index >= entries.length - PROMOTION_WINDOW
        ) {
          searches.push(query);
        }
      }
    });
    const callerTools = request.tools ?? [];
    const promotedTools = [
      ...new Set(searches.flatMap((q) => searchTools(callerTools, q, 5).map((t) => t.name))),
    ];

    // What was sent stays sent: big tool results in this message are offloaded before assembly,
    // so the payload holds the same reference the transcript will.
    let messageContent: unknown = request.message.content;
    if (!request.dry_run && isToolResultTurn) {
      messageContent = (
        await deps.db.transaction((tx) =>
          deps.offload.offloadToolResults(
            { tenantId, sessionId, content: request.message.content as string | ContentBlock[], toolNames },
            tx,
          ),
        )
      ).content;
    }

    const system: SystemSection[] = (request.system ?? []).map((s) => ({
      name: s.name,
      text: s.text,
      cacheable: s.cacheable ?? true,
    }));
    const previousPercentage = (lastLog?.budget as LoggedBudget | undefined)?.percentage ?? null;
    const model = request.model ?? config.DEFAULT_MODEL;
    // history_turns: a view of the lane's latest turns, widened so no tool pair is split.
    const turns = entries.filter((e) => e.kind === 'message' || e.kind === 'context_attachment');
    const viewFrom =
      request.history_turns !== undefined && turns.length > request.history_turns
        ? toolSafeStart(turns, turns[turns.length - request.history_turns]!.seq)
        : Number.NEGATIVE_INFINITY;
    const history = entries
      .filter((e) => e.seq >= viewFrom)
      .map((e: TranscriptEntryRow) => ({
        seq: e.seq,
        kind: e.kind,
        role: e.role,
        content: e.content,
        tokenEstimate: e.tokenEstimate,
      }));
    const assemble = (anchorContext: typeof channelContext) =>
      assembleContext({
        model,
        message: messageContent,
        now,
        limits: {
          total: request.budget?.total ?? config.CONTEXT_BUDGET,
          maxOutputTokens: request.budget?.max_output_tokens ?? config.MAX_OUTPUT_TOKENS,
          maxContextTokens: request.budget?.max_context_tokens ?? null,
          compactTrigger: config.COMPACT_TRIGGER,
          hardBlock: config.HARD_BLOCK,
          safetyMargin: DEFAULT_SAFETY_MARGIN,
          calibration: budgetCalibration(session.calibration, model),
        },
        compaction: request.compaction ?? 'auto',
        system,
        agentSections: sections.map((s) => ({ name: s.name, text: s.content, cacheable: s.cacheable })),
        structuredContext: hasChannel && include.snapshot !== false,
        tools: callerTools,
        toolLastUsed,
        promotedTools,
        toolDeferralShare: config.TOOL_DEFERRAL_SHARE,
        lane: { ...lane, pendingSlot: pendingSlot.success ? pendingSlot.data : null },
        history,
        channelContext: anchorContext ? channelContextInput(session, anchorContext, include) : null,
        knownMessageIds,
        quotedReply: quotedMessage
          ? {
              message_id: quotedMessage.message_id,
              author: quotedMessage.author.display_name ?? quotedMessage.author.user_id ?? null,
              ts: quotedMessage.ts,
              text: quotedMessage.text,
            }
          : null,
        retrieved,
        media,
        manifest: manifestRows.map((r) => ({
          artifact_id: r.artifactId,
          sha256: r.contentHash,
          included_at_turn: r.includedAtTurn,
        })),
        previousPercentage,
        estimator: deps.estimator,
      });
    let result = assemble(channelContext);
    // The turn that carried the lane's channel context is not in this payload: load it and
    // assemble again, attaching it in this turn (exact, and the snapshot reads happen only then).
    if (result.reattachChannelContext && canAttachChannelContext) {
      result = assemble(await loadChannelContext());
    }

    // Compaction before replying only when the budget makes it unavoidable (blocked; `sync` also
    // at should_compact), never on a dry run. Once per call: the second pass takes what fits.
    const mode = request.compaction ?? 'auto';
    // The pressure is what the lane's whole view would take: older entries that this payload had
    // to leave out count, so truncation does not hide that the lane needs compacting.
    const firstSent = result.context.lane.first_sent_seq ?? Number.POSITIVE_INFINITY;
    const droppedTokens = turns
      .filter((e) => e.seq < firstSent && e.seq >= viewFrom)
      .reduce((sum, e) => sum + e.tokenEstimate, 0);
    const { budget } = result;
    const multiplier = budget.used > 0 ? budget.used_with_margin / budget.used : 1;
    const state =
      budget.effective_window > 0
        ? budgetState((budget.used_with_margin + droppedTokens * multiplier) / budget.effective_window, {
            compactTrigger: config.COMPACT_TRIGGER,
            hardBlock: config.HARD_BLOCK,
          })
        : budget.state;
    if (
      deps.compaction &&
      !params.compacted &&
      !request.dry_run &&
      mode !== 'never' &&
      (state === 'blocked' || (mode === 'sync' && state === 'should_compact'))
    ) {
      const run = await deps.compaction.compactNow({
        tenantId,
        sessionId,
        laneKey,
        trigger: 'blocked',
        effectiveWindow: result.budget.effective_window,
      });
      if (run.result) return assembleTurn({ ...params, compacted: run });
      result.notes.push(`Compaction could not run before this payload: ${run.error}.`);
    }
    // At should_compact, or when older entries had to be left out of this payload, the lane is
    // compacted in the background, so they come back as its summary.
    let scheduled: string | null = null;
    if (
      deps.compaction &&
      !request.dry_run &&
      mode !== 'never' &&
      (state === 'should_compact' || state === 'blocked' || result.context.lane.dropped_entries > 0)
    ) {
      scheduled = await deps.compaction.schedule({ tenantId, sessionId, laneKey, reason: state });
    }
    const compactionReport = (): CompactionReport => ({
      mode,
      available: deps.compaction !== undefined,
      action: params.compacted?.result
        ? 'compacted'
        : result.context.lane.dropped_entries > 0
          ? 'truncated'
          : scheduled !== null
            ? 'scheduled'
            : 'none',
      job_id: scheduled,
      result: params.compacted?.result ?? null,
    });

    const payload = request.format === 'openai' ? toOpenAIChat(result.payload) : result.payload;
    const sha = payloadSha256(payload);
    const replyFor = (turnSeq: number | null): ContextReply => ({
      payload,
      format: request.format ?? 'anthropic',
      budget: result.budget,
      compaction: compactionReport(),
      context: result.context,
      attachments: result.attachments,
      deferred_tools: result.deferred_tools,
      notes: result.notes,
      cache: result.cache,
      turn_seq: turnSeq,
      payload_sha256: sha,
      dry_run: request.dry_run ?? false,
    });
    if (request.dry_run) return replyFor(null);

    const deferredWithSchemas = result.deferred_tools.map((d) => ({
      ...d,
      input_schema: callerTools.find((t) => t.name === d.name)?.input_schema,
    }));
    const appended = await deps.transcript.appendTurns({
      tenantId,
      sessionId,
      turns: [
        {
          role: 'user',
          content: result.userTurn.content as ContentBlock[],
          lane_key: laneKey,
          ...(request.message.author ? { author: request.message.author } : {}),
          ...(request.message.time ? { time: request.message.time } : {}),
          ...(request.message.source ? { source: { ...request.message.source } } : {}),
        },
      ],
      notify: false,
      onAppended: async (tx, { entries: written }) => {
        const seq = written[0]!.seq;
        // Assembly read the session at nextSeq; a turn appended since means this payload
        // would not contain it: refuse rather than log a payload the transcript contradicts.
        if (seq !== session.nextSeq) {
          throw conflict(
            'context.concurrent_turn',
            'another turn was appended while this context was assembled; retry',
            {
              expected_seq: session.nextSeq,
              actual_seq: seq,
            },
          );
        }
        await context.insertLog(
          {
            tenantId,
            sessionId,
            turnSeq: seq,
            laneKey,
            laneVersion: lane.version,
            payloadSha256: sha,
            budget: { ...result.budget, deferred_tools: deferredWithSchemas },
            model,
            createdAt: now,
          },
          tx,
        );
        for (const a of result.attachments) {
          if (a.disposition !== 'attached') continue;
          await deps.manifest.record(
            {
              tenantId,
              sessionId,
              artifactId: a.artifact_id,
              contentHash: a.sha256,
              displayName: a.display_name,
              mediaType: a.media_type,
              sourceMessageId: a.source_message_id,
              sourceThreadId: a.source_thread_id,
              includedAtTurn: seq,
            },
            tx,
          );
        }
        if (result.context.snapshot === 'attached') {
          await context.markContextAttached(
            { tenantId, sessionId, laneKey, summaryVersion: lane.summaryVersion, seq, at: now },
            tx,
          );
        }
        // The slot this turn answered is consumed, so the next turn does not see it again;
        // only at the version assembly read, so a slot set meanwhile stays pending.
        if (result.context.pending_slot) {
          await context.clearPendingSlot(
            { tenantId, sessionId, laneKey, at: now, version: lane.version },
            tx,
          );
        }
        await params.beforeCommit?.(tx, replyFor(seq));
      },
    });
    // The lane over its thresholds after this turn: a background compaction (never on the hot path).
    if (deps.compaction && mode !== 'never' && scheduled === null) {
      const over = deps.compaction.overThresholds({
        entries: entries.filter((e) => e.kind === 'message' || e.kind === 'context_attachment').length + 1,
        // What the lane's view costs as sent (cleared tool results counted as cleared), plus this turn.
        tokens: result.budget.components.conversation + appended.entries[0]!.tokenEstimate,
        summaryUpdatedAt: laneState?.summaryUpdatedAt ?? null,
        summaryStale: laneState?.summaryStale ?? false,
        now,
      });
      if (over)
        await deps.compaction.schedule({ tenantId, sessionId, laneKey, reason: `thresholds:${over}` });
    }
    return replyFor(appended.entries[0]!.seq);
  }

  return {
    /**
     * The context call. A non-dry-run call with an Idempotency-Key runs once: a retry with the same
     * body gets the first reply's exact bytes (`encode` is the wire encoding, stored in the
     * transaction that appends the turn), another body is 409 `idempotency.key_reused`. A dry run
     * writes nothing and ignores the key.
     */
    async assemble(params: {
      tenantId: string;
      sessionId: string;
      request: ContextRequest;
      idempotencyKey?: string;
      encode: (reply: ContextReply) => string;
    }): Promise<{ body: string; replayed: boolean }> {
      const { tenantId, sessionId, request, encode } = params;
      const result = await deps.idempotency.runRecorded<string>(
        {
          tenantId,
          scope: 'sessions.context',
          key: request.dry_run ? undefined : params.idempotencyKey,
          request: { session_id: sessionId, body: request },
        },
        async (record) => {
          let body: string | null = null;
          const reply = await assembleTurn({
            tenantId,
            sessionId,
            request,
            beforeCommit: async (tx, committed) => {
              body = encode(committed);
              await record({ statusCode: 200, body }, tx);
            },
          });
          return { statusCode: 200, body: body ?? encode(reply) };
        },
      );
      return { body: result.body, replayed: result.replayed };
    },

    async contextLog(params: { tenantId: string; sessionId: string; afterSeq?: number; limit: number }) {
      await loadSession(params.tenantId, params.sessionId);
      const rows = await context.listLog({
        ...params,
        afterSeq: params.afterSeq ?? 0,
        limit: params.limit + 1,
      });
      const page = rows.slice(0, params.limit);
      return {
        entries: page.map(contextLogView),
        next_cursor: rows.length > params.limit ? page[page.length - 1]!.turnSeq : null,
      };
    },

    /** Deferred tools of the latest context call (what tool_search searches). */
    async lastDeferredTools(params: { tenantId: string; sessionId: string }) {
      const last = await context.lastLog(params);
      return ((last?.budget as LoggedBudget | undefined)?.deferred_tools ?? []) as (DeferredTool & {
        input_schema?: unknown;
      })[];
    },
  };
}

export type ContextService = ReturnType<typeof createContextService>;

export function contextLogView(row: ContextLogRow) {
  const { deferred_tools: deferred, ...budget } = row.budget as unknown as LoggedBudget;
  return {
    turn_seq: row.turnSeq,
    lane_key: row.laneKey,
    lane_version: row.laneVersion,
    payload_sha256: row.payloadSha256,
    model: row.model,
    budget,
    deferred_tools: (deferred ?? []).map((d) => d.name),
    created_at: row.createdAt.toISOString(),
  };
}
