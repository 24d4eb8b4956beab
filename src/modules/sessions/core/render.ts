// Stored transcript entries → Messages API `messages`. Pure and deterministic, so the same entries
// render to the same bytes on every call (the provider's prompt cache keeps hitting):
// - content is always rendered as a block array (a string is one text block), so appending a
//   same-role turn later only extends the bytes of the message before it;
// - consecutive turns of one role merge into one message;
// - thinking blocks are stored, never rendered;
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

export interface RenderedMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface RenderedMessageWithSeqs {
  message: RenderedMessage;
  /** Seqs of the entries merged into this message, ascending. */
  seqs: number[];
}

export interface RenderOptions {
  /** Entries before this seq are not rendered (the lane's first kept entry). Default: all. */
  firstKeptSeq?: number;
  /** tool_result blocks of entries before this seq render as cleared references. Default: none. */
  clearedBeforeSeq?: number;
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
  const { useIds, resultIds } = toolIds(kept);
  const lastUserSeq = kept.reduce((max, e) => (e.role === 'user' ? Math.max(max, e.seq) : max), -1);
  const out: RenderedMessageWithSeqs[] = [];
  for (const entry of kept) {
    const blocks = contentBlocks(entry.content)
      .filter((b) => !HIDDEN_BLOCKS.has(b.type))
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
