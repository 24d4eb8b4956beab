// How deeply a JSON text nests, measured on the text in one loop: recursive code (validation,
// hashing, rendering) must never see a document deep enough to overflow the stack.

/** The deepest nesting of arrays and objects accepted in a request body. */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text nests arrays/objects deeper than `limit` (brackets in strings do not count). */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}
