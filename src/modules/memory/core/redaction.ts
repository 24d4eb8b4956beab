// Secret redaction (docs/design.md §6.12): a pure function applied before anything is stored as a memory
// or summarized. Each match becomes `[REDACTED:kind]`; the counts say what was found.

export type RedactionKind =
  | 'private_key'
  | 'jwt'
  | 'anthropic_key'
  | 'openai_key'
  | 'aws_access_key'
  | 'github_token'
  | 'slack_token'
  | 'google_api_key'
  | 'stripe_key'
  | 'bearer_token'
  | 'password'
  | 'secret'
  | 'card_number';

export interface RedactionResult {
  text: string;
  /** How many matches of each kind were replaced (kinds with no match are absent). */
  counts: Partial<Record<RedactionKind, number>>;
}

export const redactedMarker = (kind: RedactionKind) => `[REDACTED:${kind}]`;

interface Rule {
  kind: RedactionKind;
  pattern: RegExp;
  /** Builds the replacement from the match; returns null to leave the match alone. */
  replace?: (match: RegExpExecArray | string[], marker: string) => string | null;
}

/** Key names whose values are secrets in `key=value`, `key: value` and `"key": "value"` pairs. */
const SECRET_KEY = String.raw`[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)`;

const RULES: Rule[] = [
  {
    kind: 'private_key',
    // A whole PEM block; an unterminated one is redacted to the end of the text.
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$(?![\s\S]))/g,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe_key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g },
  {
    kind: 'bearer_token',
    pattern: /\b(Bearer|Token)(\s+)([A-Za-z0-9\-._~+/]{16,}=*)/gi,
    replace: (m, marker) => `${m[1]}${m[2]}${marker}`,
  },
  {
    kind: 'password',
    // scheme://user:password@host — the user stays, the password goes.
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]+):([^\s@/]+)@/gi,
    replace: (m, marker) => (m[3]!.startsWith('[REDACTED') ? null : `${m[1]}${m[2]}:${marker}@`),
  },
  {
    kind: 'secret',
    // "password": "…" / 'api_key': '…' / password="…" (quoted values, any characters but the quote).
    pattern: new RegExp(String.raw`(["']?)\b(${SECRET_KEY})\1(\s*[:=]\s*)(["'])([^"'\n]{1,512})\4`, 'gi'),
    replace: (m, marker) =>
      m[5]!.startsWith('[REDACTED') ? null : `${m[1]}${m[2]}${m[1]}${m[3]}${m[4]}${marker}${m[4]}`,
  },
  {
    kind: 'secret',
    // password=hunter2 / api_key: abc123 (unquoted values up to whitespace or a separator).
    pattern: new RegExp(String.raw`\b(${SECRET_KEY})(\s*[:=]\s*)([^\s"'\`,;&<>[\]{}]{3,})`, 'gi'),
    replace: (m, marker) => `${m[1]}${m[2]}${marker}`,
  },
  {
    kind: 'card_number',
    // 13–19 digits, optionally grouped by single spaces or dashes, starting like a card (2–6).
    pattern: /(?<![\d.-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-]|\.\d)/g,
    replace: (m, marker) => {
      const digits = m[0]!.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits) ? marker : null;
    },
  },
];

/** Luhn checksum (ISO/IEC 7812) over a string of digits. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Replaces secrets in `text` with `[REDACTED:kind]` markers. Pure and deterministic. */
export function redactSecrets(text: string): RedactionResult {
  const counts: Partial<Record<RedactionKind, number>> = {};
  let out = text;
  for (const rule of RULES) {
    const marker = redactedMarker(rule.kind);
    out = out.replace(rule.pattern, (...args: unknown[]) => {
      // String.replace passes (match, ...groups, offset, whole[, namedGroups]).
      const groupsEnd = args.findIndex((a, i) => i > 0 && typeof a === 'number');
      const match = args.slice(0, groupsEnd) as string[];
      const replacement = rule.replace ? rule.replace(match, marker) : marker;
      if (replacement === null) return match[0]!;
      counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replacement;
    });
  }
  return { text: out, counts };
}

/** Total number of replacements in a result's counts. */
