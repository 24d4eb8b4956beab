// Erased content (docs/api.md, "Erasing content"): the texts an erase removes from everything that
// serves later turns, and the tombstone an erased transcript entry keeps in place of its content.
import { renderedContextTag } from '../../../shared/content-blocks.js';
import { PURGE_MIN_NEEDLE_CHARS, needlesOf, scrubValue } from '../../../shared/scrub-texts.js';

export const ERASED_MARKER = '[content erased]';

/**
 * The texts of a turn's content that an erase searches for elsewhere: a string, or the strings of
 * its blocks (text, tool results, tool input). Context contextd rendered into the turn (snapshot,
 * retrieved material) is not what the turn said, and texts shorter than PURGE_MIN_NEEDLE_CHARS are
 * too unspecific to search for: the entry itself is tombstoned whatever it holds.
 */
export function contentTexts(content: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string | null) => {
    if (typeof value === 'string') {
      // Block types, ids, names and media types are structure, not what was said.
      if (key === null || !['type', 'id', 'tool_use_id', 'name', 'media_type', 'signature'].includes(key)) {
        if (value.trim().length >= PURGE_MIN_NEEDLE_CHARS && renderedContextTag(value.trim()) === null)
          out.push(value);
      }
      return;
    }
    if (Array.isArray(value)) return value.forEach((v) => walk(v, null));
    if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, k);
  };
  walk(content, null);
  return [...new Set(out)];
}

/**
 * The content an erased entry keeps: its shape (roles, tool_use/tool_result pairs and their ids)
 * with every text, tool input and medium replaced by the marker.
 */
export function tombstoneContent(content: unknown): unknown {
  if (typeof content === 'string') return ERASED_MARKER;
  if (!Array.isArray(content)) return ERASED_MARKER;
  return content.map((block: unknown) => {
    const b = (block ?? {}) as Record<string, unknown>;
    switch (b.type) {
      case 'tool_use':
        return { type: 'tool_use', id: b.id, name: b.name, input: {} };
      case 'tool_result':
        return {
          type: 'tool_result',
          tool_use_id: b.tool_use_id,
          content: ERASED_MARKER,
          ...(b.is_error !== undefined ? { is_error: b.is_error } : {}),
        };
      default:
        return { type: 'text', text: ERASED_MARKER };
    }
  });
}

/**
 * The forms a text takes where it is stored: as it is, inside JSON text (jsonb's text form, a
 * payload part), and inside a JSON string holding JSON (a stored reply's bytes).
 */
export function storedForms(texts: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const needle of needlesOf(texts)) {
    const once = JSON.stringify(needle).slice(1, -1);
    forms.add(needle).add(once).add(JSON.stringify(once).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A stored value (string, JSON value) with every stored form of the texts replaced by the marker. */
export function eraseFrom<T>(value: T, forms: readonly string[]): T {
  return scrubValue(value, forms, ERASED_MARKER) as T;
}
