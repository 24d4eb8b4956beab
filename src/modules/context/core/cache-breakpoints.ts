// Prompt-cache breakpoints (docs/design.md §6.6): at most 4 — end of the last cacheable system block, end
// of the lane summary, end of the previous turn, end of this turn. Without a cacheable system
// block the first breakpoint goes on the last tool, so tools are still cached. Blocks are copied
// before they are marked, so stored content (and the caller's input) is never mutated.
import type Anthropic from '@anthropic-ai/sdk';

export type BreakpointPosition = 'system' | 'tools' | 'summary' | 'previous_turn' | 'this_turn';

export interface CacheBreakpoint {
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

/** Marks the payload in place (on copied blocks) and reports where the breakpoints are. */
export function placeCacheBreakpoints(
  payload: Anthropic.MessageCreateParamsNonStreaming,
  at: {
    lastCacheableSystem: number;
    summaryMessage: number | null;
    /** The previous turn ends at this message, at or before this block. */
    previousTurn: { message: number; block: number } | null;
    stablePrefixTokens: number;
  },
): CacheReport {
  const breakpoints: CacheBreakpoint[] = [];
  const system = Array.isArray(payload.system) ? payload.system : null;
  if (system && at.lastCacheableSystem >= 0) {
    system[at.lastCacheableSystem] = { ...system[at.lastCacheableSystem]!, cache_control: EPHEMERAL };
    breakpoints.push({ position: 'system', index: at.lastCacheableSystem });
  } else if (payload.tools && payload.tools.length > 0) {
    const index = payload.tools.length - 1;
    payload.tools = [...payload.tools];
    payload.tools[index] = { ...(payload.tools[index] as Anthropic.Tool), cache_control: EPHEMERAL };
    breakpoints.push({ position: 'tools', index });
  }
  const mark = (position: BreakpointPosition, index: number | null, upTo?: number) => {
    if (index === null || breakpoints.length >= MAX_BREAKPOINTS) return;
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
  mark('this_turn', payload.messages.length - 1);
  return { breakpoints, stable_prefix_tokens: at.stablePrefixTokens };
}

/** The payload without cache_control markers: what the provider's prefix cache compares. */
export function withoutCacheControl<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v)),
  ) as T;
}
