// Our own detection rules: only what secretlint's recommended preset (secretlint-preset.ts) lacks —
// prose and `key=value` passwords, URL userinfo, Authorization headers, and token formats the preset
// has no rule for. Each rule is data: a kind, a pattern whose `secret` group (or whole match) is the
// secret, and an optional check on the candidate.

export const redactionKinds = [
  // from the secretlint preset
  'aws_secret_key',
  'private_key',
  'npm_token',
  'slack_token',
  'slack_webhook',
  'openai_key',
  'anthropic_key',
  'groq_key',
  'huggingface_token',
  'linear_key',
  'notion_token',
  'sendgrid_key',
  'shopify_token',
  'github_token',
  'gitlab_token',
  'grafana_token',
  'onepassword_token',
  'vault_token',
  'vercel_token',
  'databricks_token',
  'docker_token',
  'figma_token',
  // ours
  'aws_access_key',
  'jwt',
  'google_api_key',
  'stripe_key',
  'telegram_bot_token',
  'azure_storage_key',
  'basic_auth',
  'bearer_token',
  'password',
  'secret',
  'card_number',
] as const;

export type RedactionKind = (typeof redactionKinds)[number];

/** Kinds named by where a secret sits rather than by its format: a format's kind names it first. */
export const genericKinds: ReadonlySet<RedactionKind> = new Set([
  'password',
  'secret',
  'bearer_token',
  'basic_auth',
]);

/** Characters [start, end) of the text that are a secret of this kind. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: RedactionKind;
}

interface SecretPattern {
  kind: RedactionKind;
  /** Global, with the `d` flag; a `secret` group, when present, is the part to redact. */
  pattern: RegExp;
  /** Keeps a candidate only if this holds. */
  accept?: (secret: string) => boolean;
  /**
   * What every match needs, tested on the text (and its lower case, for the `i` patterns) before the
   * pattern runs: a literal or a run the pattern cannot match without. A text without it cannot
   * match, so skipping the pattern finds the same spans (test/unit/redaction.test.ts holds the
   * gated and ungated scans equal).
   */
  gate: (text: string, lower: string) => boolean;
}

/** Whether `text` has `min` characters in a row for which `inRun` (of their char code) holds. */
function hasRun(text: string, min: number, inRun: (code: number) => boolean): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (!inRun(text.charCodeAt(i))) run = 0;
    else if (++run >= min) return true;
  }
  return false;
}
const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpperOrDigit = (c: number) => (c >= 65 && c <= 90) || isDigit(c);
/** [A-Za-z0-9/+] */
const isBase64 = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 47 || c === 43;
function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) if (isDigit(text.charCodeAt(i))) n += 1;
  return n;
}
/** A word SECRET_KEY ends in (each of its alternatives holds one), in a lower-cased text. */
const hasSecretKeyWord = (lower: string) =>
  lower.includes('pass') ||
  lower.includes('pwd') ||
  lower.includes('secret') ||
  lower.includes('token') ||
  lower.includes('key') ||
  lower.includes('credential');

/** Looks generated rather than a word: two of lower case, upper case, digits (or a symbol). */
function looksRandom(value: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((c) => c.test(value)).length;
  return classes >= 2;
}

/**
 * A 40-character AWS secret key: lower case, upper case and digits, and the class changes of a random
 * string. A random key over its 64 characters changes class at ~25 of its 39 steps (lower and upper
 * case are each 26/64 of them, digits 10/64, `/+` 2/64), fewer than 16 in about 1 of 1,000 keys; a path
 * or an identifier of 40 characters (`src/channels/IngestStateMachine/tests2`) changes at far fewer.
 * A hex SHA has no upper case; padded base64 ends in `=` and longer blobs are longer runs.
 */
function looksLikeAwsSecret(key: string): boolean {
  if (!/[a-z]/.test(key) || !/[A-Z]/.test(key) || !/\d/.test(key)) return false;
  const classOf = (c: string) =>
    c >= 'a' && c <= 'z' ? 0 : c >= 'A' && c <= 'Z' ? 1 : c >= '0' && c <= '9' ? 2 : 3;
  let changes = 0;
  for (let i = 1; i < key.length; i += 1) if (classOf(key[i]!) !== classOf(key[i - 1]!)) changes += 1;
  return changes >= 16;
}

/** A stand-in written where a secret would go: `<token>`, `${API_KEY}`, `{{password}}`, `****`. */
const isPlaceholder = (value: string) =>
  /^(?:<[^>]*>?|\$\{[^}]*\}?|\{\{[^}]*(?:\}\}?)?|\*+|x+|\.\.\.)$/i.test(value);

/** A password said in prose or after `key:`: not a plain word ("expired", "required"), not a placeholder. */
function looksLikePassword(value: string): boolean {
  return (/[\d\W_]/.test(value) || /.[A-Z]/.test(value)) && !isPlaceholder(value);
}

/** `Basic <base64>` where the base64 decodes to `user:password`. */
function isBasicCredential(value: string): boolean {
  try {
    return /^[^:\s]*:\S+$/.test(atob(value));
  } catch {
    return false;
  }
}

/**
 * Key names whose values are secrets: the key must end in one of these words (`db_password`, not
 * `max_tokens`). Only the word is matched, never the key's beginning: a pattern that scans back
 * over a run of key characters at every word boundary is quadratic on long runs like `a.a.a.…`.
 */
const SECRET_KEY = String.raw`(?:password|passwd|passphrase|pwd|secret|secret[_-]?key|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)`;

/** An unquoted value: to the next whitespace, less trailing punctuation (linear: no lookahead per character). */
const UNQUOTED_VALUE = String.raw`(?<secret>[^\s"'\`]{2,}[^\s"'\`,;.)\]}>])`;

const secretPatterns: readonly SecretPattern[] = [
  {
    // A whole PEM block, also a short or unterminated one (a paste cut off in chat) to the end.
    kind: 'private_key',
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$(?![\s\S]))/dg,
    gate: (t) => t.includes('-----BEGIN '),
  },
  {
    kind: 'jwt',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg,
    gate: (t) => t.includes('eyJ'),
  },
  // The preset matches only the current full-length formats; older and shorter keys exist.
  {
    kind: 'anthropic_key',
    pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/dg,
    gate: (t) => t.includes('sk-ant-'),
  },
  {
    kind: 'openai_key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/dg,
    gate: (t) => t.includes('sk-'),
  },
  {
    kind: 'github_token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/dg,
    gate: (t) => t.includes('gh') || t.includes('github_pat_'),
  },
  // The preset ends a Slack token's segments at 40 characters (an app token's last one has 64).
  {
    kind: 'slack_token',
    pattern: /(?<![A-Za-z0-9-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/dg,
    gate: (t) => t.includes('xox') || t.includes('xapp-'),
  },
  // The preset's AWS key id rule is opt-in and skips AWS's published example keys.
  {
    kind: 'aws_access_key',
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/dg,
    gate: (t) => hasRun(t, 20, isUpperOrDigit),
  },
  {
    // The preset finds `AWS_SECRET_ACCESS_KEY=…`; this finds the 40-character key anywhere: a run of
    // exactly 40 base64 characters that stands alone (not part of a longer run, an identifier, or
    // padded base64) and reads as random, not as a path or an identifier (looksLikeAwsSecret).
    kind: 'aws_secret_key',
    pattern: /(?<![A-Za-z0-9/+=_.-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-]|\.[A-Za-z0-9])/dg,
    gate: (t) => hasRun(t, 40, isBase64),
    accept: looksLikeAwsSecret,
  },
  {
    kind: 'google_api_key',
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg,
    gate: (t) => t.includes('AIza'),
  },
  {
    kind: 'stripe_key',
    pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b/dg,
    gate: (t) => t.includes('_live_') || t.includes('_test_'),
  },
  // Telegram: `<bot id>:<35 characters>`, also in the Bot API's `/bot<token>/` URLs.
  {
    kind: 'telegram_bot_token',
    pattern: /(?:(?<=\/bot)|(?<![\w:]))\d{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/dg,
    gate: (t) => t.includes(':') && hasRun(t, 8, isDigit),
  },
  // Azure storage / Service Bus connection strings: `AccountKey=<base64>`, `SharedAccessKey=<base64>`.
  {
    kind: 'azure_storage_key',
    pattern: /\b(?:AccountKey|SharedAccessKey|SharedKey)\s*=\s*(?<secret>[A-Za-z0-9+/]{40,}={0,2})/dgi,
    gate: (t, lower) => lower.includes('key') && t.includes('='),
  },
  {
    kind: 'basic_auth',
    pattern: /\bBasic\s+(?<secret>[A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/dgi,
    gate: (_t, lower) => lower.includes('basic'),
    accept: isBasicCredential,
  },
  {
    kind: 'bearer_token',
    pattern: /\b(?:Bearer|Token)\s+(?<secret>[A-Za-z0-9\-._~+/]{15,}[A-Za-z0-9\-_~+/]=*)/dgi,
    gate: (_t, lower) => lower.includes('bearer') || lower.includes('token'),
    accept: looksRandom,
  },
  {
    // scheme://user:password@host (any scheme, the user may be empty): the password goes, up to the
    // last `@` before the host.
    kind: 'password',
    pattern: /(?<=[a-z0-9]):\/\/[^\s:/@]*:(?<secret>[^\s/]+)@(?=[^\s@/]*(?:[/\s?#]|$))/dgi,
    gate: (t) => t.includes('://'),
    accept: (value) => !isPlaceholder(value),
  },
  {
    // "password": "…" / 'api_key': '…' / password="…": quoted values, any character but the quote.
    kind: 'secret',
    pattern: new RegExp(
      String.raw`${SECRET_KEY}["']?\s*[:=]\s*(?<open>["'])(?<secret>[^"'\n]{1,512})\k<open>`,
      'dgi',
    ),
    gate: (t, lower) => hasSecretKeyWord(lower) && (t.includes(':') || t.includes('=')),
  },
  {
    // password=Tr0ub4dor&3: an unquoted value after `=` runs to the next whitespace.
    kind: 'secret',
    pattern: new RegExp(String.raw`${SECRET_KEY}\s*=\s*${UNQUOTED_VALUE}`, 'dgi'),
    gate: (t, lower) => hasSecretKeyWord(lower) && t.includes('='),
    accept: (value) => !isPlaceholder(value),
  },
  {
    // password: hunter2 — after a colon only a password-like value (not "Password: reset it").
    kind: 'secret',
    pattern: new RegExp(String.raw`${SECRET_KEY}\s*:\s*${UNQUOTED_VALUE}`, 'dgi'),
    gate: (t, lower) => hasSecretKeyWord(lower) && t.includes(':'),
    accept: looksLikePassword,
  },
  {
    // Prose: "my password is hunter2hunter2", "the passphrase was changed to …".
    kind: 'password',
    pattern:
      /\b(?:password|passwd|passphrase|passcode|pwd)\b[^\n.]{0,30}?\s(?:(?:is|was)(?:\s+(?:now|(?:set|changed|reset|updated)\s+to))?|(?:set|changed|reset|updated)\s+to)\s+["'“]?(?<secret>[^\s"'”]{3,}[^\s"'”,;.)])/dgi,
    accept: looksLikePassword,
    gate: (_t, lower) => lower.includes('pass') || lower.includes('pwd'),
  },
  {
    // 13–19 digits, optionally grouped by single spaces or dashes, starting like a card (2–6), Luhn.
    kind: 'card_number',
    pattern: /(?<![\d.-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-]|\.\d)/dg,
    gate: (t) => digitCount(t) >= 13,
    accept: (match) => {
      const digits = match.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
    },
  },
];

/**
 * Every match of our own rules, as spans of `text` (`gated: false`: every pattern run, for tests;
 * `lower`: the text's lower case, when the caller has it).
 */
export function findPatternSecrets(
  text: string,
  options: { gated?: boolean; lower?: string } = {},
): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const gated = options.gated !== false;
  const lower = gated ? (options.lower ?? text.toLowerCase()) : '';
  for (const { kind, pattern, accept, gate } of secretPatterns) {
    if (gated && !gate(text, lower)) continue;
    // exec from the start, not matchAll: matchAll copies the regex (a compile-cache lookup and an
    // allocation per pattern and text). A failed exec leaves lastIndex at 0 again.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      // No pattern matches empty (nor has the u flag); were one to, step past it as matchAll does.
      if (match[0] === '') pattern.lastIndex += 1;
      const [start, end] = match.indices?.groups?.secret ?? match.indices![0]!;
      if (accept && !accept(text.slice(start, end))) continue;
      spans.push({ start, end, kind });
    }
  }
  return spans;
}

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
