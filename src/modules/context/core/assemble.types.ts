// The shapes assembly works on: its input (limits, lane view, channel context, retrieved items,
// media, manifest) and its result (payload, budget, context report, attachments, cache).
import type { ConversationTools } from '../../tools/core/tool-offer.js';
import type { CostReport } from './cost-model.js';
import type { TextCost } from '../../../shared/text-cost.js';
import type Anthropic from '@anthropic-ai/sdk';

import { type BudgetLimits, type BudgetReport, type UnusedRoom } from './budget.js';
import { type CacheReport } from './cache-breakpoints.js';

import { type HistoryEntry } from '../../sessions/core/history-view.js';
import { type PendingSlot } from '../../lanes/core/pending-slot.js';
import { type CallerTool, type DeferredTool } from '../../tools/core/tool-deferral.js';
import { type TokenEstimator } from '../../../shared/tokens.js';
import type { LeftOut, LeftOutCandidate } from './left-out.js';

export type Block = Anthropic.ContentBlockParam;
export type TextBlock = Anthropic.TextBlockParam;
export type AnthropicPayload = Anthropic.MessageCreateParamsNonStreaming;

/** Share of the room for contextd's material kept for retrieved material before history fills it. */
export const RETRIEVAL_RESERVE_SHARE = 0.25;

/**
 * A lane summary is sent when it takes at most this share of the room for contextd's material;
 * past it, the recent turns and the material retrieved for this very message are worth more per
 * token (LoCoMo E2 at 4,000 tokens: docs/benchmarks.md). With a model's full window the summary is
 * always far below it; only a tight `max_context_tokens` leaves it out.
 */
export const SUMMARY_MAX_ROOM_SHARE = 0.5;
/** Retrieved items from other lanes need at least this score (§6.6: "named or scored high"). */
export const OTHER_LANE_MIN_SCORE = 0.8;
/** Room kept for the context notes, which are decided after the budget is known. */
export const NOTES_RESERVE_TOKENS = 80;
/** First user message when the view starts with an assistant turn and there is no summary. */
export const VIEW_START_TEXT = '[Earlier turns of this conversation are not shown.]';

export type CompactionMode = 'auto' | 'never' | 'sync';

export interface SystemSection {
  name: string;
  text: string;
  cacheable: boolean;
}

export interface LaneView {
  laneKey: string;
  summary: string | null;
  summaryVersion: number;
  firstKeptSeq: number;
  clearedBeforeSeq: number;
  version: number;
  pendingSlot: PendingSlot | null;
  /**
   * Seq of the user turn that carried the channel context attached for this summary version; null
   * or absent when none is attached for it. Then a given channelContext is attached; otherwise it
   * is attached again only when that turn is not among the history this payload sends.
   */
  contextAttachedSeq?: number | null;
  /**
   * The lane was compacted since its channel context was last attached: the thread's media the
   * manifest lists but the kept history no longer carries are re-attached with a recovery note.
   */
  compactedSinceAttach?: boolean;
}

export interface ChannelContextInput {
  platform: string;
  channelId: string;
  channelName?: string | null;
  /** ChannelSnapshot (§6.4), attached when the lane has none yet. */
  snapshot: unknown;
  /** ThreadContext (§6.5) or null when the anchor is not in a thread. */
  thread: unknown;
  /** Message ids the snapshot and the thread show: retrieved copies are skipped when attached. */
  snapshotMessageIds?: readonly string[];
  threadMessageIds?: readonly string[];
  /**
   * What the snapshot's and the thread's stored texts cost: with them the blocks are sized from
   * stored estimates (src/shared/text-cost.ts); without, counted.
   */
  snapshotTextCost?: TextCost | null;
  threadTextCost?: TextCost | null;
}

export interface QuotedReply {
  message_id: string;
  author: string | null;
  ts: string | null;
  text: string;
}

export interface RetrievedItem {
  kind: 'memory' | 'transcript' | 'channel_message';
  id: string;
  text: string;
  /** In [0, 1], higher is better; items arrive best first. */
  score: number;
  lane_key?: string | null;
  /** Where it came from, e.g. "memory:preference", "slack #general", "session transcript". */
  source: string;
  author?: string | null;
  ts?: string | null;
  /** For transcript chunks: the seqs covered (excluded when they overlap the history in view). */
  seq_range?: [number, number];
  /** For channel messages: excluded when the snapshot, thread or anchor already holds it. */
  message_id?: string;
}

export interface MediaCandidate {
  artifact_id: string;
  sha256: string;
  media_type: string;
  filename: string | null;
  source_message_id: string | null;
  source_thread_id: string | null;
  /** The content block to attach (image or document). */
  block: Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam;
  /** Tokens by the provider's rule when known (an image's size from its header); else estimated. */
  tokens?: number;
}

export interface Attachment {
  artifact_id: string;
  sha256: string;
  media_type: string;
  display_name: string;
  source_message_id: string | null;
  source_thread_id: string | null;
  /**
   * attached: sent as a content block (record it in the manifest); referenced: already sent before;
   * reattached: sent again because the turn that carried it is no longer sent (not recorded again).
   */
  disposition: 'attached' | 'referenced' | 'reattached';
  tokens: number;
}

export interface AssembleInput {
  model: string;
  /** The user's new turn: a string or content blocks. */
  message: unknown;
  /** The anchor's time ("now" of this assembly). */
  now: Date;
  limits: BudgetLimits;
  compaction: CompactionMode;
  /** Inline sections from the request (policy/base first), then stored agent sections by position. */
  system: readonly SystemSection[];
  agentSections: readonly SystemSection[];
  /** The session uses structured channel context: adds the guide and the channel tools. */
  structuredContext: boolean;
  tools: readonly CallerTool[];
  /**
   * The session holds a stored result read_result can read (an offloaded tool result, in this
   * message or before): read_result is sent only then (and with structured channel context).
   */
  storedResults: boolean;
  /**
   * Whether memory_search and compact_context can act in this call (tools/core/tool-offer.ts); a
   * tool that cannot is not sent. Absent: both are sent.
   */
  conversationTools?: ConversationTools;
  /** Tool name → seq of its last tool_use in this session. */
  toolLastUsed: Readonly<Record<string, number>>;
  /** Tools promoted by tool_search for this turn. */
  promotedTools: readonly string[];
  toolDeferralShare: number;
  lane: LaneView;
  /** The lane's entries with seq ≥ first_kept_seq, in seq order. */
  history: readonly HistoryEntry[];
  /**
   * Set when the lane has no channel context attached for its summary version, or when the turn
   * that carried it may have left the payload (see LaneView.contextAttachedSeq).
   */
  channelContext: ChannelContextInput | null;
  /** Message ids the anchor and the quoted reply already show (retrieved copies are skipped). */
  knownMessageIds: readonly string[];
  quotedReply: QuotedReply | null;
  retrieved: readonly RetrievedItem[];
  /** Candidates the search itself left out (relevance, limit, lane summaries), for the left-out report. */
  retrievalLeftOut?: readonly LeftOutCandidate[];
  /** Retrieval did not run for this message (tool results, sources off, nothing to search for). */
  /** Tokens the retrieved block may take at most (besides the window and the caller's cap). */
  retrievalTokens?: number;
  retrievalSkipped?: boolean;
  media: readonly MediaCandidate[];
  /** The session's attachment manifest: media already sent, and the turn that first sent each. */
  manifest: readonly { artifact_id: string; sha256: string; included_at_turn: number }[];
  /** The budget percentage of the previous context call of this session (for flush hints). */
  previousPercentage: number | null;
  estimator: TokenEstimator;
}

export interface RetrievedUse {
  kind: RetrievedItem['kind'];
  id: string;
  score: number;
  tokens: number;
}

export type ContextPartState = 'attached' | 'omitted_budget' | 'none';

export interface AssembledContext {
  channel: { platform: string; channel_id: string } | null;
  snapshot: ContextPartState;
  thread: ContextPartState;
  quoted_reply: ContextPartState;
  retrieved: RetrievedUse[];
  lane: {
    lane_key: string;
    version: number;
    summary_version: number;
    summary_included: boolean;
    first_kept_seq: number;
    cleared_before_seq: number;
    /** Seqs of history in view; first_sent_seq > first_kept_seq when entries were dropped. */
    first_sent_seq: number | null;
    dropped_entries: number;
  };
  focus_anchor: { kind: 'reply'; message_id: string } | { kind: 'assistant_turn'; seq: number } | null;
  pending_slot: { name: string; type: PendingSlot['type']; value: string } | null;
}

export interface AssembleResult {
  payload: AnthropicPayload;
  /** `cost` is set by the service, which knows the session's prompt cache (core/cost-model.ts). */
  budget: BudgetReport & { unused: UnusedRoom; cost?: CostReport };
  context: AssembledContext;
  /** Retrieval candidates not in the payload and why (logged; a dry run's reply carries it). */
  left_out: LeftOut;
  attachments: Attachment[];
  deferred_tools: DeferredTool[];
  notes: string[];
  cache: CacheReport;
  /**
   * The rendered user turn as the transcript stores it (without cache_control): what the payload
   * sends of it up to this turn's breakpoint; the retrieved material and notes after it are not stored.
   */
  userTurn: { content: Block[]; tokens: number };
  /**
   * The turn that carried the lane's channel context is not among the history this payload sends
   * and no channelContext was given: assemble again with it, and it is attached in this turn.
   */
  reattachChannelContext: boolean;
  /**
   * Text blocks of the payload with the tokens assembly packed them by, for the bill to take
   * instead of counting them again: the retrieved block (docs/cost-model.md, "In the product").
   */
  counted: ReadonlyMap<string, number>;
}
