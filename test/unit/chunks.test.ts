// The chunker: turn pairs with speaker labels and times, size cap, rendered context left out.
import { describe, expect, it } from 'vitest';
import {
  buildLaneChunks,
  entryText,
  formatTurn,
  MAX_CHUNK_CHARS,
  truncate,
  type ChunkEntry,
} from '../../src/modules/memory/core/chunks.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 14, minute));
const turn = (seq: number, role: 'user' | 'assistant', text: string, author?: string): ChunkEntry => ({
  seq,
  laneKey: 'root:C1',
  role,
  text,
  author,
  at: at(seq),
});

describe('buildLaneChunks', () => {
  it('pairs each user turn with the replies that follow', () => {
    const chunks = buildLaneChunks([
      turn(1, 'user', 'hello', 'Alice'),
      turn(2, 'assistant', 'hi there'),
      turn(3, 'user', 'deploy status?', 'Alice'),
      turn(4, 'assistant', 'running'),
      turn(5, 'assistant', 'done'),
      turn(6, 'user', 'thanks', 'Alice'),
    ]);
    expect(chunks.map((c) => [c.firstSeq, c.lastSeq])).toEqual([
      [1, 2],
      [3, 5],
      [6, 6],
    ]);
    expect(chunks[0]!.text).toBe(
      '[2026-01-05 14:01] User (Alice): hello\n[2026-01-05 14:02] Assistant: hi there',
    );
    expect(chunks[1]).toMatchObject({ laneKey: 'root:C1', startTs: at(3), endTs: at(5) });
  });

  it('keeps consecutive user turns together until a reply', () => {
    const chunks = buildLaneChunks([
      turn(1, 'user', 'a'),
      turn(2, 'user', 'b'),
      turn(3, 'assistant', 'c'),
      turn(4, 'user', 'd'),
    ]);
    expect(chunks.map((c) => [c.firstSeq, c.lastSeq])).toEqual([
      [1, 3],
      [4, 4],
    ]);
  });

  it('never passes the size cap; an oversized turn is cut head … tail', () => {
    const long = 'x'.repeat(1500);
    const chunks = buildLaneChunks([
      turn(1, 'user', long),
      turn(2, 'assistant', long),
      turn(3, 'user', 'y'.repeat(5000)),
    ]);
    expect(chunks.map((c) => [c.firstSeq, c.lastSeq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(chunks[2]!.text).toContain('…');
  });

  it('skips turns without searchable text and is deterministic', () => {
    const entries = [turn(1, 'user', ''), turn(2, 'assistant', 'only this')];
    expect(buildLaneChunks(entries)).toEqual(buildLaneChunks(entries));
    expect(buildLaneChunks(entries).map((c) => c.firstSeq)).toEqual([2]);
    expect(buildLaneChunks([])).toEqual([]);
  });
});

describe('entryText', () => {
  it('takes text blocks, names tools, trims tool results and drops thinking', () => {
    const text = entryText([
      { type: 'thinking', thinking: 'secret reasoning' },
      { type: 'text', text: 'Checking the logs.' },
      { type: 'tool_use', id: 't1', name: 'grep_logs', input: { q: 'error' } },
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'E'.repeat(800) }] },
      { type: 'image', source: { type: 'base64', data: 'AAAA' } },
    ]);
    expect(text).not.toContain('secret reasoning');
    expect(text).toContain('Checking the logs.');
    expect(text).toContain('[tool grep_logs]');
    expect(text).toContain('[image]');
    expect(text.length).toBeLessThan(700);
    expect(entryText('plain string')).toBe('plain string');
  });

  it('leaves out context blocks that contextd rendered into a user turn', () => {
    const content = [
      { type: 'text', text: 'What did we decide?' },
      {
        type: 'text',
        text: '<retrieved_memories trust="untrusted">\nRetrieved material\n{"a": 1}\n</retrieved_memories>\n<context_notes>\nusage 82%\n</context_notes>',
      },
    ];
    expect(entryText(content)).toBe('What did we decide?');
  });
});

describe('formatTurn and truncate', () => {
  it('labels the speaker and cuts to the limit', () => {
    expect(formatTurn(turn(7, 'assistant', 'ok'))).toBe('[2026-01-05 14:07] Assistant: ok');
    expect(formatTurn(turn(7, 'user', 'z'.repeat(100)), 60).length).toBe(60);
    expect(truncate('abcdefghij', 5)).toBe('abc…j');
    expect(truncate('abc', 5)).toBe('abc');
  });
});
