// Role order and tool_use/tool_result pairing for appended turns, checked against the session's
// turn state so the rendered history is always a valid Messages API conversation:
// - a tool_result answers a tool_use that is still pending, in the user turn(s) right after it;
// - user text (or media) may only follow once every pending tool_use has its result;
// - an assistant turn may follow a pending tool_use only while no user turn came in between
//   (consecutive assistant turns render merged into one message);
// - tool ids are unique in the session; user turns carry no tool_use or thinking, assistant
//   turns no tool_result, image or document.
import type { TurnState } from '../../../db/schema.js';
import { unprocessable } from '../../../shared/errors.js';
import { contentBlocks, type TurnContent } from '../../../shared/content-blocks.js';

export interface TurnInput {
  role: 'user' | 'assistant';
  content: TurnContent;
  lane_key?: string;
}

interface ValidatedTurn {
  laneKey: string;
  /** tool_use_id → tool name for each tool_result in the turn. */
  resultsFor: Record<string, string>;
}

interface TurnSequenceResult {
  turns: ValidatedTurn[];
  state: TurnState;
  /** tool_use ids introduced by these turns (to check against the stored history). */
  newToolUseIds: string[];
}

const USER_ONLY = new Set(['tool_result', 'image', 'document']);
const ASSISTANT_ONLY = new Set(['tool_use', 'thinking', 'redacted_thinking']);

/**
 * Validates turns in order against `state` and returns the state after them. Throws a 422 with a
 * stable code and the field path of the first problem. `defaultLane` is used when a turn names
 * no lane and continues none.
 */
export function validateTurnSequence(
  state: TurnState,
  turns: TurnInput[],
  defaultLane: string,
): TurnSequenceResult {
  let lastRole = state.last_role;
  let lastLane = state.last_lane_key;
  const pending = { ...state.pending_tool_uses };
  const newToolUseIds: string[] = [];
  const seenIds = new Set<string>();
  const out: ValidatedTurn[] = [];

  turns.forEach((turn, turnIndex) => {
    const path = `turns.${turnIndex}`;
    const blocks = contentBlocks(turn.content);
    const resultsFor: Record<string, string> = {};
    let laneKey = turn.lane_key;

    blocks.forEach((block, blockIndex) => {
      const blockPath = `${path}.content.${blockIndex}`;
      const forbidden = turn.role === 'user' ? ASSISTANT_ONLY : USER_ONLY;
      if (forbidden.has(block.type)) {
        throw unprocessable(
          'turns.block_not_allowed_for_role',
          `${blockPath}: a ${turn.role} turn cannot contain a ${block.type} block`,
          { path: blockPath, role: turn.role, type: block.type },
        );
      }
    });

    if (turn.role === 'assistant') {
      const answering = lastRole === 'user' && Object.keys(pending).length > 0;
      if (answering) {
        throw unprocessable(
          'turns.tool_use_unanswered',
          `${path}: tool_use ${Object.keys(pending).join(', ')} still awaits its tool_result`,
          { path, pending_tool_use_ids: Object.keys(pending) },
        );
      }
      laneKey ??= Object.values(pending)[0]?.lane_key ?? lastLane ?? defaultLane;
      blocks.forEach((block, blockIndex) => {
        if (block.type !== 'tool_use') return;
        const blockPath = `${path}.content.${blockIndex}.id`;
        if (seenIds.has(block.id) || pending[block.id]) {
          throw duplicateId(block.id, blockPath);
        }
        seenIds.add(block.id);
        newToolUseIds.push(block.id);
        pending[block.id] = { name: block.name, lane_key: laneKey! };
      });
    } else {
      const firstResult = blocks.find((b) => b.type === 'tool_result');
      const firstPendingId = firstResult?.type === 'tool_result' ? firstResult.tool_use_id : undefined;
      laneKey ??= (firstPendingId && pending[firstPendingId]?.lane_key) || lastLane || defaultLane;
      blocks.forEach((block, blockIndex) => {
        const blockPath = `${path}.content.${blockIndex}`;
        if (block.type === 'tool_result') {
          const call = pending[block.tool_use_id];
          if (!call) {
            throw unprocessable(
              seenIds.has(block.tool_use_id) ? 'turns.duplicate_tool_id' : 'turns.tool_result_without_use',
              seenIds.has(block.tool_use_id)
                ? `${blockPath}.tool_use_id: tool_use ${block.tool_use_id} already has its tool_result`
                : `${blockPath}.tool_use_id: no pending tool_use with id ${block.tool_use_id} precedes this tool_result`,
              { path: `${blockPath}.tool_use_id`, tool_use_id: block.tool_use_id },
            );
          }
          if (call.lane_key !== laneKey) {
            throw unprocessable(
              'turns.tool_result_lane_mismatch',
              `${path}.lane_key: the tool_result belongs to lane ${call.lane_key} of its tool_use`,
              { path: `${path}.lane_key`, expected: call.lane_key, got: laneKey },
            );
          }
          resultsFor[block.tool_use_id] = call.name;
          seenIds.add(block.tool_use_id);
          delete pending[block.tool_use_id];
          return;
        }
        const waiting = Object.keys(pending);
        if (waiting.length > 0) {
          throw unprocessable(
            'turns.tool_use_unanswered',
            `${blockPath}: tool_use ${waiting.join(', ')} must get its tool_result before more user content`,
            { path: blockPath, pending_tool_use_ids: waiting },
          );
        }
      });
    }
    out.push({ laneKey: laneKey!, resultsFor });
    lastRole = turn.role;
    lastLane = laneKey!;
  });

  return {
    turns: out,
    state: { last_role: lastRole, last_lane_key: lastLane, pending_tool_uses: pending },
    newToolUseIds,
  };
}

export function duplicateId(id: string, path: string) {
  return unprocessable(
    'turns.duplicate_tool_id',
    `${path}: tool_use id ${id} is already used in this session`,
    {
      path,
      tool_use_id: id,
    },
  );
}
