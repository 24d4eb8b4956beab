// turn-validation.ts: role order and tool pairing against the session's turn state.
import { describe, expect, it } from 'vitest';
import type { TurnState } from '../../src/db/schema.js';
import { validateTurnSequence, type TurnInput } from '../../src/modules/sessions/core/turn-validation.js';

const empty: TurnState = { last_role: null, last_lane_key: null, pending_tool_uses: {} };
const use = (id: string, name = 'sh') => ({ type: 'tool_use' as const, id, name, input: {} });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('validateTurnSequence', () => {
  it('tracks pending tool uses and lanes across turns', () => {
    const turns: TurnInput[] = [
      { role: 'user', content: 'go', lane_key: 'thread:C:1' },
      { role: 'assistant', content: [use('a', 'search'), use('b')] },
      { role: 'user', content: [result('a')] },
    ];
    const out = validateTurnSequence(empty, turns, 'root:C');
    expect(out.turns.map((t) => t.laneKey)).toEqual(['thread:C:1', 'thread:C:1', 'thread:C:1']);
    expect(out.turns[2]!.resultsFor).toEqual({ a: 'search' });
    expect(out.state).toEqual({
      last_role: 'user',
      last_lane_key: 'thread:C:1',
      pending_tool_uses: { b: { name: 'sh', lane_key: 'thread:C:1' } },
    });
    expect(out.newToolUseIds).toEqual(['a', 'b']);
    // The rest of the results may follow in a later user turn (they merge), then text.
    const next = validateTurnSequence(
      out.state,
      [{ role: 'user', content: [result('b'), { type: 'text', text: 'done' }] }],
      'root:C',
    );
    expect(next.state.pending_tool_uses).toEqual({});
  });

  it('uses the default lane first, and the tool_use lane for a result', () => {
    expect(validateTurnSequence(empty, [{ role: 'user', content: 'x' }], 'root:C').turns[0]!.laneKey).toBe(
      'root:C',
    );
    const state: TurnState = {
      last_role: 'user',
      last_lane_key: 'root:C',
      pending_tool_uses: { a: { name: 'sh', lane_key: 'thread:T' } },
    };
    expect(
      validateTurnSequence(
        { ...state, last_role: 'assistant' },
        [{ role: 'user', content: [result('a')] }],
        'root:C',
      ).turns[0]!.laneKey,
    ).toBe('thread:T');
    expect(
      codeOf(() =>
        validateTurnSequence(
          { ...state, last_role: 'assistant' },
          [{ role: 'user', content: [result('a')], lane_key: 'root:C' }],
          'root:C',
        ),
      ),
    ).toBe('turns.tool_result_lane_mismatch');
  });

  it.each([
    ['a result with no call', [{ role: 'user', content: [result('x')] }], 'turns.tool_result_without_use'],
    [
      'text before all results',
      [
        { role: 'assistant', content: [use('a'), use('b')] },
        { role: 'user', content: [result('a'), { type: 'text', text: '?' }] },
      ],
      'turns.tool_use_unanswered',
    ],
    [
      'text instead of a result',
      [
        { role: 'assistant', content: [use('a')] },
        { role: 'user', content: 'hi' },
      ],
      'turns.tool_use_unanswered',
    ],
    [
      'an assistant turn after a partial answer',
      [
        { role: 'assistant', content: [use('a'), use('b')] },
        { role: 'user', content: [result('a')] },
        { role: 'assistant', content: 'x' },
      ],
      'turns.tool_use_unanswered',
    ],
    [
      'a duplicate tool_use id',
      [
        { role: 'assistant', content: [use('a')] },
        { role: 'assistant', content: [use('a')] },
      ],
      'turns.duplicate_tool_id',
    ],
    [
      'a second result',
      [
        { role: 'assistant', content: [use('a')] },
        { role: 'user', content: [result('a'), result('a')] },
      ],
      'turns.duplicate_tool_id',
    ],
    ['tool_use in a user turn', [{ role: 'user', content: [use('a')] }], 'turns.block_not_allowed_for_role'],
    [
      'an image in an assistant turn',
      [{ role: 'assistant', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }],
      'turns.block_not_allowed_for_role',
    ],
  ])('rejects %s', (_name, turns, code) => {
    expect(codeOf(() => validateTurnSequence(empty, turns as TurnInput[], 'root:C'))).toBe(code);
  });

  it('allows consecutive turns of one role, and assistant turns after a pending call', () => {
    const turns: TurnInput[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: [use('t')] },
      { role: 'assistant', content: 'still thinking' },
      { role: 'user', content: [result('t')] },
    ];
    expect(validateTurnSequence(empty, turns, 'root:C').state.pending_tool_uses).toEqual({});
  });
});
