// Token estimates, made once at write time and summed at assembly (DESIGN §6.3). The default is
// a real BPE count (o200k) times a per-model factor: no offline tokenizer matches current Claude
// models, and chars/4 is badly off on JSON, CJK and code. Callers apply the safety margin where a
// limit is enforced.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export interface TokenEstimator {
  /** Estimated tokens of plain text. */
  text(text: string): number;
  /** Estimated tokens of Anthropic content (a string or content blocks). */
  content(content: unknown): number;
}

/** Claude tokenizers produce somewhat more tokens than o200k for the same text. */
export const DEFAULT_MODEL_FACTOR = 1.1;
/** Fixed overhead of one message (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Provider rule for images: width × height / 750, capped. */
export const IMAGE_TOKEN_CAP = 1600;
const IMAGE_DEFAULT_TOKENS = 1600;
const DOCUMENT_PAGE_TOKENS = 1500;

export function imageTokens(width?: number, height?: number): number {
  if (!width || !height) return IMAGE_DEFAULT_TOKENS;
  return Math.min(IMAGE_TOKEN_CAP, Math.ceil((width * height) / 750));
}

export function createTokenEstimator(factor = DEFAULT_MODEL_FACTOR): TokenEstimator {
  const text = (value: string) => (value.length === 0 ? 0 : Math.ceil(countTokens(value) * factor));
  const block = (b: unknown): number => {
    if (typeof b === 'string') return text(b);
    if (!b || typeof b !== 'object') return 0;
    const value = b as Record<string, unknown>;
    switch (value.type) {
      case 'text':
        return text(String(value.text ?? ''));
      case 'thinking':
      case 'redacted_thinking':
        // Stored, never sent.
        return 0;
      case 'image': {
        const meta = value as { width?: number; height?: number };
        return imageTokens(meta.width, meta.height);
      }
      case 'document':
        return DOCUMENT_PAGE_TOKENS;
      case 'tool_use':
        return text(String(value.name ?? '')) + text(JSON.stringify(value.input ?? {})) + 8;
      case 'tool_result': {
        const inner = value.content;
        return (
          8 + (typeof inner === 'string' ? text(inner) : Array.isArray(inner) ? sum(inner.map(block)) : 0)
        );
      }
      default:
        return text(JSON.stringify(value));
    }
  };
  return {
    text,
    content: (content) => (Array.isArray(content) ? sum(content.map(block)) : block(content)),
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
