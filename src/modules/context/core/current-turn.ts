// This turn's user message: the rules it must obey against the history (role and tool pairing),
// and the labelled context blocks rendered after the user's own content (docs/design.md §6.6 step 4).
import type Anthropic from '@anthropic-ai/sdk';
import { unprocessable } from '../../../shared/errors.js';
import {
  asBlocks,
  toolResultIds,
  toolUseIds,
  type HistoryMessage,
} from '../../sessions/core/history-view.js';

type Block = Anthropic.ContentBlockParam;

const USER_BLOCK_TYPES = new Set(['text', 'image', 'document', 'tool_result', 'search_result']);

/**
 * Checks the new user message against the last turn of the view. Throws a 422 whose code names
 * the broken rule: user messages carry no tool_use or thinking; every tool_result answers a
 * tool_use of the immediately preceding assistant turn, once; and a preceding assistant turn
 * that called tools must have all its calls answered by this message.
 */
export function validateUserTurn(content: unknown, history: readonly HistoryMessage[]): Block[] {
  const blocks = asBlocks(content);
  if (blocks.length === 0) {
    throw unprocessable('turns.empty_message', 'the message has no content');
  }
  blocks.forEach((block, index) => {
    if (!USER_BLOCK_TYPES.has(block.type)) {
      throw unprocessable(
        'turns.block_not_allowed_for_role',
        `a user message cannot carry a "${block.type}" block (message.content.${index})`,
        { path: `message.content.${index}`, type: block.type },
      );
    }
  });
  const last = history.at(-1);
  const pending = last?.message.role === 'assistant' ? toolUseIds(last.message.content as Block[]) : [];
  const results = toolResultIds(blocks);
  const seen = new Set<string>();
  for (const id of results) {
    if (seen.has(id)) {
      throw unprocessable('turns.duplicate_tool_id', `tool_use_id "${id}" is answered twice`, {
        tool_use_id: id,
      });
    }
    seen.add(id);
    if (!pending.includes(id)) {
      throw unprocessable(
        'turns.tool_result_without_use',
        `tool_result "${id}" does not answer a tool_use of the previous assistant turn`,
        { tool_use_id: id, open_tool_use_ids: pending },
      );
    }
  }
  const missing = pending.filter((id) => !seen.has(id));
  if (missing.length > 0) {
    throw unprocessable(
      'turns.tool_use_unanswered',
      `the previous assistant turn called tools that this message does not answer: ${missing.join(', ')}`,
      { missing_tool_use_ids: missing },
    );
  }
  const firstNonResult = blocks.findIndex((b) => b.type !== 'tool_result');
  const lastResult = blocks.map((b) => b.type).lastIndexOf('tool_result');
  if (results.length > 0 && firstNonResult !== -1 && firstNonResult < lastResult) {
    throw unprocessable(
      'turns.tool_result_not_first',
      'tool_result blocks must come before any other content in the message',
    );
  }
  return blocks;
}

/** The user's own words, for matching slots and searching. */
export function plainText(blocks: readonly Block[]): string {
  return blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** A source message must be one of the session's own channel (its row is read beside the session). */
export function checkAnchorSource(
  session: { platform: string | null; channelId: string | null },
  source: { platform: string; channel_id: string } | undefined,
) {
  if (!source) return;
  if (source.platform !== session.platform || source.channel_id !== session.channelId) {
    throw unprocessable(
      'context.message_outside_session_channel',
      "message.source must be a message of the session's own channel",
      {
        path: 'message.source',
        session_channel: session.channelId ? `${session.platform}:${session.channelId}` : null,
      },
    );
  }
}
