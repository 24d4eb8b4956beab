// Values shared between calls (held lane entries, held search documents) are frozen, so a caller
// that changed one would fail loudly instead of changing what the next call sees.

/** Freezes `value` and every object reachable from its own enumerable properties; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
