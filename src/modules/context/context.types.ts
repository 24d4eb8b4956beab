// The context call's request and reply as the service sees them, the audit row's budget, the
// anchor's channel context as assembly takes it, the reply built from an assembly (its payload
// stringified and hashed once), and the view of a context_log row.
import type Anthropic from '@anthropic-ai/sdk';

import { type AssembleResult, type ChannelContextInput, type CompactionMode } from './core/assemble.js';
import { type BudgetReport } from './core/budget.js';

import type { TurnContent } from '../../shared/content-blocks.js';

import { toOpenAIChat, type OpenAIChatPayload } from './core/openai-format.js';
import { payloadBytes } from './core/payload-layout.js';

import type { ChannelSnapshot } from '../channels/core/snapshot.js';
import type { ThreadContext } from '../channels/core/thread-budget.js';
import type { TextCost } from '../../shared/text-cost.js';

import { type CallerTool, type DeferredTool } from '../tools/core/tool-deferral.js';

import type { ContextLogRow } from './context.repository.js';
import type { LaneStateRow } from '../lanes/lanes.repository.js';
import type { SessionRow } from '../sessions/sessions.repository.js';

import type { CompactionReport } from './context.compaction.js';

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
  budget: AssembleResult['budget'];
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
  /** Dry runs only: the retrieval candidates left out and why (a logged call keeps them in its log). */
  left_out?: AssembleResult['left_out'];
}

/** What a context_log row's budget column holds besides the report. */
export interface LoggedBudget extends BudgetReport {
  deferred_tools?: (DeferredTool & { input_schema?: unknown })[];
}

/** The anchor's snapshot and thread as assembly takes them, with the message ids they show. */
export function channelContextInput(
  session: SessionRow,
  loaded: {
    snapshot: ChannelSnapshot;
    thread: ThreadContext | null;
    textCost?: { snapshot: TextCost | null; thread: TextCost | null };
  },
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
    snapshotTextCost: loaded.textCost?.snapshot ?? null,
    threadTextCost: thread ? (loaded.textCost?.thread ?? null) : null,
  };
}

/** What a context_log row's assembly column holds: the reply's fields besides payload and budget. */
export interface LoggedAssembly {
  context: AssembleResult['context'];
  cache: AssembleResult['cache'];
  notes: string[];
  attachments: AssembleResult['attachments'];
  /** Absent on calls logged before it was kept. */
  left_out?: AssembleResult['left_out'];
}

export function contextLogView(row: ContextLogRow) {
  const { deferred_tools: deferred, ...budget } = row.budget as unknown as LoggedBudget;
  const assembly = row.assembly as unknown as LoggedAssembly | null;
  return {
    turn_seq: row.turnSeq,
    lane_key: row.laneKey,
    lane_version: row.laneVersion,
    payload_sha256: row.payloadSha256,
    model: row.model,
    budget,
    deferred_tools: (deferred ?? []).map((d) => d.name),
    deferred_tool_details: (deferred ?? []).map((d) => ({
      name: d.name,
      description: d.description,
      source: d.source,
      tokens: d.tokens,
    })),
    context: assembly?.context ?? null,
    cache: assembly?.cache ?? null,
    notes: assembly?.notes ?? null,
    attachments: assembly?.attachments ?? null,
    left_out: assembly?.left_out ?? null,
    created_at: row.createdAt.toISOString(),
    anchor_at: row.anchorAt?.toISOString() ?? null,
    replayable: row.payloadLayout !== null,
  };
}

/** The lane state as assembly reads it (defaults before the lane's first change). */
export function laneViewOf(laneKey: string, row: LaneStateRow | null) {
  return {
    laneKey,
    summary: row?.summary ?? null,
    summaryVersion: row?.summaryVersion ?? 0,
    firstKeptSeq: row?.firstKeptSeq ?? 0,
    clearedBeforeSeq: row?.clearedBeforeSeq ?? 0,
    version: row?.version ?? 0,
    // The turn that carried the channel context attached for this summary version (-1: attached
    // before the seq was recorded, so re-attached once), or null when none is.
    contextAttachedSeq:
      row && row.contextAttachedVersion === row.summaryVersion ? (row.contextAttachedSeq ?? -1) : null,
    compactedSinceAttach:
      row !== null && row.summaryVersion > 0 && row.contextAttachedVersion !== row.summaryVersion,
  };
}

/** A quoted channel message as assembly takes it. */
export function quotedReplyOf(m: {
  message_id: string;
  author: { display_name?: string | null; user_id?: string | null };
  ts: string;
  text: string;
}) {
  return {
    message_id: m.message_id,
    author: m.author.display_name ?? m.author.user_id ?? null,
    ts: m.ts,
    text: m.text,
  };
}

/** A context call's reply, and its payload's bytes (JSON.stringify of reply.payload, as hashed). */
export interface Assembled {
  reply: ContextReply;
  payloadText: string;
}

/**
 * The reply to an assembly: its payload in `format`, stringified and hashed once (payloadBytes), and
 * `reply(turnSeq)`, the call's reply once its turn is recorded at that seq (null: a dry run).
 */
export function replyOf(
  result: AssembleResult,
  params: { format: OutputFormat; dryRun: boolean; compaction: CompactionReport },
) {
  const payload = params.format === 'openai' ? toOpenAIChat(result.payload) : result.payload;
  const { text: payloadText, sha256 } = payloadBytes(payload);
  return {
    payloadText,
    sha256,
    reply(turnSeq: number | null): Assembled {
      return {
        payloadText,
        reply: {
          payload,
          format: params.format,
          budget: result.budget,
          compaction: params.compaction,
          context: result.context,
          attachments: result.attachments,
          deferred_tools: result.deferred_tools,
          notes: result.notes,
          cache: result.cache,
          turn_seq: turnSeq,
          payload_sha256: sha256,
          dry_run: params.dryRun,
          ...(params.dryRun ? { left_out: result.left_out } : {}),
        },
      };
    },
  };
}
