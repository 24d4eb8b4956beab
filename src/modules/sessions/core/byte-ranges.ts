// Reading parts of stored bytes: HTTP Range headers (RFC 9110, one range) and text slices by
// byte offset that never split a UTF-8 character. Pure.

type RangeResult =
  { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * Parses a `Range` header for a body of `size` bytes. Anything we do not serve as a single range
 * (other units, several ranges, syntax errors) is ignored and the full body is served, as the RFC
 * allows; a well-formed range that lies outside the body is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'full' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'full' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || (last !== '' && Number(last) < start)) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}

interface TextSlice {
  text: string;
  /** Byte offset where the slice starts (moved forward past a split character). */
  offset: number;
  /** Byte offset just after the slice; where the next read starts. */
  end: number;
  totalBytes: number;
  done: boolean;
}

/**
 * `limit` bytes of UTF-8 text from `offset`, shrunk so no character is cut: a start inside a
 * character moves to the next one, an end inside one moves back before it.
 */
export function sliceUtf8(bytes: Uint8Array, offset: number, limit: number): TextSlice {
  const total = bytes.length;
  let start = Math.min(Math.max(0, offset), total);
  while (start < total && isContinuation(bytes[start]!)) start += 1;
  let end = Math.min(total, start + Math.max(0, limit));
  if (end < total) {
    while (end > start && isContinuation(bytes[end]!)) end -= 1;
    // A limit smaller than one character still makes progress.
    if (end === start && limit > 0) {
      end = start + 1;
      while (end < total && isContinuation(bytes[end]!)) end += 1;
    }
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  return { text, offset: start, end, totalBytes: total, done: end >= total };
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;
