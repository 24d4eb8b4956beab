// Tool-result offloading (docs/design.md §6.8): when a result is too big to keep inline, and the exact
// reference text the transcript keeps instead. Pure.

const OFFLOAD_PREVIEW_CHARS = 200;

/** The text of a tool_result's content when it is text only (a string or text blocks); else null. */
export function toolResultText(content: unknown): string | null {
  if (content === undefined) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const parts: string[] = [];
  for (const block of content) {
    const b = block as { type?: string; text?: unknown };
    if (b.type !== 'text' || typeof b.text !== 'string') return null;
    parts.push(b.text);
  }
  return parts.join('\n');
}

/** How an offload reference starts and ends (the store matches stored references by these). */
export const OFFLOAD_REFERENCE_START = '[Tool result stored — ';
export const offloadReferenceEnd = (refId: string) => `] Use read_result with ref_id="${refId}"`;

/** The reference kept in the transcript for an offloaded tool result. */
export function offloadReference(params: {
  byteLength: number;
  toolName: string;
  text: string;
  refId: string;
}) {
  const preview = Array.from(params.text).slice(0, OFFLOAD_PREVIEW_CHARS).join('');
  return (
    `${OFFLOAD_REFERENCE_START}${params.byteLength} bytes from "${params.toolName}". ` +
    `First ${OFFLOAD_PREVIEW_CHARS} chars: ${preview}${offloadReferenceEnd(params.refId)}`
  );
}

const REF_PATTERN =
  /^\[Tool result stored — \d+ bytes from "[^"]*"\. [\s\S]*\] Use read_result with ref_id="([0-9a-f-]{36})"$/;

/** The artifact id of an offloaded tool result's reference text, if the content is one. */
export function offloadRefIdOf(content: unknown): string | null {
  const text = typeof content === 'string' ? content : toolResultText(content);
  if (text === null) return null;
  return REF_PATTERN.exec(text)?.[1] ?? null;
}
