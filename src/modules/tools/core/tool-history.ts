// The tools in a lane's history: when each was last used (deferral keeps recently used tools), the
// name behind each tool_use id (offloading names results), and the deferred tools that tool_search
// calls in the latest entries promote into this turn.
import { asBlocks } from '../../sessions/core/history-view.js';
import { searchTools, type CallerTool } from './tool-deferral.js';

/** Entries scanned for tool_search calls whose matches are promoted this turn. */
const PROMOTION_WINDOW = 10;

export function toolHistory(
  entries: readonly { seq: number; content: unknown }[],
  callerTools: readonly CallerTool[],
) {
  const toolLastUsed: Record<string, number> = {};
  const searches: string[] = [];
  const toolNames: Record<string, string> = {};
  entries.forEach((entry, index) => {
    for (const block of asBlocks(entry.content)) {
      if (block.type !== 'tool_use') continue;
      toolLastUsed[block.name] = entry.seq;
      toolNames[block.id] = block.name;
      const query = (block.input as { query?: unknown } | undefined)?.query;
      if (
        block.name === 'tool_search' &&
        typeof query === 'string' &&
        index >= entries.length - PROMOTION_WINDOW
      ) {
        searches.push(query);
      }
    }
  });
  const named = callerTools.filter((t): t is CallerTool & { name: string } => t.name !== undefined);
  const promotedTools = [...new Set(searches.flatMap((q) => searchTools(named, q, 5).map((t) => t.name)))];
  return { toolLastUsed, toolNames, promotedTools };
}
