// Text search over a session's turns (its transcript, read page by page up to a bound and kept for
// the session while the page is open) and over one payload's units.
import { api, sessionPath } from './api.js';
import { blockText } from './units.js';

/** Transcript entries read at most per session (10 pages). */
export const MAX_ENTRIES = 5000;

const transcripts = new Map();

/** The session's transcript entries (at most MAX_ENTRIES, oldest first), read once. */
export function sessionTranscript(sessionId) {
  let loading = transcripts.get(sessionId);
  if (!loading) {
    loading = (async () => {
      const entries = [];
      let cursor = null;
      do {
        const page = await api(
          sessionPath(
            sessionId,
            `/transcript?limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
          ),
        );
        entries.push(...page.entries);
        cursor = page.next_cursor;
      } while (cursor !== null && entries.length < MAX_ENTRIES);
      return { entries, complete: cursor === null };
    })();
    loading.catch(() => transcripts.delete(sessionId));
    transcripts.set(sessionId, loading);
  }
  return loading;
}

export function forgetTranscripts() {
  transcripts.clear();
}

/** An entry's searchable text. */
export function entryText(entry) {
  const content = entry.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(blockText).join('\n');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** Case-insensitive match; null for an empty query. */
export function matcher(query) {
  const needle = query.trim().toLowerCase();
  if (!needle) return null;
  return (text) => typeof text === 'string' && text.toLowerCase().includes(needle);
}

/** "…words around the match…" (plain text; the caller puts it in a text node). */
export function snippet(text, query, width = 60) {
  const at = text.toLowerCase().indexOf(query.trim().toLowerCase());
  if (at < 0) return text.slice(0, width * 2);
  const from = Math.max(0, at - width);
  const to = Math.min(text.length, at + query.trim().length + width);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
