// Prompt-cache breakpoints (docs/design.md §6.6): at most 4 in the whole payload — end of the last
// cacheable system block, end of the lane summary, end of the previous turn, end of this turn.
// Without a cacheable system block the first breakpoint goes on the last tool, so tools are still
// cached, unless a caller's tool already carries one. Breakpoints the caller put on tools count
// against the 4: ours are then left out summary first, then system/tools, then the previous turn
// (this turn's goes last). Blocks are copied before they are marked, so stored content (and the
// caller's input) is never mutated.
import type Anthropic from '@anthropic-ai/sdk';

type BreakpointPosition = 'system' | 'tools' | 'summary' | 'previous_turn' | 'this_turn';

interface CacheBreakpoint {
  position: BreakpointPosition;
  /** Index into system, tools or messages. */
  index: number;
  /** Content block index within the message (messages only). */
  block?: number;
}

export interface CacheReport {
  breakpoints: CacheBreakpoint[];
  /** Estimated tokens before the previous-turn breakpoint: what a warm cache should serve. */
  stable_prefix_tokens: number;
}

export const MAX_BREAKPOINTS = 4;
const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

type Block = Anthropic.ContentBlockParam;
const CACHEABLE_BLOCKS = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result']);

function lastCacheableBlock(blocks: readonly Block[], upTo = blocks.length - 1): number | null {
  for (let i = Math.min(upTo, blocks.length - 1); i >= 0; i -= 1) {
    if (CACHEABLE_BLOCKS.has(blocks[i]!.type)) return i;
  }
  return null;
}

/** Whether a block carries a breakpoint. */
function marked(value: unknown): boolean {
  return (
    value !== null && typeof value === 'object' && 'cache_control' in value && Boolean(value.cache_control)
  );
}

/** Marks the payload in place (on copied blocks) and reports where the breakpoints are. */

export function placeCacheBreakpoints(
  payload: Anthropic.MessageCreateParamsNonStreaming,
  at: {
    lastCacheableSystem: number;
    summaryMessage: number | null;
    /** The previous turn ends at this message, at or before this block. */
    previousTurn: { message: number; block: number } | null;
    /** This turn's stored part ends at this block of the last message (what follows is this payload's only). */
    thisTurnEnd?: number;
    stablePrefixTokens: number;
  },
): CacheReport {
  const breakpoints: CacheBreakpoint[] = [];
  const callerMarked = (payload.tools ?? []).some((t) => 'cache_control' in t && t.cache_control);
  const fixed = countCacheControl(payload);
  // Ours, by priority: this turn, the previous turn, system or tools, the summary.
  const wanted = {
    this_turn: true,
    previous_turn: at.previousTurn !== null,
    head: (Array.isArray(payload.system) && at.lastCacheableSystem >= 0) || !callerMarked,
    summary: at.summaryMessage !== null,
  };
  let room = MAX_BREAKPOINTS - fixed;
  const allow = (want: boolean) => {
    if (!want || room <= 0) return false;
    room -= 1;
    return true;
  };
  const allowed = {
    this_turn: allow(wanted.this_turn),
    previous_turn: allow(wanted.previous_turn),
    head: allow(wanted.head),
    summary: allow(wanted.summary),
  };
  const system = Array.isArray(payload.system) ? payload.system : null;
  if (allowed.head && system && at.lastCacheableSystem >= 0) {
    system[at.lastCacheableSystem] = { ...system[at.lastCacheableSystem]!, cache_control: EPHEMERAL };
    breakpoints.push({ position: 'system', index: at.lastCacheableSystem });
  } else if (allowed.head && payload.tools && payload.tools.length > 0) {
    const index = payload.tools.length - 1;
    payload.tools = [...payload.tools];
    payload.tools[index] = { ...payload.tools[index]!, cache_control: EPHEMERAL } as Anthropic.ToolUnion;
    breakpoints.push({ position: 'tools', index });
  }
  const mark = (position: BreakpointPosition, index: number | null, upTo?: number) => {
    if (index === null || !allowed[position as keyof typeof allowed]) return;
    const message = payload.messages[index];
    if (!message) return;
    const blocks: Block[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    const block = lastCacheableBlock(blocks, upTo);
    if (block === null) return;
    blocks[block] = { ...blocks[block]!, cache_control: EPHEMERAL } as Block;
    payload.messages[index] = { ...message, content: blocks } as Anthropic.MessageParam;
    breakpoints.push({ position, index, block });
  };
  mark('summary', at.summaryMessage);
  if (at.previousTurn) mark('previous_turn', at.previousTurn.message, at.previousTurn.block);
  mark('this_turn', payload.messages.length - 1, at.thisTurnEnd);
  return { breakpoints, stable_prefix_tokens: at.stablePrefixTokens };
}

/** cache_control markers already in the payload (tools, system and message blocks, one level deep). */
function countCacheControl(payload: Anthropic.MessageCreateParamsNonStreaming): number {
  let count = (payload.tools ?? []).filter(marked).length;
  if (Array.isArray(payload.system)) count += payload.system.filter(marked).length;
  for (const message of payload.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (marked(block)) count += 1;
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        count += block.content.filter(marked).length;
      }
    }
  }
  return count;
}

/**
 * Message blocks without the caller's cache_control markers (top level and inside tool results):
 * contextd places the message breakpoints, and stored turns would otherwise carry a caller's
 * marker into every later payload, past the limit of 4. Unmarked blocks are returned as they are.
 */
export function withoutMessageCacheControl(blocks: readonly Block[]): Block[] {
  return blocks.map((block) => {
    let out = block;
    if ('cache_control' in out) {
      const { cache_control: _dropped, ...rest } = out;
      out = rest as Block;
    }
    if (
      out.type === 'tool_result' &&
      Array.isArray(out.content) &&
      out.content.some((b) => 'cache_control' in b)
    ) {
      const inner = withoutMessageCacheControl(out.content as Block[]);
      out = { ...out, content: inner as typeof out.content };
    }
    return out;
  });
}

/** The payload without cache_control markers: what the provider's prefix cache compares. */
export function withoutCacheControl<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v)),
  ) as T;
}
