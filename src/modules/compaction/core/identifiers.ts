// Identifiers a summary must keep verbatim (ids, paths, URLs, numbers, error messages), and the
// check that counts how many of the summarized entries' identifiers the summary kept.
import type { IdentifierSurvival } from './types.js';

const PATTERNS: RegExp[] = [
  // URLs
  /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g,
  // UUIDs
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  // file paths: /a/b, ./a, ~/a, C:\a, src/a.ts
  /(?:~|\.{1,2})?\/(?:[\w.@-]+\/)*[\w.@-]+|\b[A-Za-z]:\\(?:[\w.-]+\\)*[\w.-]+|\b(?:[\w-]+\/)+[\w-]+\.[A-Za-z0-9]{1,6}\b/g,
  // ticket-like ids: ABC-123, #123
  /\b[A-Z][A-Z0-9]{1,9}-\d+\b|#\d{2,}\b/g,
  // hyphenated names with a digit: vpn-eu-2, us-east-1, node-20
  /\b(?=[\w-]*\d)[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)+\b/g,
  // hex hashes (git SHAs and the like), at least 7 characters with a digit and a letter
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/g,
  // error names and codes: TypeError, ECONNREFUSED, HTTP 503
  /\b[A-Z][a-zA-Z]*(?:Error|Exception)\b|\bE[A-Z]{3,}\b/g,
  // snake/camel identifiers with a digit or an underscore: user_42, build2024, order_id
  /\b[a-zA-Z]+(?:_[a-zA-Z0-9]+)+\b|\b[a-zA-Z]+\d+[a-zA-Z0-9]*\b/g,
  // versions and numbers of two or more digits (amounts, ports, times)
  /\bv?\d+(?:\.\d+){1,3}\b|\b\d[\d,]*(?:\.\d+)?\b/g,
];

export const REDACTED = /\[REDACTED:[a-z_]+\]/g;

/** A lone digit is too common to count as an identifier. */
const meaningful = (token: string) => !/^\d$/.test(token);

/** Identifiers in a text, deduplicated, in order of first appearance. */
export function extractIdentifiers(text: string): string[] {
  const clean = text.replace(REDACTED, ' ');
  const found: { index: number; token: string }[] = [];
  for (const pattern of PATTERNS) {
    for (const match of clean.matchAll(pattern)) {
      const token = match[0];
      if (token.length < 2 || !meaningful(token)) continue;
      found.push({ index: match.index ?? 0, token });
    }
  }
  found.sort((a, b) => a.index - b.index || b.token.length - a.token.length);
  // A match inside a longer one (a number inside a URL) is not counted for that occurrence.
  const out: string[] = [];
  const seen = new Set<string>();
  let coveredUntil = -1;
  for (const { index, token } of found) {
    const end = index + token.length;
    if (end <= coveredUntil) continue;
    coveredUntil = Math.max(coveredUntil, end);
    if (seen.has(token)) continue;
    seen.add(token);
    out.push(token);
  }
  return out;
}

/** How many identifiers of the summarized texts the summary kept verbatim. */
export function identifierSurvival(sourceTexts: readonly string[], summary: string): IdentifierSurvival {
  const identifiers = extractIdentifiers(sourceTexts.join('\n'));
  const missing = identifiers.filter((id) => !summary.includes(id));
  return {
    total: identifiers.length,
    kept: identifiers.length - missing.length,
    missing: missing.slice(0, 20),
  };
}
