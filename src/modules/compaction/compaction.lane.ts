// The pure parts of a lane's compaction (compaction.service.ts compactLane): the lane's entries as
// the planner reads them, and the outcome, survival and record of a compaction, from what it read,
// summarized and committed.
import type { CompactionRepository } from './compaction.repository.js';
import type { LaneStateRow } from '../lanes/lanes.repository.js';
import type { LaneOutcome } from './compaction.schemas.js';
import type { LanePlan } from './core/lane-plan.js';
import { DELETED_MARKER } from './core/purge.js';
import { identifierSurvival } from './core/identifiers.js';
import { keyTermSurvival } from './core/salience.js';
import { entrySaid, entryText } from './core/chunking.js';
import { redactText } from '../memory/core/redaction.js';
import type { LaneEntry, SummaryResult } from './core/types.js';
import type { CompactionTrigger, CompactParams } from './compaction.service.js';

export const toLaneEntry = (row: {
  seq: number;
  kind: string;
  role: 'user' | 'assistant' | null;
  content: unknown;
  tokenEstimate: number;
  turnAt: Date | null;
  createdAt: Date;
  author?: { id?: string; name?: string } | null;
}): LaneEntry => ({
  seq: row.seq,
  kind: row.kind,
  role: row.role,
  content: row.content,
  tokenEstimate: row.tokenEstimate,
  at: (row.turnAt ?? row.createdAt).getTime(),
  author: row.author ?? null,
});

/**
 * A turn as the summarizer reads it: a turn that is a channel message carries the message's
 * current text (edited) or the marker (deleted); other turns as stored.
 */
export function asSaidNow(
  row: Parameters<typeof toLaneEntry>[0] & {
    sourceDeleted: boolean | null;
    sourceEditedText: string | null;
  },
): LaneEntry {
  const entry = toLaneEntry(row);
  if (row.sourceDeleted) return { ...entry, content: DELETED_MARKER };
  if (row.sourceEditedText !== null) return { ...entry, content: row.sourceEditedText };
  return entry;
}

export const lockResource = (tenantId: string, sessionId: string) => `compaction:${tenantId}:${sessionId}`;

/** A lane's compaction is asked for with the session's key and agent. */
export type LaneParams = CompactParams & { sessionKey: string; agentId: string | null };

/** What compacting a lane starts from: its verbatim view, the plan for it, and its size now. */
export interface LaneRead {
  keptRows: Awaited<ReturnType<CompactionRepository['laneTurns']>>;
  kept: LaneEntry[];
  /** Texts deleted from the lane that the summarizer must not read. */
  purge: string[];
  plan: LanePlan;
  /** Lane tokens: the view as sent plus the summary that precedes it. */
  beforeTokens: number;
}

/** The new summary and what it was made from (none when the plan summarizes nothing). */
export interface LaneSummary {
  summary: SummaryResult | null;
  /** The entries the summarizer read. */
  summarized: LaneEntry[];
  /** Everything the lane's summary covers after this compaction (cumulative survival). */
  covered: LaneEntry[];
}

/** How much of what the new summary replaces it still names (null without a new summary). */
export interface SummarySurvival {
  identifiers: ReturnType<typeof identifierSurvival> | null;
  terms: {
    slice: ReturnType<typeof keyTermSurvival>;
    cumulative: ReturnType<typeof keyTermSurvival>;
  } | null;
}

/** A planned and summarized compaction, ready to commit. */
export interface LaneCompaction {
  read: LaneRead;
  made: LaneSummary;
  survival: SummarySurvival;
  /** Lane tokens once committed: the new view plus the (new or kept) summary. */
  afterTokens: number;
}

/** What the commit wrote: the lane's new state and its record's seq (null when fenced). */
export type LaneCommitted = {
  committed: LaneStateRow;
  seq: Awaited<ReturnType<CompactionRepository['appendRecord']>>;
} | null;

/** The lane's outcome when nothing is written: its size and state as they are, and why. */
export function skippedOutcome(state: LaneStateRow, { kept, plan, beforeTokens }: LaneRead): LaneOutcome {
  return {
    lane_key: state.laneKey,
    outcome: 'skipped',
    strategies_run: [],
    before_tokens: beforeTokens,
    after_tokens: beforeTokens,
    before_messages: kept.length,
    after_messages: kept.length,
    summary_version: state.summaryVersion,
    first_kept_seq: state.firstKeptSeq,
    cleared_before_seq: state.clearedBeforeSeq,
    summarizer: null,
    fallback_reason: null,
    summarizer_tokens: { input: 0, output: 0 },
    identifiers: null,
    key_terms: null,
    record_seq: null,
    reason:
      plan.deferred === 'cache_warm'
        ? 'only a clearing is due; it waits for the provider cache to go cold'
        : plan.steps.length === 0
          ? 'under target'
          : null,
  };
}

/**
 * Identifiers and key terms (of this slice and of all the summary covers) the new summary keeps.
 * Read from the turns' redacted text, as the summarizer wrote from: the ones missing are listed in
 * the compaction record, which the transcript returns, so a secret must not be one of them.
 */
export function summarySurvival({ summary, summarized, covered }: LaneSummary): SummarySurvival {
  if (!summary) return { identifiers: null, terms: null };
  return {
    identifiers: identifierSurvival(
      summarized.map((e) => redactText(entryText(e))),
      summary.text,
    ),
    terms: {
      slice: keyTermSurvival(
        summarized.map((e) => redactText(entrySaid(e))),
        summary.text,
      ),
      cumulative: keyTermSurvival(
        covered.map((e) => redactText(entrySaid(e))),
        summary.text,
      ),
    },
  };
}

/** The compaction record appended to the lane's transcript with the commit. */
export function compactionRecord(
  trigger: CompactionTrigger,
  state: LaneStateRow,
  committed: LaneStateRow,
  { read, made, survival, afterTokens }: LaneCompaction,
) {
  const { plan } = read;
  const { summary, summarized } = made;
  return {
    type: 'compaction',
    trigger,
    lane_key: state.laneKey,
    strategies: plan.steps,
    summary: committed.summary,
    summary_version: committed.summaryVersion,
    covers: summary
      ? { from_seq: summarized[0]?.seq ?? null, through_seq: plan.summarizeBeforeSeq! - 1 }
      : null,
    first_kept_seq: committed.firstKeptSeq,
    cleared_before_seq: committed.clearedBeforeSeq,
    tokens_before: read.beforeTokens,
    tokens_after: afterTokens,
    messages_before: read.kept.length,
    messages_after: plan.keptMessages,
    summarizer: summary?.summarizer ?? null,
    fallback_reason: summary?.fallbackReason ?? null,
    summarizer_usage: summary
      ? { input_tokens: summary.usage.inputTokens, output_tokens: summary.usage.outputTokens }
      : null,
    identifiers: survival.identifiers,
    key_terms: survival.terms,
    lane_version: committed.version,
  };
}

/** The lane's outcome after the commit: fenced (nothing written) or committed (its new state). */
export function laneOutcome(skipped: LaneOutcome, done: LaneCompaction, written: LaneCommitted): LaneOutcome {
  const { plan } = done.read;
  const { summary } = done.made;
  const { identifiers, terms } = done.survival;
  const result: LaneOutcome = {
    ...skipped,
    strategies_run: plan.steps,
    summarizer: summary?.summarizer ?? null,
    fallback_reason: summary?.fallbackReason ?? null,
    summarizer_tokens: summary
      ? { input: summary.usage.inputTokens, output: summary.usage.outputTokens }
      : { input: 0, output: 0 },
    identifiers: identifiers ? { total: identifiers.total, kept: identifiers.kept } : null,
    key_terms: terms
      ? {
          slice: { total: terms.slice.total, kept: terms.slice.kept },
          cumulative: { total: terms.cumulative.total, kept: terms.cumulative.kept },
        }
      : null,
  };
  if (!written) {
    // Another change of the lane committed after this compaction read it: nothing is written.
    return { ...result, outcome: 'fenced', reason: 'the lane changed while compacting (version moved)' };
  }
  return {
    ...result,
    outcome: 'committed',
    after_tokens: done.afterTokens,
    after_messages: plan.keptMessages,
    summary_version: written.committed.summaryVersion,
    first_kept_seq: written.committed.firstKeptSeq,
    cleared_before_seq: written.committed.clearedBeforeSeq,
    record_seq: written.seq,
  };
}
