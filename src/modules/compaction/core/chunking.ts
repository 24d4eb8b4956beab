// What the summarizer reads: lane entries rendered as a plain, labelled transcript, cut into
// chunks that each fit the summarizer's input bound, so compaction can never overflow itself. An
// entry too large for one chunk keeps its head and tail with the middle marked as omitted.
import { asBlocks } from '../../sessions/core/history-view.js';
import type { TokenEstimator } from '../../../shared/tokens.js';
import { renderedContextTag } from '../../../shared/content-blocks.js';
import { dateNote } from './dates.js';
import { parseSummary, PARTICIPANTS } from './summary-doc.js';
import type { LaneEntry, SummarizeRequest } from './types.js';

/** The most characters of a tool_use input rendered for the summarizer. */
const TOOL_INPUT_CHARS = 600;

function blockText(block: Record<string, unknown>): string {
  switch (block.type) {
    case 'text':
      // Context contextd rendered into the turn is not what was said: not summarized.
      return renderedContextTag(String(block.text ?? '')) ? '' : String(block.text ?? '');
    case 'tool_use': {
      const input = JSON.stringify(block.input ?? {});
      const shown = input.length > TOOL_INPUT_CHARS ? `${input.slice(0, TOOL_INPUT_CHARS)}…` : input;
      return `[tool call ${String(block.name)} ${shown}]`;
    }
    case 'tool_result': {
      const content = block.content;
      const text =
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content.map((b) => blockText(b as Record<string, unknown>)).join('\n')
            : '';
      return `[tool result${block.is_error ? ' (error)' : ''}] ${text}`;
    }
    case 'image':
      return '[image]';
    case 'document':
      return `[document${typeof block.title === 'string' ? ` ${block.title}` : ''}]`;
    default:
      // thinking and redacted_thinking are the model's own scratch work: not summarized.
      return '';
  }
}

/** What an entry says, as plain text (tool calls and results labelled, thinking left out). */
export function entryText(entry: LaneEntry): string {
  return asBlocks(entry.content)
    .map((b) => blockText(b as unknown as Record<string, unknown>))
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/** What an entry says in its own words (text blocks only, rendered context left out). */
export function entrySaid(entry: LaneEntry): string {
  return asBlocks(entry.content)
    .filter((b) => b.type === 'text')
    .map((b) => blockText(b as unknown as Record<string, unknown>))
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/** The tool calls an entry makes and the tool results it carries, as plain text. */
export function entryTools(entry: LaneEntry): {
  calls: { id: string; name: string; input: string }[];
  results: { toolUseId: string; isError: boolean; text: string }[];
} {
  const blocks = asBlocks(entry.content) as unknown as Record<string, unknown>[];
  return {
    calls: blocks
      .filter((b) => b.type === 'tool_use')
      .map((b) => ({
        id: String(b.id),
        name: String(b.name),
        input: blockText(b).replace(/^\[tool call \S+ |\]$/g, ''),
      })),
    results: blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({
        toolUseId: String(b.tool_use_id),
        isError: b.is_error === true,
        text: blockText(b).replace(/^\[tool result(?: \(error\))?\] ?/, ''),
      })),
  };
}

/**
 * The name of each role's speaker when one is known: the only author name its entries carry, else
 * the session's name for it, else the only one the previous summary lists for it.
 */
export function roleNamesFor(request: SummarizeRequest): Map<string, string> {
  const previous = parseSummary(request.previousSummary).get(PARTICIPANTS)!;
  const names = new Map<string, string>();
  for (const role of ['user', 'assistant'] as const) {
    const authors = new Set(
      request.entries
        .filter((e) => e.role === role && e.author?.name?.trim())
        .map((e) => e.author!.name!.trim()),
    );
    const listed = previous
      .map((b) => new RegExp(String.raw`^- (.+?) \(${role}\)$`).exec(b)?.[1])
      .filter((n): n is string => n !== undefined);
    const name =
      authors.size === 1
        ? [...authors][0]
        : authors.size === 0
          ? request.speakers?.[role]?.trim() || (listed.length === 1 ? listed[0] : undefined)
          : undefined;
    if (name) names.set(role, name);
  }
  return names;
}

/** Who said an entry: its author's name, else the name known for its role, else the role. */
export function speakerOf(entry: LaneEntry, roleNames: ReadonlyMap<string, string> = new Map()): string {
  const role = entry.role ?? entry.kind;
  return entry.author?.name?.trim() || roleNames.get(role) || role;
}

/**
 * One entry as a labelled transcript line: `[#seq speaker (role) time] text`, relative dates
 * followed by the day they mean (`{yesterday = 2026-05-07}`).
 */
export function renderEntryForSummary(entry: LaneEntry, roleNames?: ReadonlyMap<string, string>): string {
  const role = entry.role ?? entry.kind;
  const speaker = speakerOf(entry, roleNames);
  const who = speaker === role ? role : `${speaker} (${role})`;
  const text = entryText(entry);
  return `[#${entry.seq} ${who} ${new Date(entry.at).toISOString()}] ${text}${dateNote(text, entry.at)}`;
}

/** Head and tail of a text within `maxTokens`, the middle replaced by a marker saying how much. */
export function trimHeadTail(text: string, maxTokens: number, estimator: TokenEstimator): string {
  const tokens = estimator.text(text);
  if (tokens <= maxTokens) return text;
  // Characters per token of this text, so the cut lands near the bound; then shrink until it fits.
  const perToken = text.length / Math.max(1, tokens);
  let keep = Math.max(16, Math.floor((maxTokens - 24) * perToken));
  for (;;) {
    const head = text.slice(0, Math.ceil(keep * 0.6));
    const tail = text.slice(text.length - Math.floor(keep * 0.4));
    const omitted = tokens - estimator.text(head) - estimator.text(tail);
    const out = `${head}\n[… ${omitted} tokens omitted …]\n${tail}`;
    if (estimator.text(out) <= maxTokens || keep <= 16) return out;
    keep = Math.floor(keep * 0.8);
  }
}

/**
 * The rendered entries in order, packed into chunks of at most `maxTokens` each; an entry larger
 * than a chunk is trimmed to its head and tail first. Deterministic.
 */
export function chunkForSummarizer(
  entries: readonly LaneEntry[],
  options: { maxTokens: number; estimator: TokenEstimator; roleNames?: ReadonlyMap<string, string> },
): string[] {
  const { maxTokens, estimator } = options;
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const entry of entries) {
    const text = trimHeadTail(renderEntryForSummary(entry, options.roleNames), maxTokens, estimator);
    const tokens = estimator.text(text) + 2;
    if (used + tokens > maxTokens && current.length > 0) {
      chunks.push(current.join('\n\n'));
      current = [];
      used = 0;
    }
    current.push(text);
    used += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n\n'));
  return chunks;
}
