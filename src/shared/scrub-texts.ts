// Texts that must leave what serves later turns (deleted channel messages, erased content): the
// needles searched for (the whole text and its snippet prefix, since the snapshot quotes messages
// as snippets) and the scrub that replaces them by a marker in strings and JSON values alike.
/** The prefix of a deleted text searched for (the snapshot quotes messages as snippets). */
export const PURGE_NEEDLE_CHARS = 60;
/** Texts shorter than this are matched only by the turn that is the message, never as quotes. */
export const PURGE_MIN_NEEDLE_CHARS = 12;
export const DELETED_MARKER = '[deleted message]';

/** The needle stored for a deleted or edited text, or null when it is too short to be specific. */
export function purgeNeedle(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length < PURGE_MIN_NEEDLE_CHARS) return null;
  return Array.from(trimmed).slice(0, PURGE_NEEDLE_CHARS).join('');
}

export const needlesOf = (texts: readonly string[]) =>
  [...new Set(texts.flatMap((t) => [t.trim(), purgeNeedle(t)]).filter((t): t is string => !!t))].sort(
    (a, b) => b.length - a.length,
  );

export function scrubValue(value: unknown, needles: readonly string[], marker = DELETED_MARKER): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const needle of needles) out = out.split(needle).join(marker);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, needles, marker));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, needles, marker)]));
  }
  return value;
}

/** `text` with every one of `texts` (and its snippet prefix) replaced by the marker. */
export function scrubText(text: string, texts: readonly string[], marker = DELETED_MARKER): string {
  const needles = needlesOf(texts);
  return needles.length === 0 ? text : (scrubValue(text, needles, marker) as string);
}
