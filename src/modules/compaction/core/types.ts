// The shapes compaction's pure steps and its I/O pieces agree on: lane entries in, a plan and a
// summary out. Planning, cut points and the extractive summarizer live in this folder; the LLM
// summarizer, the job queue and the fenced commit live beside it in the module.
import type { HistoryEntry } from '../../sessions/core/history-view.js';

/** One stored transcript entry of a lane, as compaction reads it (a history entry plus its time). */
export interface LaneEntry extends HistoryEntry {
  /** ms since epoch: when the turn happened (turn_at, else created_at). */
  at: number;
  /** Who said it, as the caller or the channel told (summaries name speakers by it). */
  author?: { id?: string; name?: string } | null;
}

/** The numbers compaction is tuned by (defaults in `compactionDefaults`). */
export interface CompactionSettings {
  /** A lane over this many entries since its first kept entry needs compaction (30). */
  maxEntries: number;
  /** A lane over this many tokens since its first kept entry needs compaction (2,500). */
  maxTokens: number;
  /** A summary older than this (ms) needs refreshing when the lane has new entries (24 h). */
  maxSummaryAgeMs: number;
  /** Entries kept verbatim after a summarization (10). */
  keepRecent: number;
  /** Tool uses whose results stay visible when clearing (3). */
  keepToolUses: number;
  /** The provider's prompt-cache TTL: clearing prefers a cache already cold (5 min). */
  cacheTtlMs: number;
  /**
   * History past this share of the effective window makes the lane due for a change of its sent
   * view at the next cold provider cache (0.5).
   */
  historyShare: number;
  /**
   * A change of the sent view (the window needs it, or the cache is cold and the lane is due) keeps
   * the newest history up to this share of the effective window verbatim (0.25): a step large
   * enough that the next one is far away.
   */
  keepShare: number;
  /** The stored summary is cut to this many characters (16,000). */
  summaryMaxChars: number;
  /**
   * The summary's token target as a share of the effective window it is sent within (0.05): a
   * summary for a 24k window aims at 1,200 tokens, one for a 200k window reaches the stored cap.
   */
  summaryWindowShare: number;
  /** The summarizer's context window in tokens; its input never exceeds 40% of it. */
  summarizerWindowTokens: number;
  /** Share of the summarizer window one request may fill (0.4). */
  summarizerInputShare: number;
}

export const compactionDefaults: CompactionSettings = {
  maxEntries: 30,
  maxTokens: 2_500,
  maxSummaryAgeMs: 24 * 60 * 60 * 1000,
  keepRecent: 10,
  keepToolUses: 3,
  cacheTtlMs: 5 * 60 * 1000,
  historyShare: 0.5,
  keepShare: 0.25,
  summaryMaxChars: 16_000,
  summaryWindowShare: 0.05,
  summarizerWindowTokens: 200_000,
  summarizerInputShare: 0.4,
};

export type CompactionStrategy = 'clear_tool_results' | 'summarize' | 'truncate';

/**
 * The sections every lane summary has, in this order. The last one holds the names, numbers,
 * dates and ids whose sentences did not fit: recency never evicts them (summary-doc.ts).
 */
export const SUMMARY_SECTIONS = [
  'Participants',
  'Requests and open questions',
  'Decisions and commitments',
  'Facts',
  'Outcomes',
  'Current work and next step',
  'Names, numbers and dates',
] as const;

export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

/** What a summarizer is asked to do: fold `entries` into `previousSummary`. */
export interface SummarizeRequest {
  laneKey: string;
  /** The lane's current summary, updated rather than restarted; null for the first one. */
  previousSummary: string | null;
  /** The entries leaving the verbatim view, oldest first. */
  entries: readonly LaneEntry[];
  /** Tokens the summary should fit in (summaryTarget); the stored cap when absent. */
  targetTokens?: number;
  /** Names of the session's speakers, for entries that carry no author name. */
  speakers?: { user?: string | null; assistant?: string | null };
}

export interface SummarizerUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface SummaryResult {
  /** The new summary, redacted and capped (summaryMaxChars). */
  text: string;
  summarizer: 'llm' | 'extractive';
  /** Why the extractive summarizer was used instead of the LLM (no key, cap, error …). */
  fallbackReason: string | null;
  /** Provider-reported spend (zero for the extractive summarizer). */
  usage: SummarizerUsage;
  /** Requests made to the provider (stages + merge). */
  calls: number;
}

export interface Summarizer {
  summarize(request: SummarizeRequest): Promise<SummaryResult>;
}

/** Identifiers found in the summarized entries and how many of them the summary kept verbatim. */
export interface IdentifierSurvival {
  total: number;
  kept: number;
  /** Up to 20 identifiers the summary lost, for the record. */
  missing: string[];
}
