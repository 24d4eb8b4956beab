// history_turns: at most that many of the lane's latest turns are sent — a view (nothing leaves the
// transcript), widened so a tool_use never loses its tool_result, nor an open tool loop its first
// assistant message (which holds the thinking the API needs back).
import { openToolLoopStart, toolSafeStart } from '../../sessions/core/render.js';

export function historyTurnsView<
  E extends {
    seq: number;
    kind: string;
    role: 'user' | 'assistant' | null;
    content: unknown;
    tokenEstimate: number;
  },
>(entries: readonly E[], historyTurns: number | undefined, nextUserHasToolResult = false) {
  const turns = entries.filter((e) => e.kind === 'message' || e.kind === 'context_attachment');
  const loopStart = openToolLoopStart(turns, nextUserHasToolResult) ?? Number.POSITIVE_INFINITY;
  const viewFrom =
    historyTurns !== undefined && turns.length > historyTurns
      ? Math.min(toolSafeStart(turns, turns[turns.length - historyTurns]!.seq), loopStart)
      : Number.NEGATIVE_INFINITY;
  const history = entries
    .filter((e) => e.seq >= viewFrom)
    .map((e) => ({
      seq: e.seq,
      kind: e.kind,
      role: e.role,
      content: e.content,
      tokenEstimate: e.tokenEstimate,
    }));
  return { turns, viewFrom, history };
}
