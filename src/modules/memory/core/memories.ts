// Memory records' pure rules: the normalized-text key that deduplicates a fact within its scope,
// the size limit, and what a scope key must look like.
import { createHash } from 'node:crypto';

/** Longest memory text accepted (after redaction), in characters; longer is a 413. */
export const MAX_MEMORY_CHARS = 16_000;

/**
 * The text as compared for duplicates: Unicode-normalized, lower-cased, whitespace collapsed,
 * trailing sentence punctuation dropped. "Likes tea." and "likes  TEA" are the same fact.
 */
function normalizeMemoryText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!;,]+$/u, '');
}

/** SHA-256 (hex) of the normalized text: the `text_key` of the unique index per scope and type. */
export function memoryTextKey(text: string): string {
  return createHash('sha256').update(normalizeMemoryText(text)).digest('hex');
}

/** Who a memory belongs to (scope_key names the tenant, channel, user or session key). */
export const memoryScopes = ['tenant', 'channel', 'user', 'session'] as const;
export const memoryTypes = [
  'fact',
  'preference',
  'outcome',
  'event',
  'lane_summary',
  'session_summary',
  'thread_state',
] as const;
