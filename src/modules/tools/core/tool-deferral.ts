// Tool deferral (docs/design.md §6.7): when tool descriptions take more than TOOL_DEFERRAL_SHARE of the
// effective window, hold some back — MCP tools first, then skill tools, least recently used first
// within a kind; built-ins never: contextd's, the caller's `builtin` ones, caller tools without a
// source and server tools. `tool_search` finds deferred tools and promotes them for the next turn;
// promoted tools are not deferred that turn.
import type Anthropic from '@anthropic-ai/sdk';
import type { TokenEstimator } from '../../../shared/tokens.js';

type ToolSource = 'builtin' | 'mcp' | 'skill';

/**
 * A caller's tool as given: a client tool (name, input_schema, …) or a server tool (`type`), with
 * contextd's optional `source`, which is never sent.
 */
export interface CallerTool {
  type?: string | null;
  name?: string;
  description?: string;
  input_schema?: Anthropic.Tool.InputSchema;
  cache_control?: Anthropic.CacheControlEphemeral | null;
  source?: ToolSource;
  [field: string]: unknown;
}

/** The caller's tool as sent to the model (without `source`), and how deferral treats it. */
export function callerToolCandidate(
  tool: CallerTool,
  lastUsed: Readonly<Record<string, number>>,
): DeferralCandidate {
  const { source, ...sent } = tool;
  const server = tool.type !== undefined && tool.type !== null && tool.type !== 'custom';
  return {
    tool: sent as Anthropic.ToolUnion,
    // Server tools run at the provider and toolsets have no name to search: never deferred.
    source: server ? 'builtin' : (source ?? 'builtin'),
    lastUsedSeq: tool.name === undefined ? undefined : lastUsed[tool.name],
  };
}

export interface DeferralCandidate {
  tool: Anthropic.ToolUnion;
  source: ToolSource;
  /** Transcript seq of the tool's last use in this session; undefined = never used. */
  lastUsedSeq?: number;
}

export interface DeferredTool {
  name: string;
  description: string;
  source: ToolSource;
  tokens: number;
}

interface DeferralResult {
  active: Anthropic.ToolUnion[];
  deferred: DeferredTool[];
  /** Tokens of the active tools' definitions. */
  activeTokens: number;
  note: string | null;
}

const nameOf = (tool: Anthropic.ToolUnion) => ('name' in tool ? tool.name : '');
const descriptionOf = (tool: Anthropic.ToolUnion) =>
  'description' in tool && typeof tool.description === 'string' ? tool.description : '';

/** Counts of frozen tools (the built-ins: the same definitions on every call), per estimator. */
const FROZEN_TOOL_TOKENS = new WeakMap<TokenEstimator, WeakMap<object, number>>();

export function toolTokens(tool: Anthropic.ToolUnion, estimator: TokenEstimator): number {
  if (!Object.isFrozen(tool)) return estimator.text(JSON.stringify(tool));
  let counts = FROZEN_TOOL_TOKENS.get(estimator);
  if (!counts) FROZEN_TOOL_TOKENS.set(estimator, (counts = new WeakMap()));
  let tokens = counts.get(tool);
  if (tokens === undefined) counts.set(tool, (tokens = estimator.text(JSON.stringify(tool))));
  return tokens;
}

export function deferralNote(count: number): string {
  return `[${count} tool${count === 1 ? '' : 's'} deferred to save context. Use tool_search to find them.]`;
}

const KIND_ORDER: Record<ToolSource, number> = { mcp: 0, skill: 1, builtin: 2 };

/**
 * Chooses which tools to send. `tools` is the full list in payload order (built-ins first); the
 * order of the active tools is kept. Deterministic: ties in recency break by name.
 */
export function deferTools(input: {
  tools: DeferralCandidate[];
  effectiveWindow: number;
  share: number;
  promoted?: ReadonlySet<string>;
  estimator: TokenEstimator;
}): DeferralResult {
  const sizes = input.tools.map((t) => toolTokens(t.tool, input.estimator));
  let total = sizes.reduce((a, b) => a + b, 0);
  const threshold = Math.floor(input.share * input.effectiveWindow);
  const deferred = new Set<number>();
  if (total > threshold) {
    const order = input.tools
      .map((t, index) => ({ t, index }))
      .filter(({ t }) => t.source !== 'builtin' && !input.promoted?.has(nameOf(t.tool)))
      .sort(
        (a, b) =>
          KIND_ORDER[a.t.source] - KIND_ORDER[b.t.source] ||
          (a.t.lastUsedSeq ?? -1) - (b.t.lastUsedSeq ?? -1) ||
          (nameOf(a.t.tool) < nameOf(b.t.tool) ? -1 : nameOf(a.t.tool) > nameOf(b.t.tool) ? 1 : 0),
      );
    for (const { index } of order) {
      if (total <= threshold) break;
      deferred.add(index);
      total -= sizes[index]!;
    }
  }
  const active: Anthropic.ToolUnion[] = [];
  const held: DeferredTool[] = [];
  input.tools.forEach((t, index) => {
    if (deferred.has(index)) {
      held.push({
        name: nameOf(t.tool),
        description: descriptionOf(t.tool),
        source: t.source,
        tokens: sizes[index]!,
      });
    } else active.push(t.tool);
  });
  return {
    active,
    deferred: held,
    activeTokens: total,
    note: held.length > 0 ? deferralNote(held.length) : null,
  };
}

/** Deferred tools matching a query: every query word in the name or description, best first. */
export function searchTools<T extends { name: string; description?: string }>(
  tools: readonly T[],
  query: string,
  maxResults: number,
): T[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  if (words.length === 0) return [];
  const scored = tools
    .map((tool) => {
      const name = tool.name.toLowerCase();
      const haystack = `${name} ${(tool.description ?? '').toLowerCase()}`;
      let score = 0;
      for (const word of words) {
        if (name.includes(word)) score += 3;
        else if (haystack.includes(word)) score += 1;
      }
      return { tool, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
  return scored.slice(0, maxResults).map((s) => s.tool);
}
