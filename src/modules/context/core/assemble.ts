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
import { asBlocks, fitHistorySuffix, historyWithOpenLoop } from '../../sessions/core/history-view.js';
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
  type AssembleResult,
  type ChannelContextInput,
  type RetrievedItem,
  type SystemSection,
  type TextBlock,
} from './assemble.types.js';
import { stableEstimator, sumTokens } from './stable-estimator.js';
import { packRetrieved, RETRIEVED_LABEL, retrievedLine } from './retrieved-block.js';
import { shownInView } from './shown-in-view.js';
import { fitTurnContext, type ContextRecovery } from './turn-context.js';

export function assembleContext(input: AssembleInput): AssembleResult {
  const { estimator, limits } = input;
  const stable = stableEstimator(estimator);
  const notes: string[] = [];
  const components: BudgetComponents = emptyComponents();
  const window = effectiveWindow(limits);

  // 1. Tools: built-ins first, then the caller's as given (without `source`), after deferral.
  const deferral = deferTools({
    tools: [
      ...builtinToolsFor({ hasChannel: input.structuredContext }).map((tool) => ({
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
  components.tools = deferral.activeTokens;

  // 2. System: cacheable sections (inline, then agent), the guide, then the non-cacheable ones.
  const sections = [...input.system, ...input.agentSections];
  const ordered: SystemSection[] = [
    ...sections.filter((s) => s.cacheable),
    ...(input.structuredContext
      ? [{ name: CHANNEL_GUIDE_NAME, text: CHANNEL_CONTEXT_GUIDE, cacheable: true }]
      : []),
    ...sections.filter((s) => !s.cacheable),
  ].filter((s) => s.text.length > 0);
  const system: TextBlock[] = ordered.map((s) => ({ type: 'text', text: s.text }));
  components.system = ordered.reduce((sum, s) => sum + stable.text(s.text), 0);
  const lastCacheableSystem = ordered.map((s) => s.cacheable).lastIndexOf(true);

  // 3. History in view (an open tool loop keeps its thinking and is never cut in two), and the
  // new message checked against it.
  const { history, wholeFrom } = historyWithOpenLoop({
    entries: input.history,
    firstKeptSeq: input.lane.firstKeptSeq,
    clearedBeforeSeq: input.lane.clearedBeforeSeq,
    answersToolCalls: asBlocks(input.message).some((b) => b.type === 'tool_result'),
    estimator,
  });
  const userBlocks = withoutMessageCacheControl(validateUserTurn(input.message, history));
  const userText = plainText(userBlocks);
  const userTokens = estimator.content(userBlocks) + MESSAGE_OVERHEAD_TOKENS;

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

  // Room for contextd's own material: the window ceiling and, separately, the caller's cap.
  let windowRoom = ceiling - mandatory - NOTES_RESERVE_TOKENS;
  let capRoom = limits.maxContextTokens ?? Number.POSITIVE_INFINITY;
  const room = () => Math.min(windowRoom, capRoom);
  const take = (tokens: number) => {
    windowRoom -= tokens;
    capRoom -= tokens;
  };

  // 3a. Lane summary, as the first labelled user message.
  let summaryBlock: TextBlock | null = null;
  if (input.lane.summary) {
    const text = renderSummaryBlock(input.lane.laneKey, input.lane.summaryVersion, input.lane.summary);
    // The same summary is sent on every call until the next compaction: counted once.
    const tokens = stable.text(text) + MESSAGE_OVERHEAD_TOKENS;
    if (tokens <= room() * SUMMARY_MAX_ROOM_SHARE) {
      summaryBlock = { type: 'text', text };
      components.summary = tokens;
      take(tokens);
    } else {
      notes.push(
        tokens <= room()
          ? `The lane summary (${tokens} tokens) would take more than half of the room left (${room()} tokens) and was left out: the turns and material retrieved for this message use it.`
          : `The lane summary (${tokens} tokens) did not fit the budget and was left out.`,
      );
    }
  }

  // Sizes of retrieved items as rendered inside the block (nesting and separators included),
  // beside the wrapper's: each item's JSON plus its separator.
  const retrievedHeader = stable.text(renderDataBlock(RETRIEVED_LABEL, {}));
  const groupSize = (key: string) => stable.text(safeJson({ [key]: [] }));
  const retrievalFor = (shownIds: readonly string[]) => {
    const known = new Set([...input.knownMessageIds, ...shownIds]);
    const eligible = input.retrieved.filter(
      (item) =>
        (!item.lane_key || item.lane_key === input.lane.laneKey || item.score >= OTHER_LANE_MIN_SCORE) &&
        !(item.message_id && known.has(item.message_id)),
    );
    // A row's own tokens; the first row of a (source, day) group also pays for the group's keys.
    const sizes = eligible.map((item) => stable.text(safeJson(retrievedLine(item))) + 1);
    // Chunks of history about to be dropped count too: they are what retrieval brings back.
    const total = eligible.length === 0 ? 0 : retrievedHeader + sizes.reduce((a, b) => a + b, 0);
    return { eligible, sizes, total };
  };
  const historyTokens = sumTokens(history);
  const viewStartTokens =
    !summaryBlock && history[0]?.message.role === 'assistant'
      ? estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS
      : 0;
  /** Index of the first history message sent: the newest whole units that fit beside a retrieval reserve. */
  const cutHistory = (available: number, retrievable: number) => {
    if (historyTokens + viewStartTokens <= available) return 0;
    const reserve = Math.min(retrievable, Math.floor(RETRIEVAL_RESERVE_SHARE * Math.max(0, available)));
    return fitHistorySuffix(
      history,
      Math.max(0, available - reserve - VIEW_START_RESERVE(estimator)),
      wholeFrom,
    );
  };

  // 4a. Channel context for this turn: snapshot, thread, quoted reply, media, budgeted before
  // history. Snapshot and thread come once per lane (the service passes them while the lane has
  // none attached for its summary version) and again when the turn that carried them is not among
  // the history this payload sends. Whether it is depends on the room they would take, so history
  // is cut without them first; when they are re-attached, history is cut at least as far, so the
  // carrying turn stays out (the channel context is sent once) and the rest still fits.
  const contextRoom = room();
  const fitContext = (channel: ChannelContextInput | null, recovery: ContextRecovery | null) =>
    fitTurnContext({ input, channel, recovery, room: contextRoom, estimator, stable });
  const carriedAt = input.lane.contextAttachedSeq ?? null;
  let turnContext = fitContext(
    carriedAt === null ? input.channelContext : null,
    carriedAt === null && input.lane.compactedSinceAttach
      ? { kind: 'compaction', sentSeqs: new Set(history.flatMap((m) => m.seqs)) }
      : null,
  );
  let retrieval = retrievalFor(turnContext.shownIds);
  // firstKept: set here when the cut without re-attaching is final; leastCut: the floor of the cut
  // after re-attaching.
  let firstKept: number | null = null;
  let leastCut = 0;
  let reattachChannelContext = false;
  if (carriedAt !== null) {
    const cut = cutHistory(contextRoom - turnContext.used, retrieval.total);
    const sent = history.slice(cut);
    if (carriedAt >= (sent[0]?.seqs[0] ?? Number.POSITIVE_INFINITY)) {
      firstKept = cut;
    } else if (input.channelContext) {
      turnContext = fitContext(input.channelContext, {
        kind: 'truncation',
        sentSeqs: new Set(sent.flatMap((m) => m.seqs)),
      });
      retrieval = retrievalFor(turnContext.shownIds);
      leastCut = cut;
    } else {
      reattachChannelContext = true;
      firstKept = cut;
    }
  }
  notes.push(...turnContext.notes);
  if (turnContext.recoveryNote) notes.push(turnContext.recoveryNote);
  components.channel_context = turnContext.tokens;
  take(turnContext.used);
  const turnBlocks: TextBlock[] = [...turnContext.blocks];
  const mediaBlocks = turnContext.media;
  const attachments = turnContext.attachments;

  // 3b. History: keep the newest whole units that fit, leaving a reserve for retrieved material.
  // Transcript chunks of history still in view are never retrieved.
  const outsideView = (item: RetrievedItem, from: number) => !(item.seq_range && item.seq_range[1] >= from);
  // (A re-attachment's least cut means history did not fit without it either.)
  if (input.compaction === 'never' && (leastCut > 0 || historyTokens + viewStartTokens > room())) {
    throw tooLarge(
      'context_overflow',
      `the conversation does not fit and compaction is "never": history needs ${historyTokens} tokens, ${Math.max(0, room())} are left`,
      {
        history_tokens: historyTokens,
        room: Math.max(0, room()),
        window_room: Math.max(0, windowRoom),
        max_context_tokens: limits.maxContextTokens,
        effective_window: window,
        safety_margin: limits.safetyMargin,
        calibration_factor: limits.calibration?.factor ?? 1,
        components,
      },
    );
  }
  firstKept ??= Math.max(leastCut, cutHistory(room(), retrieval.total));
  const kept = history.slice(firstKept);
  // Counted in transcript entries (consecutive same-role entries render as one message).
  const dropped = history.slice(0, firstKept).reduce((n, m) => n + m.seqs.length, 0);
  // Chunks of dropped history may come back as retrieved material; chunks still in view may not.
  const firstSentSeq = kept[0]?.seqs[0] ?? Number.POSITIVE_INFINITY;
  const { eligible } = retrieval;
  // Never repeat: rows, channel messages and texts a sent turn already shows are not retrieved again.
  const shown = shownInView(history);
  const candidates: RetrievedItem[] = [];
  const retrievedSizes: number[] = [];
  eligible.forEach((item, i) => {
    if (!outsideView(item, firstSentSeq) || shown(item, firstKept!)) return;
    candidates.push(item);
    retrievedSizes.push(retrieval.sizes[i]!);
  });
  if (dropped > 0) {
    notes.push(
      `${dropped} oldest history entr${dropped === 1 ? 'y was' : 'ies were'} left out to fit the budget` +
        (input.compaction === 'sync' ? ' (compaction is not available yet).' : '.'),
    );
  }
  const needsViewStart = !summaryBlock && kept[0]?.message.role === 'assistant';
  components.conversation =
    sumTokens(kept) + (needsViewStart ? estimator.text(VIEW_START_TEXT) + MESSAGE_OVERHEAD_TOKENS : 0);
  take(components.conversation);

  // 4b. Retrieved material, best first, each item whole or not at all (core/retrieved-block.ts).
  const packedBlock = packRetrieved({
    candidates,
    sizes: retrievedSizes,
    room: room(),
    header: retrievedHeader,
    groupSize,
  });
  const retrievedUsed = packedBlock.used;
  if (packedBlock.text !== null) {
    turnBlocks.push({ type: 'text', text: packedBlock.text });
    components.memories = packedBlock.tokens;
    take(components.memories);
  }
  const unused: UnusedRoom = {
    tokens: Math.max(0, room()),
    reason: input.retrievalSkipped
      ? 'retrieval_skipped'
      : packedBlock.skipped > 0
        ? 'next_item_too_large'
        : 'no_more_candidates',
  };

  // 4c. Quoted reply (budgeted with the channel context above, placed here).
  if (turnContext.quotedText !== null) turnBlocks.push({ type: 'text', text: turnContext.quotedText });

  // 4d. Pending slot, only when this message answers it.
  let slotUse: AssembledContext['pending_slot'] = null;
  // The slot and notes blocks: with the user's content, what this turn holds besides channel
  // context and retrieved material.
  let ownBlockTokens = 0;
  const slot = input.lane.pendingSlot;
  if (slot) {
    const match = matchPendingSlot(slot, userText, input.now);
    if (match) {
      slotUse = { name: slot.name, type: slot.type, value: match.value };
      const text = renderDataBlock(
        {
          tag: 'pending_slot',
          header: `This message answers the pending question "${slot.name}" (expected ${slot.type}).`,
        },
        { name: slot.name, prompt: slot.prompt ?? null, value: match.value },
      );
      turnBlocks.push({ type: 'text', text });
      ownBlockTokens += stable.text(text);
    }
  }

  // 4e. Context notes, decided on the budget so far.
  const modelNotes: string[] = [];
  if (deferral.note) {
    modelNotes.push(deferral.note);
    notes.push(deferral.note);
  }
  if (turnContext.recoveryNote) modelNotes.push(turnContext.recoveryNote);
  const partial = budgetReport({ ...components, current_turn: userTokens }, limits);
  const usage = usageNote(partial.percentage);
  if (usage) modelNotes.push(usage);
  const flush = memoryFlushNote(input.previousPercentage, partial.percentage);
  if (flush) modelNotes.push(flush);
  if (modelNotes.length > 0) {
    const text = renderNotesBlock(modelNotes);
    turnBlocks.push({ type: 'text', text });
    ownBlockTokens += stable.text(text);
  }

  // The user turn exactly as stored: the user's content, then media, then the labelled blocks,
  // with object keys in jsonb's order so the stored copy serializes to the same bytes.
  const userTurn = jsonbKeyOrder([...userBlocks, ...mediaBlocks, ...turnBlocks]);
  // Everything in this turn that is not channel context or retrieved material: the user's own
  // content, the slot and the notes. Every block was measured when it was added (an estimate of
  // content is the sum of its blocks'), so the turn is not counted again.
  components.current_turn = userTokens + ownBlockTokens;
  const userTurnTokens = components.current_turn + components.channel_context + components.memories;

  // Messages: summary → view start marker → history → this turn. Like the transcript renderer,
  // this turn joins the last history message when that is a user message too, so the next call
  // (which renders this turn from the transcript) repeats these bytes exactly.
  const messages: Anthropic.MessageParam[] = [];
  if (summaryBlock) messages.push({ role: 'user', content: [summaryBlock] });
  if (needsViewStart) messages.push({ role: 'user', content: [{ type: 'text', text: VIEW_START_TEXT }] });
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
    messages[messages.length - 1] = { role: 'user', content: [...lastKept.message.content, ...userTurn] };
  } else {
    messages.push({ role: 'user', content: userTurn });
  }

  const payload: AnthropicPayload = {
    model: input.model,
    max_tokens: limits.maxOutputTokens,
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(deferral.active.length > 0 ? { tools: deferral.active } : {}),
  };
  const cache = placeCacheBreakpoints(payload, {
    lastCacheableSystem,
    summaryMessage: summaryBlock ? 0 : null,
    previousTurn,
    stablePrefixTokens: components.tools + components.system + components.summary + components.conversation,
  });

  const budget = { ...budgetReport(components, limits), unused };
  const lastAssistant = [...kept].reverse().find((m) => m.message.role === 'assistant');
  return {
    payload,
    budget,
    context: {
      channel: turnContext.channel
        ? { platform: turnContext.channel.platform, channel_id: turnContext.channel.channelId }
        : null,
      snapshot: turnContext.snapshot,
      thread: turnContext.thread,
      quoted_reply: turnContext.quoted,
      retrieved: retrievedUsed,
      lane: {
        lane_key: input.lane.laneKey,
        version: input.lane.version,
        summary_version: input.lane.summaryVersion,
        summary_included: summaryBlock !== null,
        first_kept_seq: input.lane.firstKeptSeq,
        cleared_before_seq: input.lane.clearedBeforeSeq,
        first_sent_seq: kept[0]?.seqs[0] ?? null,
        dropped_entries: dropped,
      },
      focus_anchor: input.quotedReply
        ? { kind: 'reply', message_id: input.quotedReply.message_id }
        : lastAssistant
          ? { kind: 'assistant_turn', seq: lastAssistant.seqs.at(-1)! }
          : null,
      pending_slot: slotUse,
    },
    attachments,
    deferred_tools: deferral.deferred,
    notes,
    cache,
    userTurn: { content: userTurn, tokens: userTurnTokens },
    reattachChannelContext,
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
