// Which of contextd's conversation tools can act in a call. Every tool a payload carries is billed
// on every call (in the cached prefix at best, docs/cost-model.md), so a tool that could only come
// back empty-handed is not sent. Both answers follow the lane's stored state, not the turn's
// material: the tools block keeps its bytes from call to call and changes when a conversation
// outgrows its start (once), not back and forth.

export interface ConversationToolState {
  /** The session is a channel's: memory_search searches the channel's messages too. */
  hasChannel: boolean;
  /** Some memory scope the session sees has ever been written (its version is above 0). */
  memoriesInScope: boolean;
  /** An earlier session shares the session key: its transcript is searchable, never in view. */
  otherSessions: boolean;
  /** The lane has a summary, or its view starts after entries it summarized or cleared. */
  compacted: boolean;
  /** What the lane's history in view takes (stored estimates with the per-message overhead). */
  viewTokens: number;
  /** The window compaction is judged against (the caller's cap when smaller). */
  window: number;
  /** The share of the window a compaction keeps verbatim; null where nothing can compact. */
  keepShare: number | null;
}

export interface ConversationTools {
  memorySearch: boolean;
  compactContext: boolean;
}

/**
 * compact_context can act once the history is over the share a compaction keeps verbatim (under
 * it a compaction would keep everything), and stays once the lane has been compacted (so the block
 * does not flip at every compaction). memory_search can act when something searchable is not in
 * the payload's view: a channel, memories, an earlier session, or history compacted or about to be.
 */
export function conversationTools(state: ConversationToolState): ConversationTools {
  const outgrown = state.keepShare !== null && state.viewTokens > state.keepShare * state.window;
  return {
    compactContext: state.keepShare !== null && (state.compacted || outgrown),
    memorySearch:
      state.hasChannel || state.memoriesInScope || state.otherSessions || state.compacted || outgrown,
  };
}
