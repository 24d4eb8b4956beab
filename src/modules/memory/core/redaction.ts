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

/** Spans that lie inside an earlier marker are not secrets: redacting again changes nothing. */
function outsideMarkers(text: string, spans: SecretSpan[]): SecretSpan[] {
  const markers = [...text.matchAll(MARKER)].map((m) => [m.index, m.index + m[0].length] as const);
  if (markers.length === 0) return spans;
  return spans.filter(({ start, end }) => !markers.some(([from, to]) => start >= from && end <= to));
}

/** Replaces secrets in `text` with `[REDACTED:kind]` markers. Pure, synchronous and deterministic. */
export function redactSecrets(text: string): RedactionResult {
  const spans = mergeSpans(outsideMarkers(text, [...findPresetSecrets(text), ...findPatternSecrets(text)]));
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
