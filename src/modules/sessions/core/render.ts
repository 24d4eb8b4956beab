// Stored transcript entries → Messages API `messages`. Pure and deterministic, so the same entries
// render to the same bytes on every call (the provider's prompt cache keeps hitting):
// - content is always rendered as a block array (a string is one text block), so appending a
//   same-role turn later only extends the bytes of the message before it;
// - consecutive turns of one role merge into one message;
// - thinking blocks are stored, and rendered only for the assistant turn a tool loop still has
//   open (`keepThinkingFromSeq`, see `openToolLoopStart`): the Messages API needs them back,
//   unmodified, with the tool results; it ignores earlier turns' thinking, so those are not sent;
// - tool_result blocks and rendered turn context (snapshot, retrieved material, notes) of entries
//   before `clearedBeforeSeq` render as short cleared references;
// - the window never starts between a tool_use and its tool_result: a kept tool_result pulls in
//   the entry holding its tool_use (and halves of pairs missing from the given entries are dropped).
import { contentBlocks, renderedContextTag, type ContentBlock } from '../../../shared/content-blocks.js';
import { offloadRefIdOf } from './offload.js';

export interface RenderableEntry {
  seq: number;
  kind: string;
  role: 'user' | 'assistant' | null;
  content: unknown;
}

interface RenderedMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

interface RenderedMessageWithSeqs {
  message: RenderedMessage;
  /** Seqs of the entries merged into this message, ascending. */
  seqs: number[];
}

interface RenderOptions {
  /** Entries before this seq are not rendered (the lane's first kept entry). Default: all. */
  firstKeptSeq?: number;
  /** tool_result blocks of entries before this seq render as cleared references. Default: none. */
  clearedBeforeSeq?: number;
  /**
   * Assistant entries from this seq on keep their thinking and redacted_thinking blocks, exactly
   * as stored (the open tool loop's: `openToolLoopStart`). Default: no thinking is rendered.
   */
  keepThinkingFromSeq?: number;
}

/** Entry kinds that are conversation turns (sent to the model); compaction/session records are not. */
const RENDERED_KINDS = new Set(['message', 'context_attachment']);
const HIDDEN_BLOCKS = new Set(['thinking', 'redacted_thinking']);

export function renderMessages(
  entries: readonly RenderableEntry[],
  options: RenderOptions = {},
): RenderedMessage[] {
  return renderMessagesWithSeqs(entries, options).map((m) => m.message);
}

export function renderMessagesWithSeqs(
  entries: readonly RenderableEntry[],
  options: RenderOptions = {},
): RenderedMessageWithSeqs[] {
  const turns = [...entries]
    .filter((e) => RENDERED_KINDS.has(e.kind) && (e.role === 'user' || e.role === 'assistant'))
    .sort((a, b) => a.seq - b.seq);
  const start = toolSafeStart(turns, options.firstKeptSeq ?? 0);
  const kept = turns.filter((e) => e.seq >= start);
  const clearedBefore = options.clearedBeforeSeq ?? 0;
  const keepThinkingFrom = options.keepThinkingFromSeq ?? Number.POSITIVE_INFINITY;
  const { useIds, resultIds } = toolIds(kept);
  const lastUserSeq = kept.reduce((max, e) => (e.role === 'user' ? Math.max(max, e.seq) : max), -1);
  const out: RenderedMessageWithSeqs[] = [];
  for (const entry of kept) {
    const blocks = contentBlocks(entry.content)
      .filter((b) => !HIDDEN_BLOCKS.has(b.type) || entry.seq >= keepThinkingFrom)
      // Defensive: a pair cut by the caller's entry selection would be rejected by the API.
      // A result without its call is dropped; a call without its result is kept only while it
      // can still be answered (no user turn after it).
      .filter((b) => b.type !== 'tool_result' || useIds.has(b.tool_use_id))
      .filter((b) => b.type !== 'tool_use' || resultIds.has(b.id) || entry.seq > lastUserSeq)
      .map((b) => (entry.seq < clearedBefore ? clearedBlock(b) : b));
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.message.role === entry.role) {
      last.message.content.push(...blocks);
      last.seqs.push(entry.seq);
    } else {
      out.push({ message: { role: entry.role!, content: blocks }, seqs: [entry.seq] });
    }
  }
  return out;
}

/**
 * Seq of the first assistant entry of the turn a tool loop still has open, or null when none is.
 * A loop is open when the last user message — the stored entries' last user entry, or the new
 * message `nextUserHasToolResult` says carries tool_result blocks — answers tool calls: the
 * Messages API then treats every assistant message since the last user message without a
 * tool_result as one assistant turn, and needs its thinking blocks back.
 */
export function openToolLoopStart(
  entries: readonly RenderableEntry[],
  nextUserHasToolResult: boolean,
): number | null {
  const turns = [...entries]
    .filter((e) => RENDERED_KINDS.has(e.kind) && (e.role === 'user' || e.role === 'assistant'))
    .sort((a, b) => a.seq - b.seq);
  const hasResult = (e: RenderableEntry) => contentBlocks(e.content).some((b) => b.type === 'tool_result');
  const last = turns.at(-1);
  // The new message merges into a last user entry: that entry's results count as the message's.
  const open = nextUserHasToolResult || (last?.role === 'user' && hasResult(last));
  if (!open) return null;
  let start: number | null = null;
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const entry = turns[i]!;
    if (entry.role === 'assistant') start = entry.seq;
    else if (!hasResult(entry)) break;
  }
  return start;
}

/**
 * The open tool loop of stored entries alone (compaction runs between calls): open when the last
 * turn calls tools (the next message must answer them) or answers them.
 */
export function storedToolLoopStart(entries: readonly RenderableEntry[]): number | null {
  const last = [...entries]
    .filter((e) => RENDERED_KINDS.has(e.kind) && (e.role === 'user' || e.role === 'assistant'))
    .reduce<RenderableEntry | null>((a, e) => (a === null || e.seq > a.seq ? e : a), null);
  const calls = last?.role === 'assistant' && contentBlocks(last.content).some((b) => b.type === 'tool_use');
  return openToolLoopStart(entries, calls);
}

/**
 * Where a window meant to start at `cut` must start to keep tool pairs whole: moved back to the
 * entry holding the tool_use of any tool_result at or after it. Compaction uses it to choose
 * where the kept history starts.
 */
export function toolSafeStart(entries: readonly RenderableEntry[], cut: number): number {
  const useSeq = new Map<string, number>();
  for (const entry of entries) {
    if (entry.role !== 'assistant') continue;
    for (const block of contentBlocks(entry.content)) {
      if (block.type === 'tool_use') useSeq.set(block.id, entry.seq);
    }
  }
  let start = cut;
  // A pulled-in entry can itself hold results of earlier calls, so repeat until stable.
  for (let changed = true; changed;) {
    changed = false;
    for (const entry of entries) {
      if (entry.seq < start || entry.role !== 'user') continue;
      for (const block of contentBlocks(entry.content)) {
        if (block.type !== 'tool_result') continue;
        const seq = useSeq.get(block.tool_use_id);
        if (seq !== undefined && seq < start) {
          start = seq;
          changed = true;
        }
      }
    }
  }
  return start;
}

function toolIds(entries: readonly RenderableEntry[]) {
  const useIds = new Set<string>();
  const resultIds = new Set<string>();
  for (const entry of entries) {
    for (const block of contentBlocks(entry.content)) {
      if (block.type === 'tool_use') useIds.add(block.id);
      if (block.type === 'tool_result') resultIds.add(block.tool_use_id);
    }
  }
  return { useIds, resultIds };
}

/** Text of a cleared tool result; keeps the offload reference so the agent can still read it. */
export function clearedToolResultText(content: unknown): string {
  const refId = offloadRefIdOf(content);
  return refId
    ? `[Tool result cleared to save context. Use read_result with ref_id="${refId}" to read it again.]`
    : '[Tool result cleared to save context.]';
}

/** Before cleared_before_seq: tool results and rendered turn context shrink to short references. */
function clearedBlock(block: ContentBlock): ContentBlock {
  if (block.type === 'text') {
    const tag = renderedContextTag(block.text);
    return tag ? { type: 'text', text: `[${tag} of this turn cleared to save context]` } : block;
  }
  if (block.type !== 'tool_result') return block;
  const cleared: ContentBlock = {
    type: 'tool_result',
    tool_use_id: block.tool_use_id,
    content: clearedToolResultText(block.content),
  };
  if (block.is_error !== undefined) cleared.is_error = block.is_error;
  return cleared;
}
