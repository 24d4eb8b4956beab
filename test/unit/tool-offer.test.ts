// When memory_search and compact_context can act (tools/core/tool-offer.ts), and the usage note
// that offers compact_context only where it is sent.
import { describe, expect, it } from 'vitest';
import { conversationTools, type ConversationToolState } from '../../src/modules/tools/core/tool-offer.js';
import { usageNote } from '../../src/modules/context/core/context-notes.js';

const fresh: ConversationToolState = {
  hasChannel: false,
  memoriesInScope: false,
  otherSessions: false,
  compacted: false,
  viewTokens: 100,
  window: 10_000,
  keepShare: 0.25,
};

describe('conversationTools', () => {
  it('offers neither in a short conversation with nothing out of view', () => {
    expect(conversationTools(fresh)).toEqual({ memorySearch: false, compactContext: false });
  });

  it('offers memory_search for anything searchable the payload does not show', () => {
    for (const state of [{ hasChannel: true }, { memoriesInScope: true }, { otherSessions: true }]) {
      expect(conversationTools({ ...fresh, ...state })).toEqual({
        memorySearch: true,
        compactContext: false,
      });
    }
  });

  it('offers both once the history is over the share a compaction keeps, not at it', () => {
    expect(conversationTools({ ...fresh, viewTokens: 2_500 })).toEqual({
      memorySearch: false,
      compactContext: false,
    });
    expect(conversationTools({ ...fresh, viewTokens: 2_501 })).toEqual({
      memorySearch: true,
      compactContext: true,
    });
  });

  it('keeps both after a compaction, whatever the history is then', () => {
    expect(conversationTools({ ...fresh, compacted: true })).toEqual({
      memorySearch: true,
      compactContext: true,
    });
  });

  it('never offers compact_context where nothing can compact', () => {
    expect(
      conversationTools({ ...fresh, compacted: true, viewTokens: 9_000, keepShare: null }).compactContext,
    ).toBe(false);
  });
});

describe('usageNote', () => {
  it('offers compact_context only when the payload carries it', () => {
    expect(usageNote(0.79)).toBeNull();
    expect(usageNote(0.9)).toContain('compact_context');
    expect(usageNote(0.9, false)).toBe('[Context: 90% used.]');
  });
});
