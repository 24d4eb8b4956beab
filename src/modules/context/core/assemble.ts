// Context assembly (docs/design.md §6.6): plain data in, the Messages API payload out, with the budget
// report, what context was used, media attachments, deferred tools, notes and cache breakpoints.
// Pure and deterministic: the same input gives the same bytes; "now" is the anchor message's time.
import type Anthropic from '@anthropic-ai/sdk';
import { tooLarge, unprocessable } from '../../../shared/errors.js';
import { builtinToolsFor } from '../../tools/tools.schemas.js';
import {
  budgetReport,
  effectiveWindow,
  emptyComponents,
  windowCeiling,
  windowMultiplier,
  withMargin,
  type BudgetComponents,
  type UnusedRoom,
} from './budget.js';
import { placeCacheBreakpoints, withoutMessageCacheControl } from './cache-breakpoints.js';
import { CHANNEL_CONTEXT_GUIDE, CHANNEL_GUIDE_NAME } from './channel-guide.js';

import { renderDataBlock, renderNotesBlock, renderSummaryBlock, safeJson } from './context-blocks.js';
import { memoryFlushNote, usageNote } from './context-notes.js';
import { plainText, validateUserTurn } from './current-turn.js';
import {
  asBlocks,
  fitHistorySuffix,
  historyWithOpenLoop,
  type HistoryMessage,
} from '../../sessions/core/history-view.js';
import { matchPendingSlot } from '../../lanes/core/pending-slot.js';
import { callerToolCandidate, deferTools } from '../../tools/core/tool-deferral.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator } from '../../../shared/tokens.js';

export * from './assemble.types.js';
import {
  NOTES_RESERVE_TOKENS,
  OTHER_LANE_MIN_SCORE,
  RETRIEVAL_RESERVE_SHARE,
  SUMMARY_MAX_ROOM_SHARE,
  VIEW_START_TEXT,
  type AssembledContext,
  type AssembleInput,
  type AnthropicPayload,
  type Block,
  type AssembleResult,
  type ChannelContextInput,
  type RetrievedItem,
  type SystemSection,
  type TextBlock,
} from './assemble.types.js';
import { stableEstimator, sumTokens } from './stable-estimator.js';
import { packRetrieved, RETRIEVED_LABEL, retrievedLine } from './retrieved-block.js';
import { shownInView } from './shown-in-view.js';
import { fitTurnContext, type ContextRecovery, type TurnContext } from './turn-context.js';
import { assemblyLeftOut, leftOutReport } from './left-out.js';

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
  const leftOut = leftOutReport([
    ...(input.retrievalLeftOut ?? []),
    ...assemblyLeftOut({
      retrieved: input.retrieved,
      laneKey: input.lane.laneKey,
      otherLaneMinScore: OTHER_LANE_MIN_SCORE,
      eligible: channel.retrieval.eligible,
      candidates: view.retrievable.candidates,
      sizes: view.retrievable.sizes,
      usedIds: packed.used.map((u) => u.id),
    }),
  ]);

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
  };
}

/**
 * 1. Tools: built-ins first, then the caller's as given (without `source`), after deferral.
 * read_result only when the session has a stored result to read; tool_search only when deferral
 * holds a tool back (deferral is judged without it first: with it the list only grows);
 * memory_search and compact_context only when they can act (input.conversationTools). All follow
 * the session's state, not the turn's material, so the tools block stays the same bytes from call to
 * call and changes once when one of them appears.
 */
function selectTools(input: AssembleInput, window: number, stable: TokenEstimator) {
  const defer = (toolSearch: boolean) =>
    deferTools({
      tools: [
        ...builtinToolsFor({
          hasChannel: input.structuredContext,
          readResult: input.structuredContext || input.storedResults,
          toolSearch,
          ...input.conversationTools,
        }).map((tool) => ({
          tool,
          source: 'builtin' as const,
          lastUsedSeq: input.toolLastUsed[tool.name],
        })),
        ...input.tools.map((t) => callerToolCandidate(t, input.toolLastUsed)),
      ],
      effectiveWindow: window,
      share: input.toolDeferralShare,
      promoted: new Set(input.promotedTools),
      estimator: stable,
    });
  const without = defer(false);
  return without.deferred.length > 0 ? defer(true) : without;
}

/** 2. System: cacheable sections (inline, then agent), the guide, then the non-cacheable ones. */
function orderSystem(input: AssembleInput, stable: TokenEstimator) {
  const sections = [...input.system, ...input.agentSections];
  const ordered: SystemSection[] = [
    ...sections.filter((s) => s.cacheable),
    ...(input.structuredContext
      ? [{ name: CHANNEL_GUIDE_NAME, text: CHANNEL_CONTEXT_GUIDE, cacheable: true }]
      : []),
    ...sections.filter((s) => !s.cacheable),
  ].filter((s) => s.text.length > 0);
  return {
    blocks: ordered.map((s): TextBlock => ({ type: 'text', text: s.text })),
    tokens: ordered.reduce((sum, s) => sum + stable.text(s.text), 0),
    lastCacheable: ordered.map((s) => s.cacheable).lastIndexOf(true),
  };
}

/**
 * 3. The current turn: the history in view (an open tool loop keeps its thinking and is never cut
 * in two), and the new message checked against it.
 */
function currentTurn(input: AssembleInput) {
  const { estimator } = input;
  const { history, wholeFrom } = historyWithOpenLoop({
    entries: input.history,
    firstKeptSeq: input.lane.firstKeptSeq,
    clearedBeforeSeq: input.lane.clearedBeforeSeq,
    answersToolCalls: asBlocks(input.message).some((b) => b.type === 'tool_result'),
    estimator,
  });
  const userBlocks = withoutMessageCacheControl(validateUserTurn(input.message, history));
  return {
    history,
    wholeFrom,
    userBlocks,
    userText: plainText(userBlocks),
    userTokens: estimator.content(userBlocks) + MESSAGE_OVERHEAD_TOKENS,
  };
}
type CurrentTurn = ReturnType<typeof currentTurn>;

/** The room left for contextd's own material: the window ceiling and, separately, the caller's cap. */
interface Room {
  left(): number;
  /** What the window ceiling alone leaves. */
  windowLeft(): number;
  take(tokens: number): void;
}

/**
 * 3. What every payload must hold (system, tools, the message, the notes reserve) against the window
 * ceiling: a 422 `budget.too_small` when it does not fit, else the room left beside it.
 */
function mandatoryRoom(
  limits: AssembleInput['limits'],
  components: BudgetComponents,
  userTokens: number,
  window: number,
): Room {
  const mandatory = components.system + components.tools + userTokens;
  const ceiling = windowCeiling(limits);
  if (mandatory + NOTES_RESERVE_TOKENS > ceiling) {
    const requiredWithMargin = withMargin(mandatory + NOTES_RESERVE_TOKENS, windowMultiplier(limits));
    throw unprocessable(
      'budget.too_small',
      `the budget cannot hold the system prompt, the tools and the message: they need ${requiredWithMargin} tokens with the safety margin${
        limits.calibration && limits.calibration.factor !== 1 ? ' and the usage calibration' : ''
      }, the effective window allows ${Math.floor(limits.hardBlock * window)}`,
      {
        required: {
          system: components.system,
          tools: components.tools,
          message: userTokens,
          notes_reserve: NOTES_RESERVE_TOKENS,
        },
        required_with_margin: requiredWithMargin,
        effective_window: window,
        hard_block: limits.hardBlock,
        safety_margin: limits.safetyMargin,
        calibration_factor: limits.calibration?.factor ?? 1,
        total: limits.total,
        max_output_tokens: limits.maxOutputTokens,
      },
    );
  }
  let windowRoom = ceiling - mandatory - NOTES_RESERVE_TOKENS;
  let capRoom = limits.maxContextTokens ?? Number.POSITIVE_INFINITY;
  return {
    left: () => Math.min(windowRoom, capRoom),
    windowLeft: () => windowRoom,
    take: (tokens) => {
      windowRoom -= tokens;
      capRoom -= tokens;
    },
  };
}

/** 4. The lane summary, as the first labelled user message, when it takes at most its share of the room. */
function fitSummary(
  input: AssembleInput,
  room: Room,
  components: BudgetComponents,
  notes: string[],
  stable: TokenEstimator,
): TextBlock | null {
  if (!input.lane.summary) return null;
  const text = renderSummaryBlock(input.lane.laneKey, input.lane.summaryVersion, input.lane.summary);
  // The same summary is sent on every call until the next compaction: counted once.
  const tokens = stable.text(text) + MESSAGE_OVERHEAD_TOKENS;
  if (tokens <= room.left() * SUMMARY_MAX_ROOM_SHARE) {
    components.summary = tokens;
    room.take(tokens);
    return { type: 'text', text };
  }
  notes.push(
    tokens <= room.left()
      ? `The lane summary (${tokens} tokens) would take more than half of the room left (${room.left()} tokens) and was left out: the turns and material retrieved for this message use it.`
      : `The lane summary (${tokens} tokens) did not fit the budget and was left out.`,
  );
  return null;
}

/**
 * Sizes of retrieved items as rendered inside the block (nesting and separators included), beside
 * the wrapper's: each item's JSON plus its separator; only items of this lane (or scoring high
 * enough) that no known message already shows.
 */
function retrievalSizer(input: AssembleInput, stable: TokenEstimator) {
  const header = stable.text(renderDataBlock(RETRIEVED_LABEL, {}));
  return {
    wrapper: { header, groupSize: (key: string) => stable.text(safeJson({ [key]: [] })) },
    retrievalFor(shownIds: readonly string[]) {
      const known = new Set([...input.knownMessageIds, ...shownIds]);
      const eligible = input.retrieved.filter(
        (item) =>
          (!item.lane_key || item.lane_key === input.lane.laneKey || item.score >= OTHER_LANE_MIN_SCORE) &&
          !(item.message_id && known.has(item.message_id)),
      );
      // A row's own tokens; the first row of a (source, day) group also pays for the group's keys.
      const sizes = eligible.map((item) => stable.text(safeJson(retrievedLine(item))) + 1);
      // Chunks of history about to be dropped count too: they are what retrieval brings back.
      const all = eligible.length === 0 ? 0 : header + sizes.reduce((a, b) => a + b, 0);
      return { eligible, sizes, total: Math.min(all, input.retrievalTokens ?? Number.POSITIVE_INFINITY) };
    },
  };
}
type Retrieval = ReturnType<ReturnType<typeof retrievalSizer>['retrievalFor']>;

/** Where history is cut: the newest whole units that fit beside a retrieval reserve. */
function historyCutter(current: CurrentTurn, hasSummary: boolean, estimator: TokenEstimator) {
  const { history, wholeFrom } = current;
  const tokens = sumTokens(history);
  const viewStartTokens =
    !hasSummary && history[0]?.message.role === 'assistant'
      ? estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS
      : 0;
  return {
    hasSummary,
    tokens,
    viewStartTokens,
    /** Index of the first history message sent. */
    cut(available: number, retrievable: number) {
      if (tokens + viewStartTokens <= available) return 0;
      const reserve = Math.min(retrievable, Math.floor(RETRIEVAL_RESERVE_SHARE * Math.max(0, available)));
      return fitHistorySuffix(
        history,
        Math.max(0, available - reserve - VIEW_START_RESERVE(estimator)),
        wholeFrom,
      );
    },
  };
}
type HistoryCutter = ReturnType<typeof historyCutter>;

/**
 * 5. Channel context for this turn: snapshot, thread, quoted reply, media, budgeted before history.
 * Snapshot and thread come once per lane (the service passes them while the lane has none attached
 * for its summary version) and again when the turn that carried them is not among the history this
 * payload sends. Whether it is depends on the room they would take, so history is cut without them
 * first; when they are re-attached, history is cut at least as far, so the carrying turn stays out
 * (the channel context is sent once) and the rest still fits. `firstKept` is set when the cut
 * without re-attaching is final; `leastCut` is the floor of the cut after re-attaching.
 */
function fitChannelContext(
  input: AssembleInput,
  history: readonly HistoryMessage[],
  room: Room,
  cutter: HistoryCutter,
  sizer: ReturnType<typeof retrievalSizer>,
  stable: TokenEstimator,
) {
  const contextRoom = room.left();
  const fit = (channel: ChannelContextInput | null, recovery: ContextRecovery | null) =>
    fitTurnContext({ input, channel, recovery, room: contextRoom, estimator: input.estimator, stable });
  const carriedAt = input.lane.contextAttachedSeq ?? null;
  let turnContext = fit(
    carriedAt === null ? input.channelContext : null,
    carriedAt === null && input.lane.compactedSinceAttach
      ? { kind: 'compaction', sentSeqs: new Set(history.flatMap((m) => m.seqs)) }
      : null,
  );
  let retrieval = sizer.retrievalFor(turnContext.shownIds);
  let firstKept: number | null = null;
  let leastCut = 0;
  let reattach = false;
  if (carriedAt !== null) {
    const cut = cutter.cut(contextRoom - turnContext.used, retrieval.total);
    const sent = history.slice(cut);
    if (carriedAt >= (sent[0]?.seqs[0] ?? Number.POSITIVE_INFINITY)) {
      firstKept = cut;
    } else if (input.channelContext) {
      turnContext = fit(input.channelContext, {
        kind: 'truncation',
        sentSeqs: new Set(sent.flatMap((m) => m.seqs)),
      });
      retrieval = sizer.retrievalFor(turnContext.shownIds);
      leastCut = cut;
    } else {
      reattach = true;
      firstKept = cut;
    }
  }
  return { turnContext, retrieval, firstKept, leastCut, reattach };
}

/**
 * 6. History: keep the newest whole units that fit, leaving a reserve for retrieved material; a 413
 * `context_overflow` when it does not fit and compaction is "never". Chunks of dropped history may
 * come back as retrieved material; chunks still in view, and rows, channel messages and texts a
 * sent turn already shows, are never retrieved again.
 */
function keepHistory(
  input: AssembleInput,
  current: CurrentTurn,
  channel: ReturnType<typeof fitChannelContext>,
  room: Room,
  cutter: HistoryCutter,
  components: BudgetComponents,
  window: number,
) {
  const { history } = current;
  const { limits, estimator } = input;
  // (A re-attachment's least cut means history did not fit without it either.)
  if (
    input.compaction === 'never' &&
    (channel.leastCut > 0 || cutter.tokens + cutter.viewStartTokens > room.left())
  ) {
    throw tooLarge(
      'context_overflow',
      `the conversation does not fit and compaction is "never": history needs ${cutter.tokens} tokens, ${Math.max(0, room.left())} are left`,
      {
        history_tokens: cutter.tokens,
        room: Math.max(0, room.left()),
        window_room: Math.max(0, room.windowLeft()),
        max_context_tokens: limits.maxContextTokens,
        effective_window: window,
        safety_margin: limits.safetyMargin,
        calibration_factor: limits.calibration?.factor ?? 1,
        components,
      },
    );
  }
  const firstKept =
    channel.firstKept ?? Math.max(channel.leastCut, cutter.cut(room.left(), channel.retrieval.total));
  const kept = history.slice(firstKept);
  const needsViewStart = !cutter.hasSummary && kept[0]?.message.role === 'assistant';
  return {
    kept,
    // Counted in transcript entries (consecutive same-role entries render as one message).
    dropped: history.slice(0, firstKept).reduce((n, m) => n + m.seqs.length, 0),
    needsViewStart,
    tokens:
      sumTokens(kept) + (needsViewStart ? estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS : 0),
    retrievable: retrievableOutsideView(history, firstKept, kept, channel.retrieval),
  };
}
type HistoryView = ReturnType<typeof keepHistory>;

/** The retrieval candidates (with their sizes) that the sent history does not already show. */
function retrievableOutsideView(
  history: readonly HistoryMessage[],
  firstKept: number,
  kept: readonly HistoryMessage[],
  retrieval: Retrieval,
) {
  const firstSentSeq = kept[0]?.seqs[0] ?? Number.POSITIVE_INFINITY;
  const outsideView = (item: RetrievedItem) => !(item.seq_range && item.seq_range[1] >= firstSentSeq);
  const shown = shownInView(history);
  const candidates: RetrievedItem[] = [];
  const sizes: number[] = [];
  retrieval.eligible.forEach((item, i) => {
    if (!outsideView(item) || shown(item, firstKept)) return;
    candidates.push(item);
    sizes.push(retrieval.sizes[i]!);
  });
  return { candidates, sizes };
}

function droppedNote(dropped: number) {
  return `${dropped} oldest history entr${dropped === 1 ? 'y was' : 'ies were'} left out to fit the budget.`;
}

/**
 * 8. The turn's own labelled blocks: the quoted reply (budgeted with the channel context, placed
 * here), the pending slot when this message answers it, and the context notes decided on the
 * budget so far. `tokens`: the slot's and the notes' (the quoted reply counts as channel context).
 */
function ownBlocks(
  input: AssembleInput,
  current: CurrentTurn,
  turnContext: TurnContext,
  deferralNote: string | null,
  components: BudgetComponents,
  notes: string[],
  stable: TokenEstimator,
) {
  const blocks: TextBlock[] = [];
  let tokens = 0;
  if (turnContext.quotedText !== null) blocks.push({ type: 'text', text: turnContext.quotedText });
  let slotUse: AssembledContext['pending_slot'] = null;
  const slot = input.lane.pendingSlot;
  const match = slot ? matchPendingSlot(slot, current.userText, input.now) : null;
  if (slot && match) {
    slotUse = { name: slot.name, type: slot.type, value: match.value };
    const text = renderDataBlock(
      {
        tag: 'pending_slot',
        header: `This message answers the pending question "${slot.name}" (expected ${slot.type}).`,
      },
      { name: slot.name, prompt: slot.prompt ?? null, value: match.value },
    );
    blocks.push({ type: 'text', text });
    tokens += stable.text(text);
  }
  const modelNotes: string[] = [];
  if (deferralNote) {
    modelNotes.push(deferralNote);
    notes.push(deferralNote);
  }
  if (turnContext.recoveryNote) modelNotes.push(turnContext.recoveryNote);
  // Judged on what must be sent: retrieved material is elastic and never raises the usage.
  const partial = budgetReport(
    { ...components, memories: 0, current_turn: current.userTokens },
    input.limits,
  );
  const usage = usageNote(partial.percentage, input.conversationTools?.compactContext !== false);
  if (usage) modelNotes.push(usage);
  const flush = memoryFlushNote(input.previousPercentage, partial.percentage);
  if (flush) modelNotes.push(flush);
  // The notes are this payload's only (after the turn's breakpoint, never stored).
  const notesBlocks: TextBlock[] = [];
  let notesTokens = 0;
  if (modelNotes.length > 0) {
    const text = renderNotesBlock(modelNotes);
    notesBlocks.push({ type: 'text', text });
    notesTokens = stable.text(text);
  }
  return { blocks, tokens, notesBlocks, notesTokens, slotUse };
}

/**
 * 9. Messages: summary → view start marker → history → this turn. Like the transcript renderer,
 * this turn joins the last history message when that is a user message too, so the next call
 * (which renders this turn from the transcript) repeats these bytes exactly.
 */
function messagesOf(
  summaryBlock: TextBlock | null,
  view: HistoryView,
  userTurn: Block[],
  payloadOnly: Block[],
) {
  const { kept } = view;
  const messages: Anthropic.MessageParam[] = [];
  if (summaryBlock) messages.push({ role: 'user', content: [summaryBlock] });
  if (view.needsViewStart)
    messages.push({ role: 'user', content: [{ type: 'text', text: VIEW_START_TEXT }] });
  for (const m of kept) {
    messages.push({
      role: m.message.role,
      content: jsonbKeyOrder(withoutMessageCacheControl(m.message.content)),
    });
  }
  const lastKept = kept.at(-1);
  const previousTurn = lastKept
    ? { message: messages.length - 1, block: lastKept.message.content.length - 1 }
    : null;
  if (lastKept?.message.role === 'user') {
    messages[messages.length - 1] = {
      role: 'user',
      content: [...lastKept.message.content, ...userTurn, ...payloadOnly],
    };
  } else {
    messages.push({ role: 'user', content: [...userTurn, ...payloadOnly] });
  }
  // This turn's stored part ends here; the payload-only blocks follow its breakpoint.
  const thisTurnEnd = (messages.at(-1)!.content as Block[]).length - payloadOnly.length - 1;
  return { messages, previousTurn, thisTurnEnd };
}

/** What context the payload used: channel, snapshot, thread, retrieved rows, the lane's view, focus, slot. */
function contextUsed(
  input: AssembleInput,
  turnContext: TurnContext,
  retrieved: AssembledContext['retrieved'],
  summaryIncluded: boolean,
  view: HistoryView,
  slotUse: AssembledContext['pending_slot'],
): AssembledContext {
  const { kept } = view;
  const lastAssistant = [...kept].reverse().find((m) => m.message.role === 'assistant');
  return {
    channel: turnContext.channel
      ? { platform: turnContext.channel.platform, channel_id: turnContext.channel.channelId }
      : null,
    snapshot: turnContext.snapshot,
    thread: turnContext.thread,
    quoted_reply: turnContext.quoted,
    retrieved,
    lane: {
      lane_key: input.lane.laneKey,
      version: input.lane.version,
      summary_version: input.lane.summaryVersion,
      summary_included: summaryIncluded,
      first_kept_seq: input.lane.firstKeptSeq,
      cleared_before_seq: input.lane.clearedBeforeSeq,
      first_sent_seq: kept[0]?.seqs[0] ?? null,
      dropped_entries: view.dropped,
    },
    focus_anchor: input.quotedReply
      ? { kind: 'reply', message_id: input.quotedReply.message_id }
      : lastAssistant
        ? { kind: 'assistant_turn', seq: lastAssistant.seqs.at(-1)! }
        : null,
    pending_slot: slotUse,
  };
}

/**
 * Rebuilds objects with their keys in the order Postgres jsonb stores them (shorter keys first,
 * then bytewise). Stored turns come back from jsonb in that order; sending new turns in the same
 * order makes every later payload repeat earlier turns byte for byte.
 */
export function jsonbKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => jsonbKeyOrder(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, jsonbKeyOrder(v)])) as T;
}

const VIEW_START_RESERVE = (estimator: TokenEstimator) =>
  estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS;
