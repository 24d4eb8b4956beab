// Secret redaction (docs/memory.md): a pure function applied before anything is stored as a memory
// or summarized. Secrets are found by secretlint's recommended preset plus our own rules for what it
// lacks; each becomes `[REDACTED:kind]` and the counts say what was found.
import { findPatternSecrets, genericKinds, type RedactionKind, type SecretSpan } from './secret-patterns.js';
import { findPresetSecrets } from './secretlint-preset.js';

export { passesLuhn, redactionKinds, type RedactionKind } from './secret-patterns.js';

export interface RedactionResult {
  text: string;
  /** How many matches of each kind were replaced (kinds with no match are absent). */
  counts: Partial<Record<RedactionKind, number>>;
}

/**
 * The version of the redaction rules. Bump it when a rule is added or widened: the maintenance pass
 * then re-redacts every tenant's stored search documents once (docs/memory.md "Existing data").
 */
export const REDACTION_RULES_VERSION = 1;

export const redactedMarker = (kind: RedactionKind) => `[REDACTED:${kind}]`;

const MARKER = /\[REDACTED:[a-z_]+\]/g;

/**
 * Overlapping spans become one. It is named by the span that starts first (the longer at the same
 * start, then the preset's before ours), unless that kind is generic and another one is not.
 */
function mergeSpans(spans: SecretSpan[]): SecretSpan[] {
  const ordered = spans
    .map((span, order) => ({ span, order }))
    .sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end || a.order - b.order)
    .map(({ span }) => span);
  const merged: SecretSpan[] = [];
  for (const span of ordered) {
    const last = merged.at(-1);
    if (!last || span.start >= last.end) {
      merged.push({ ...span });
      continue;
    }
    last.end = Math.max(last.end, span.end);
    if (genericKinds.has(last.kind) && !genericKinds.has(span.kind)) last.kind = span.kind;
  }
  return merged;
}

/**
 * Spans that lie inside an earlier marker are not secrets: redacting again changes nothing. (The
 * includes test first: matchAll copies its regex, which costs more than the rest of a chat line's
 * scan.)
 */
function outsideMarkers(text: string, spans: SecretSpan[]): SecretSpan[] {
  if (spans.length === 0 || !text.includes('[REDACTED:')) return spans;
  const markers = [...text.matchAll(MARKER)].map((m) => [m.index, m.index + m[0].length] as const);
  if (markers.length === 0) return spans;
  return spans.filter(({ start, end }) => !markers.some(([from, to]) => start >= from && end <= to));
}

/** Replaces secrets in `text` with `[REDACTED:kind]` markers. Pure, synchronous and deterministic. */
export function redactSecrets(text: string): RedactionResult {
  const lower = text.toLowerCase();
  const found = findPresetSecrets(text, { lower }).concat(findPatternSecrets(text, { lower }));
  // Nearly every chat line: nothing found, nothing to merge or splice.
  if (found.length === 0) return { text, counts: {} };
  const spans = mergeSpans(outsideMarkers(text, found));
  const counts: Partial<Record<RedactionKind, number>> = {};
  let out = '';
  let cursor = 0;
  for (const { start, end, kind } of spans) {
    out += text.slice(cursor, start) + redactedMarker(kind);
    cursor = end;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return { text: out + text.slice(cursor), counts };
}

/**
 * Texts already redacted, by their text: history, snapshot and thread messages come back on every
 * call of a conversation, and the same text redacts the same way. Bounded by total characters held;
 * when full it starts again (the next calls fill it with what is current).
 */
const MEMO_MAX_CHARS = 4_000_000;
const memo = new Map<string, string>();
let memoChars = 0;

/** `redactSecrets(text).text`, remembered for texts read again. */
export function redactText(text: string): string {
  if (text === '') return text;
  const known = memo.get(text);
  if (known !== undefined) return known;
  const redacted = redactSecrets(text).text;
  if (memoChars + text.length > MEMO_MAX_CHARS) {
    memo.clear();
    memoChars = 0;
  }
  if (text.length <= MEMO_MAX_CHARS / 100) {
    memo.set(text, redacted);
    memoChars += text.length;
  }
  return redacted;
}

/** The text a search column is built from: the redacted text where it differs, else null (the text). */
export function searchTextOf(text: string): string | null {
  const redacted = redactText(text);
  return redacted === text ? null : redacted;
}

/** Content already redacted, by its (stored, unchanging) object: history entries repeat per call. */
const contentMemo = new WeakMap<object, unknown>();

/**
 * Anthropic content (a string or content blocks) as a model may read it: text, tool results and the
 * string values of tool inputs redacted. Thinking blocks stay as they are: their signature covers
 * their text, and a changed one is refused by the API. Unchanged content is returned as it came.
 */
export function redactContent<T>(content: T): T {
  if (typeof content === 'string') return redactText(content) as T;
  if (!content || typeof content !== 'object') return content;
  const known = contentMemo.get(content);
  if (known !== undefined) return known as T;
  const out = Array.isArray(content) ? redactBlocks(content) : redactBlock(content);
  contentMemo.set(content, out);
  return out as T;
}

function redactBlocks(blocks: unknown[]): unknown[] {
  let changed = false;
  const out = blocks.map((block) => {
    const next = typeof block === 'string' ? redactText(block) : redactBlock(block);
    if (next !== block) changed = true;
    return next;
  });
  return changed ? out : blocks;
}

function redactBlock(block: unknown): unknown {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return block;
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text': {
      if (typeof b.text !== 'string') return block;
      const text = redactText(b.text);
      return text === b.text ? block : { ...b, text };
    }
    case 'tool_result': {
      const inner = b.content;
      const next =
        typeof inner === 'string' ? redactText(inner) : Array.isArray(inner) ? redactBlocks(inner) : inner;
      return next === inner ? block : { ...b, content: next };
    }
    case 'tool_use': {
      const input = redactStrings(b.input);
      return input === b.input ? block : { ...b, input };
    }
    // A compaction record (the transcript's): its summary, and the identifiers and terms a summary
    // left out, which records written before their source was redacted hold as said.
    case 'compaction':
      return redactStrings(block);
    default:
      return block;
  }
}

/** Every string value in a JSON value redacted (object keys kept); unchanged values as they came. */
export function redactStrings<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = redactStrings(item);
      if (next !== item) changed = true;
      return next;
    });
    return (changed ? out : value) as T;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const next = redactStrings(item);
    if (next !== item) changed = true;
    out[key] = next;
  }
  return (changed ? out : value) as T;
}
