// Step 3 of the context call: assemble (pure, core/assemble.ts) from the request, the loaded turn
// and what was read; again with the channel context when truncation left out the turn that carried it.
import type { Config } from '../../config.js';
import type { TokenEstimator } from '../../shared/tokens.js';
import { redactContent, redactText } from '../memory/core/redaction.js';
import { budgetCalibration } from '../sessions/core/calibration.js';
import { asBlocks } from '../sessions/core/history-view.js';
import { offloadRefIdOf } from '../sessions/core/offload.js';
import { pendingSlotSchema } from '../lanes/core/pending-slot.js';
import { conversationTools } from '../tools/core/tool-offer.js';
import { assembleContext, type AssembleInput, type AssembleResult } from './core/assemble.js';
import { DEFAULT_SAFETY_MARGIN } from './core/budget.js';
import { viewTokensOf, type ContextCompaction } from './context.compaction.js';
import type { LoadedTurn, TurnFacts } from './context.load.js';
import type { TurnReads } from './context.read.js';
import { channelContextInput, quotedReplyOf } from './context.types.js';

export function createTurnAssembler(deps: {
  config: Pick<
    Config,
    'CONTEXT_BUDGET' | 'MAX_OUTPUT_TOKENS' | 'COMPACT_TRIGGER' | 'HARD_BLOCK' | 'TOOL_DEFERRAL_SHARE'
  >;
  estimator: TokenEstimator;
  compaction?: Pick<ContextCompaction, 'keepShare'>;
}) {
  const { config } = deps;

  /**
   * 3. Assemble (pure, core/assemble.ts); again with the channel context when the turn that carried
   * it is not in this payload (exact, and the snapshot reads happen only then).
   */
  async function assembleWithChannelContext(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    message: unknown,
  ): Promise<AssembleResult> {
    let result = assembleContext(assembleInput(facts, turn, reads, message, reads.channelContext));
    if (result.reattachChannelContext && turn.canAttachChannelContext) {
      const channelContext = await reads.loadChannelContext();
      result = assembleContext(assembleInput(facts, turn, reads, message, channelContext));
    }
    result.notes.push(
      ...(reads.retrievalNote ? [reads.retrievalNote] : []),
      ...reads.readNotes,
      ...reads.mediaNotes,
    );
    return result;
  }

  /** Assembly's input: the request's limits and material, the lane's view, what was read. */
  function assembleInput(
    facts: TurnFacts,
    turn: LoadedTurn,
    reads: TurnReads,
    message: unknown,
    channelContext: TurnReads['channelContext'],
  ): AssembleInput {
    const { request, include } = facts;
    const { session, loaded, lane } = turn;
    const agent = loaded.agent;
    const tools = conversationToolsOf(facts, turn, reads);
    const pendingSlot = pendingSlotSchema.safeParse(turn.laneState?.pendingSlot ?? undefined);
    const quoted = reads.quotedMessage;
    return {
      model: facts.model,
      // What the model reads has its secrets redacted: the new turn and the history here (the
      // transcript keeps them as the audit record), the channel's messages in their reads,
      // retrieved material in its index (docs/memory.md, Redaction).
      message: redactContent(message),
      now: reads.now,
      limits: {
        total: request.budget?.total ?? config.CONTEXT_BUDGET,
        maxOutputTokens: request.budget?.max_output_tokens ?? config.MAX_OUTPUT_TOKENS,
        maxContextTokens: request.budget?.max_context_tokens ?? null,
        compactTrigger: config.COMPACT_TRIGGER,
        hardBlock: config.HARD_BLOCK,
        safetyMargin: DEFAULT_SAFETY_MARGIN,
        calibration: budgetCalibration(session.calibration, facts.model),
      },
      compaction: facts.mode,
      system: (request.system ?? []).map((s) => ({ ...s, cacheable: s.cacheable ?? true })),
      agentSections: (agent?.sections ?? []).map((s) => ({
        name: s.name,
        text: s.content,
        cacheable: s.cacheable,
      })),
      structuredContext: turn.hasChannel && include.snapshot !== false,
      tools: facts.callerTools,
      storedResults:
        loaded.storedResults ||
        asBlocks(message).some((b) => b.type === 'tool_result' && offloadRefIdOf(b.content) !== null),
      conversationTools: tools,
      toolLastUsed: reads.tools.toolLastUsed,
      promotedTools: reads.tools.promotedTools,
      toolDeferralShare: config.TOOL_DEFERRAL_SHARE,
      lane: { ...lane, pendingSlot: pendingSlot.success ? pendingSlot.data : null },
      history: reads.view.history.map((entry) => {
        const content = redactContent(entry.content);
        return content === entry.content ? entry : { ...entry, content };
      }),
      channelContext: channelContext ? channelContextInput(session, channelContext, include) : null,
      knownMessageIds: [
        ...(turn.anchor ? [turn.anchor.message_id] : []),
        ...(quoted ? [quoted.message_id] : []),
      ],
      quotedReply: quoted ? quotedReplyOf(quoted) : null,
      // Chunks indexed before secrets were redacted in them still hold them: redacted here too.
      retrieved: reads.retrieved.items.map((item) => {
        const text = redactText(item.text);
        return text === item.text ? item : { ...item, text };
      }),
      retrievalLeftOut: reads.retrieved.leftOut,
      retrievalTokens: reads.retrievalTokens,
      retrievalSkipped: !reads.searchable,
      media: reads.media,
      manifest: reads.manifestRows.map((r) => ({
        artifact_id: r.artifactId,
        sha256: r.contentHash,
        included_at_turn: r.includedAtTurn,
      })),
      previousPercentage: loaded.lastPercentage,
      estimator: deps.estimator,
    };
  }

  /** Whether memory_search and compact_context can act in this call (tools/core/tool-offer.ts). */
  function conversationToolsOf(facts: TurnFacts, turn: LoadedTurn, reads: TurnReads) {
    const { lane, loaded } = turn;
    return conversationTools({
      hasChannel: turn.hasChannel,
      memoriesInScope: Object.entries(loaded.scopeVersions).some(
        ([key, version]) => key.startsWith('memories ') && version > 0,
      ),
      otherSessions: loaded.otherSessions,
      compacted: lane.summary !== null || lane.firstKeptSeq > 0 || lane.clearedBeforeSeq > 0,
      viewTokens: viewTokensOf(reads.entries, lane.firstKeptSeq),
      window: facts.window,
      keepShare: deps.compaction?.keepShare ?? null,
    });
  }

  return { assembleWithChannelContext };
}
