// Context assembly (docs/design.md §6.6): plain data in, the Messages API payload out, with the budget
// report, what context was used, media attachments, deferred tools, notes and cache breakpoints.
// Pure and deterministic: the same input gives the same bytes; "now" is the anchor message's time.
import {
  budgetReport,
  effectiveWindow,
  emptyComponents,
  type BudgetComponents,
  type UnusedRoom,
} from './budget.js';
import { placeCacheBreakpoints } from './cache-breakpoints.js';
import {
  OTHER_LANE_MIN_SCORE,
  type AssembleInput,
  type AnthropicPayload,
  type AssembleResult,
  type TextBlock,
} from './assemble.types.js';
import { stableEstimator } from './stable-estimator.js';
import { packRetrieved } from './retrieved-block.js';
import { assemblyLeftOut, leftOutReport } from './left-out.js';
export * from './assemble.types.js';
export { jsonbKeyOrder } from './assemble-output.js';
import { selectTools, orderSystem, currentTurn, mandatoryRoom, fitSummary } from './assemble-fixed.js';
import {
  retrievalSizer,
  historyCutter,
  fitChannelContext,
  keepHistory,
  droppedNote,
} from './assemble-view.js';
import { ownBlocks, messagesOf, contextUsed, jsonbKeyOrder } from './assemble-output.js';

/**
 * Assembly along its budget pipeline, one named step each, in payload-budget order: 1. tools,
 * 2. system, 3. the current turn (checked against the history in view) and what is mandatory,
 * 4. the lane summary, 5. channel context, 6. history, 7. retrieved material, 8. the turn's own
 * blocks (quoted reply, pending slot, notes), 9. messages, 10. cache breakpoints.
 */
export function assembleContext(input: AssembleInput): AssembleResult {
  const { estimator, limits } = input;
  const stable = stableEstimator(estimator);
  const notes: string[] = [];
  const components: BudgetComponents = emptyComponents();
  const window = effectiveWindow(limits);

  const deferral = selectTools(input, window, stable); // 1
  components.tools = deferral.activeTokens;
  const system = orderSystem(input, stable); // 2
  components.system = system.tokens;
  const current = currentTurn(input); // 3
  const room = mandatoryRoom(limits, components, current.userTokens, window);
  const summaryBlock = fitSummary(input, room, components, notes, stable); // 4
  const sizer = retrievalSizer(input, stable);
  const cutter = historyCutter(current, summaryBlock !== null, estimator);
  const channel = fitChannelContext(input, current.history, room, cutter, sizer, stable); // 5
  notes.push(...channel.turnContext.notes);
  if (channel.turnContext.recoveryNote) notes.push(channel.turnContext.recoveryNote);
  components.channel_context = channel.turnContext.tokens;
  room.take(channel.turnContext.used);
  const view = keepHistory(input, current, channel, room, cutter, components, window); // 6
  if (view.dropped > 0) notes.push(droppedNote(view.dropped));
  components.conversation = view.tokens;
  room.take(components.conversation);
  const packed = packRetrieved({
    ...view.retrievable,
    room: Math.min(room.left(), input.retrievalTokens ?? Number.POSITIVE_INFINITY),
    ...sizer.wrapper,
  }); // 7
  // The turn as stored: channel context, the quoted reply and the slot go into the transcript and
  // stay in later history. Retrieved material and notes are this payload's only: they follow the
  // turn's breakpoint, so they never pile up in later history nor change its cached prefix.
  const turnBlocks: TextBlock[] = [...channel.turnContext.blocks];
  const payloadOnly: TextBlock[] = [];
  if (packed.text !== null) {
    payloadOnly.push({ type: 'text', text: packed.text });
    components.memories = packed.tokens;
    room.take(components.memories);
  }
  const unused: UnusedRoom = {
    tokens: Math.max(0, room.left()),
    reason: input.retrievalSkipped
      ? 'retrieval_skipped'
      : packed.skipped > 0
        ? 'next_item_too_large'
        : 'no_more_candidates',
  };
  const own = ownBlocks(input, current, channel.turnContext, deferral.note, components, notes, stable); // 8
  turnBlocks.push(...own.blocks);
  payloadOnly.push(...own.notesBlocks);

  // The user turn exactly as stored: the user's content, then media, then the labelled blocks,
  // with object keys in jsonb's order so the stored copy serializes to the same bytes.
  const userTurn = jsonbKeyOrder([...current.userBlocks, ...channel.turnContext.media, ...turnBlocks]);
  // Everything in this turn that is not channel context or retrieved material: the user's own
  // content, the slot and the notes. Every block was measured when it was added (an estimate of
  // content is the sum of its blocks'), so the turn is not counted again.
  components.current_turn = current.userTokens + own.tokens + own.notesTokens;
  const userTurnTokens = current.userTokens + own.tokens + components.channel_context;

  const { messages, previousTurn, thisTurnEnd } = messagesOf(
    summaryBlock,
    view,
    userTurn,
    jsonbKeyOrder(payloadOnly),
  ); // 9
  const payload: AnthropicPayload = {
    model: input.model,
    max_tokens: limits.maxOutputTokens,
    ...(system.blocks.length > 0 ? { system: system.blocks } : {}),
    messages,
    ...(deferral.active.length > 0 ? { tools: deferral.active } : {}),
  };
  const cache = placeCacheBreakpoints(payload, {
    lastCacheableSystem: system.lastCacheable,
    summaryMessage: summaryBlock ? 0 : null,
    previousTurn,
    thisTurnEnd,
    stablePrefixTokens: components.tools + components.system + components.summary + components.conversation,
  }); // 10

  // Every retrieval candidate not in the payload, with the step that left it out.
  const leftOut = leftOutReport(
    input.retrievalLeftOut ?? [],
    assemblyLeftOut({
      retrieved: input.retrieved,
      laneKey: input.lane.laneKey,
      otherLaneMinScore: OTHER_LANE_MIN_SCORE,
      eligible: channel.retrieval.eligible,
      candidates: view.retrievable.candidates,
      sizes: view.retrievable.sizes,
      usedIds: packed.used.map((u) => u.id),
    }),
  );

  return {
    payload,
    budget: { ...budgetReport(components, limits), unused },
    left_out: leftOut,
    context: contextUsed(input, channel.turnContext, packed.used, summaryBlock !== null, view, own.slotUse),
    attachments: channel.turnContext.attachments,
    deferred_tools: deferral.deferred,
    notes,
    cache,
    userTurn: { content: userTurn, tokens: userTurnTokens },
    reattachChannelContext: channel.reattach,
    counted: new Map(packed.text === null ? [] : [[packed.text, packed.tokens]]),
  };
}
