// What the history in view already shows ("never repeat"): the rows of earlier turns'
// retrieved blocks, the channel messages their snapshots and threads attached, and the plain text
// of the turns themselves. Retrieval leaves these out while the turn that carries them is sent, so
// a long session's prompt grows by what is new, not by the same rows again. Read back from the
// stored turns (what was sent stays sent, docs/assembly.md), so nothing more is stored or queried.

import type { HistoryMessage } from '../../sessions/core/history-view.js';
import type { RetrievedItem } from './assemble.types.js';
import { RETRIEVED_LABEL, retrievedGroup, retrievedLine } from './retrieved-block.js';

const CHANNEL_TAGS = ['channel_snapshot', 'thread_context', 'quoted_reply'];

/** What one history message shows. */
interface Shown {
  /** "group\u0000row" of retrieved rows. */
  rows: string[];
  /** Channel message ids of attached snapshots, threads and quoted replies. */
  messageIds: string[];
  /** The plain text of the message's own text blocks (trimmed). */
  texts: string[];
}

/** A retrieved row's key: the same key for the same rendered material, whatever its id. */
const rowKey = (item: RetrievedItem) => `${retrievedGroup(item)}\u0000${retrievedLine(item)}`;

/** The JSON line of a rendered data block (docs/assembly.md: tag line, header line, JSON, closing tag). */
function blockData(text: string, tag: string): unknown {
  if (!text.startsWith(`<${tag}`) || !text.endsWith(`</${tag}>`)) return undefined;
  const lines = text.split('\n');
  if (lines.length !== 4) return undefined;
  try {
    return JSON.parse(lines[2]!) as unknown;
  } catch {
    return undefined;
  }
}

function collectMessageIds(value: unknown, out: string[], depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collectMessageIds(v, out, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'message_id' && typeof v === 'string') out.push(v);
    else collectMessageIds(v, out, depth + 1);
  }
}

function shownBy(message: HistoryMessage): Shown {
  const shown: Shown = { rows: [], messageIds: [], texts: [] };
  for (const block of message.message.content) {
    if (block.type !== 'text') continue;
    const text = block.text;
    if (!text.startsWith('<')) {
      if (text.trim() !== '') shown.texts.push(text.trim());
      continue;
    }
    const retrieved = blockData(text, RETRIEVED_LABEL.tag);
    if (retrieved && typeof retrieved === 'object' && !Array.isArray(retrieved)) {
      for (const [group, rows] of Object.entries(retrieved as Record<string, unknown>)) {
        if (!Array.isArray(rows)) continue;
        for (const row of rows) if (typeof row === 'string') shown.rows.push(`${group}\u0000${row}`);
      }
      continue;
    }
    for (const tag of CHANNEL_TAGS) {
      const data = blockData(text, tag);
      if (data !== undefined) collectMessageIds(data, shown.messageIds);
    }
  }
  return shown;
}

/**
 * A filter over retrieved items for a payload that sends `history.slice(from)`: false for an item
 * whose row, message or text a sent turn already shows. Built once per assembly; `from` may change.
 */
export function shownInView(history: readonly HistoryMessage[]) {
  const perMessage = history.map(shownBy);
  const cache = new Map<number, { rows: Set<string>; ids: Set<string>; texts: Set<string> }>();
  const union = (from: number) => {
    let sets = cache.get(from);
    if (!sets) {
      sets = { rows: new Set(), ids: new Set(), texts: new Set() };
      for (const shown of perMessage.slice(from)) {
        for (const r of shown.rows) sets.rows.add(r);
        for (const id of shown.messageIds) sets.ids.add(id);
        for (const t of shown.texts) sets.texts.add(t);
      }
      cache.set(from, sets);
    }
    return sets;
  };
  return (item: RetrievedItem, from: number): boolean => {
    const sets = union(from);
    if (sets.rows.has(rowKey(item))) return true;
    if (item.message_id && sets.ids.has(item.message_id)) return true;
    return item.kind === 'channel_message' && sets.texts.has(item.text.trim());
  };
}
