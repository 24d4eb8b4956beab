// The lane's history as the model sees it (docs/design.md §6.6 step 3): stored entries from first_kept_seq
// rendered as Messages API turns — thinking blocks dropped except in the open tool loop, tool
// results before cleared_before_seq replaced by a cleared reference — grouped into units that never
// split a tool_use from its tool_result (nor the open tool loop), so the oldest units can be
// dropped when the payload is over budget.
import type Anthropic from '@anthropic-ai/sdk';
import { openToolLoopStart, renderMessagesWithSeqs } from './render.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../../shared/tokens.js';

export interface HistoryEntry {
  seq: number;
  kind: string;
  role: 'user' | 'assistant' | null;
  /** Anthropic content as stored: a string or content blocks. */
  content: unknown;
  /** Stored estimate of the content. */
  tokenEstimate: number;
}

export interface HistoryMessage {
  /** Seqs of the entries rendered into this message (consecutive same-role turns merge). */
  seqs: number[];
  message: Anthropic.MessageParam & { role: 'user' | 'assistant'; content: Block[] };
  tokens: number;
}

type Block = Anthropic.ContentBlockParam;

export function asBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (Array.isArray(content)) return content as Block[];
  return [];
}

export function toolUseIds(blocks: readonly Block[]): string[] {
  return blocks.filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use').map((b) => b.id);
}

export function toolResultIds(blocks: readonly Block[]): string[] {
  return blocks
    .filter((b): b is Anthropic.ToolResultBlockParam => b.type === 'tool_result')
    .map((b) => b.tool_use_id);
}

/**
 * Renders the kept entries of a lane with the transcript renderer (render.ts beside it, shared
 * with compaction), and attaches token counts: the stored estimates of the merged entries, or a
 * fresh count when cleared tool results changed the content.
 */
export function renderHistory(input: {
  entries: readonly HistoryEntry[];
  firstKeptSeq: number;
  clearedBeforeSeq: number;
  /** Assistant entries from this seq on keep their thinking blocks (the open tool loop's). */
  keepThinkingFromSeq?: number | null;
  estimator: TokenEstimator;
}): HistoryMessage[] {
  const stored = new Map(input.entries.map((e) => [e.seq, e.tokenEstimate]));
  return renderMessagesWithSeqs(input.entries, {
    firstKeptSeq: input.firstKeptSeq,
    clearedBeforeSeq: input.clearedBeforeSeq,
    ...(input.keepThinkingFromSeq != null ? { keepThinkingFromSeq: input.keepThinkingFromSeq } : {}),
  }).map(({ message, seqs }) => {
    const content = message.content as Block[];
    // Recounted only when clearing changed the content (a cleared result or turn context).
    const cleared =
      seqs.some((seq) => seq < input.clearedBeforeSeq) &&
      content.some(
        (b) => b.type === 'tool_result' || (b.type === 'text' && b.text.endsWith('cleared to save context]')),
      );
    const tokens = cleared
      ? input.estimator.content(content)
      : seqs.reduce((sum, seq) => sum + (stored.get(seq) ?? 0), 0);
    // Stored estimates leave thinking out (it is not sent, and the API does not count earlier
    // turns' thinking); a kept thinking block is input the API counts.
    const thinking = content.reduce((sum, b) => sum + thinkingTokens(b, input.estimator), 0);
    return {
      seqs,
      message: { role: message.role, content },
      tokens: tokens + thinking + MESSAGE_OVERHEAD_TOKENS,
    };
  });
}

/**
 * Tokens of a thinking block sent back: its text, or for a redacted block its encrypted payload's
 * decoded size at ~4 bytes a token (the reasoning behind it is not readable). 0 for other blocks.
 */
function thinkingTokens(block: Block, estimator: TokenEstimator): number {
  if (block.type === 'thinking') return estimator.text(block.thinking);
  if (block.type === 'redacted_thinking') return Math.ceil((block.data.length * 3) / 4 / 4);
  return 0;
}

/**
 * Boundaries of droppable units: index i starts a unit unless a tool_use before i is answered at
 * or after i, or i is inside the open tool loop that starts at `wholeFrom` (its first assistant
 * message carries the thinking the rest of the loop continues). Returns the start indexes in
 * ascending order (always including 0 when non-empty).
 */
export function unitStarts(messages: readonly HistoryMessage[], wholeFrom?: number): number[] {
  const resultAt = new Map<string, number>();
  messages.forEach((m, i) => {
    for (const id of toolResultIds(m.message.content)) resultAt.set(id, i);
  });
  let reach = -1;
  const starts: number[] = [];
  messages.forEach((m, i) => {
    if (i > reach && !(wholeFrom !== undefined && i > wholeFrom)) starts.push(i);
    for (const id of toolUseIds(m.message.content)) {
      const j = resultAt.get(id);
      if (j !== undefined && j > reach) reach = j;
    }
  });
  return starts;
}

/**
 * Keeps the longest suffix of whole units whose tokens fit `room`; messages from `wholeFrom` on
 * are one unit. Returns the index of the first kept message (messages.length when none fit).
 */
export function fitHistorySuffix(
  messages: readonly HistoryMessage[],
  room: number,
  wholeFrom?: number,
): number {
  const total = messages.reduce((s, m) => s + m.tokens, 0);
  if (total <= room) return 0;
  const starts = unitStarts(messages, wholeFrom);
  let dropped = 0;
  for (let u = 0; u < starts.length; u += 1) {
    const end = starts[u + 1] ?? messages.length;
    for (let i = starts[u]!; i < end; i += 1) dropped += messages[i]!.tokens;
    if (total - dropped <= room) return end;
  }
  return messages.length;
}

/**
 * The lane's history in view for a new message. While a tool loop is open (the message answers
 * tool calls), its assistant messages keep their thinking blocks as stored, and `wholeFrom` is the
 * index of the loop's first message: a cut of the view never falls after it (that message holds
 * the thinking the rest continues).
 */
export function historyWithOpenLoop(input: {
  entries: readonly HistoryEntry[];
  firstKeptSeq: number;
  clearedBeforeSeq: number;
  answersToolCalls: boolean;
  estimator: TokenEstimator;
}): { history: HistoryMessage[]; wholeFrom: number | undefined } {
  const loopStart = openToolLoopStart(input.entries, input.answersToolCalls);
  const history = renderHistory({
    entries: input.entries,
    firstKeptSeq: input.firstKeptSeq,
    clearedBeforeSeq: input.clearedBeforeSeq,
    keepThinkingFromSeq: loopStart,
    estimator: input.estimator,
  });
  const loopIndex = loopStart === null ? -1 : history.findIndex((m) => m.seqs.at(-1)! >= loopStart);
  return { history, wholeFrom: loopIndex === -1 ? undefined : loopIndex };
}
