// Assembly steps 8–10 (core/assemble.ts): the turn's own blocks and notes, the messages, and the
// report of what context the payload used.
import type Anthropic from '@anthropic-ai/sdk';
import { budgetReport, type BudgetComponents } from './budget.js';
import { withoutMessageCacheControl } from './cache-breakpoints.js';
import { renderDataBlock, renderNotesBlock } from './context-blocks.js';
import { memoryFlushNote, usageNote } from './context-notes.js';
import { matchPendingSlot } from '../../lanes/core/pending-slot.js';
import type { TokenEstimator } from '../../../shared/tokens.js';
import { plainTextOf } from '../../../shared/content-blocks.js';
import {
  VIEW_START_TEXT,
  type AssembledContext,
  type AssembleInput,
  type Block,
  type TextBlock,
} from './assemble.types.js';
import { type TurnContext } from './turn-context.js';
import type { CurrentTurn } from './assemble-fixed.js';
import type { HistoryView } from './assemble-view.js';

/**
 * 8. The turn's own labelled blocks: the quoted reply (budgeted with the channel context, placed
 * here), the pending slot when this message answers it, and the context notes decided on the
 * budget so far. `tokens`: the slot's and the notes' (the quoted reply counts as channel context).
 */
export function ownBlocks(
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
export function messagesOf(
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
export function contextUsed(
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
  const plain = plainTextOf(value);
  if (plain !== null) return { text: plain, type: 'text' } as T;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, jsonbKeyOrder(v)])) as T;
}
