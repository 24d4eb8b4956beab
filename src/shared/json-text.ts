// JSON texts made once: a builder that stringified a value's parts to size them can hand over the
// whole value's text (JSON.stringify of it, byte for byte), so a renderer does not stringify it again.
// Only for values nobody changes after: the text is kept by the object, not recomputed.

const KNOWN = new WeakMap<object, string>();

/** Records `json` as JSON.stringify(value): the caller guarantees they are equal and stay so. */
export function rememberJson(value: object, json: string): void {
  KNOWN.set(value, json);
}

/** JSON.stringify(value), the text recorded for it when there is one. */
export function jsonOf(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const known = KNOWN.get(value);
    if (known !== undefined) return known;
  }
  return JSON.stringify(value);
}
