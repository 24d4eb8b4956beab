// render.ts: stored entries → Messages API messages, byte-stable, merged, tool pairs kept whole.
import { describe, expect, it } from 'vitest';
import {
  clearedToolResultText,
  renderMessages,
  openToolLoopStart,
  renderMessagesWithSeqs,
  toolSafeStart,
  type RenderableEntry,
} from '../../src/modules/sessions/core/render.js';
import { offloadReference } from '../../src/modules/sessions/core/offload.js';

const entry = (
  seq: number,
  role: 'user' | 'assistant',
  content: unknown,
  kind = 'message',
): RenderableEntry => ({
  seq,
  kind,
  role,
  content,
});

const conversation: RenderableEntry[] = [
  entry(1, 'user', 'hello'),
  entry(2, 'assistant', [
    { type: 'thinking', thinking: 'hmm', signature: 's' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 't1', name: 'search', input: { q: 'x' } },
  ]),
  entry(3, 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'found x' }]),
  entry(4, 'assistant', 'Here is x.'),
  entry(5, 'user', 'thanks'),
  entry(6, 'user', [{ type: 'text', text: 'one more thing' }]),
];

describe('renderMessages', () => {
  it('renders blocks, drops thinking, merges consecutive same-role turns', () => {
    expect(renderMessages(conversation)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 't1', name: 'search', input: { q: 'x' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found x' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Here is x.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'thanks' },
          { type: 'text', text: 'one more thing' },
        ],
      },
    ]);
  });

  it('is byte-stable: same entries, same JSON; appending only extends the last message', () => {
    const a = JSON.stringify(renderMessages(conversation));
    const b = JSON.stringify(renderMessages([...conversation].reverse()));
    expect(a).toBe(b);
    const before = JSON.stringify(renderMessages(conversation.slice(0, 5)));
    const after = JSON.stringify(renderMessages(conversation));
    // Everything up to the end of the last block of the shorter render is a prefix of the longer one.
    expect(after.startsWith(before.slice(0, -3))).toBe(true);
  });

  it('skips compaction/session records and turns left empty after dropping thinking', () => {
    const entries = [
      entry(1, 'user', 'q'),
      { seq: 2, kind: 'compaction', role: null, content: { summary: 's' } },
      entry(3, 'assistant', [{ type: 'thinking', thinking: 'only thoughts' }]),
      entry(4, 'assistant', 'a'),
      entry(5, 'user', [{ type: 'text', text: 'ctx' }], 'context_attachment'),
    ];
    expect(renderMessagesWithSeqs(entries).map((m) => [m.message.role, m.seqs])).toEqual([
      ['user', [1]],
      ['assistant', [4]],
      ['user', [5]],
    ]);
  });

  it('starts at firstKeptSeq but never between a tool_use and its tool_result', () => {
    expect(renderMessages(conversation, { firstKeptSeq: 4 })[0]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Here is x.' }],
    });
    // Starting at the tool_result pulls in the assistant turn holding its tool_use.
    const fromResult = renderMessagesWithSeqs(conversation, { firstKeptSeq: 3 });
    expect(fromResult[0]!.seqs).toEqual([2]);
    expect(toolSafeStart(conversation, 3)).toBe(2);
    expect(toolSafeStart(conversation, 4)).toBe(4);
  });

  it('drops halves of tool pairs that the given entries cut off', () => {
    // The caller passed entries from seq 3 on: the call of t1 is not among them.
    expect(renderMessages(conversation.filter((e) => e.seq >= 3))[0]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Here is x.' }],
    });
    // A call whose result is missing is dropped once a user turn follows it …
    const unanswered = [
      entry(1, 'assistant', [
        { type: 'text', text: 'a' },
        { type: 'tool_use', id: 'z', name: 'sh', input: {} },
      ]),
      entry(2, 'user', 'next'),
    ];
    expect(renderMessages(unanswered)[0]!.content).toEqual([{ type: 'text', text: 'a' }]);
    // … and kept while it is the pending call at the end.
    expect(renderMessages(unanswered.slice(0, 1))[0]!.content).toHaveLength(2);
  });

  it('renders tool results before clearedBeforeSeq as cleared references, keeping offload refs', () => {
    const ref = '0190a0a0-0000-7000-8000-000000000001';
    const offloaded = offloadReference({
      byteLength: 9000,
      toolName: 'sh',
      text: 'x'.repeat(300),
      refId: ref,
    });
    const entries = [
      entry(1, 'assistant', [
        { type: 'tool_use', id: 'a', name: 'sh', input: {} },
        { type: 'tool_use', id: 'b', name: 'sh', input: {} },
      ]),
      entry(2, 'user', [
        { type: 'tool_result', tool_use_id: 'a', content: 'big output', is_error: true },
        { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: offloaded }] },
      ]),
      entry(3, 'assistant', [{ type: 'tool_use', id: 'c', name: 'sh', input: {} }]),
      entry(4, 'user', [{ type: 'tool_result', tool_use_id: 'c', content: 'recent' }]),
    ];
    const rendered = renderMessages(entries, { clearedBeforeSeq: 3 });
    expect(rendered[1]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'a',
        content: '[Tool result cleared to save context.]',
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 'b', content: clearedToolResultText(offloaded) },
    ]);
    expect(clearedToolResultText(offloaded)).toContain(`ref_id="${ref}"`);
    expect(rendered[3]!.content).toEqual([{ type: 'tool_result', tool_use_id: 'c', content: 'recent' }]);
  });
});

describe('the open tool loop keeps its thinking', () => {
  const thinking = { type: 'thinking', thinking: 'plan', signature: 'sig', extra: 1 };
  const redacted = { type: 'redacted_thinking', data: 'enc' };
  const loop: RenderableEntry[] = [
    entry(1, 'user', 'hello'),
    entry(2, 'assistant', [thinking, redacted, { type: 'tool_use', id: 't1', name: 'sh', input: {} }]),
    entry(3, 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'one' }]),
    entry(4, 'assistant', [{ type: 'tool_use', id: 't2', name: 'sh', input: {} }]),
  ];

  it('starts at the first assistant entry after the last user entry without a tool_result', () => {
    // The next message answers t2: the loop is open since seq 2.
    expect(openToolLoopStart(loop, true)).toBe(2);
    // A plain next message starts a new turn (and would not be valid here, t2 is pending).
    expect(openToolLoopStart(loop, false)).toBeNull();
    // The results were appended as a turn: the next message merges into them.
    const answered = [
      ...loop,
      entry(5, 'user', [{ type: 'tool_result', tool_use_id: 't2', content: 'two' }]),
    ];
    expect(openToolLoopStart(answered, false)).toBe(2);
    // Once answered and followed by a plain user message, no loop is open.
    const over = [...answered, entry(6, 'assistant', 'done'), entry(7, 'user', 'next')];
    expect(openToolLoopStart(over, false)).toBeNull();
    expect(openToolLoopStart([entry(1, 'user', 'hi')], false)).toBeNull();
  });

  it('renders thinking blocks from keepThinkingFromSeq on, exactly as stored; none before', () => {
    const rendered = renderMessages(loop, { keepThinkingFromSeq: 2 });
    expect(rendered[1]!.content.slice(0, 2)).toEqual([thinking, redacted]);
    expect(JSON.stringify(renderMessages(loop))).not.toContain('thinking');
    expect(JSON.stringify(renderMessages(loop, { keepThinkingFromSeq: 3 }))).not.toContain('thinking');
  });
});
