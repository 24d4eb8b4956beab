// Pending slots (docs/design.md §6.10): a question the agent asked and is waiting on. The slot is applied
// only when the new message matches its expected type, so it cannot hijack an unrelated request.
import { RE2JS } from 're2js';
import { z } from 'zod';

export const pendingSlotSchema = z
  .strictObject({
    name: z.string().min(1).max(200).describe('what is being asked for, e.g. "delivery date"'),
    type: z.enum(['date', 'time', 'number', 'yes_no', 'email', 'choice', 'regex']),
    prompt: z.string().max(2000).optional().describe('the question as the agent asked it'),
    choices: z
      .array(z.string().min(1).max(200))
      .max(50)
      .optional()
      .describe('for "choice": the allowed answers (by text, position or a single named choice)'),
    pattern: z
      .string()
      .max(500)
      .optional()
      .describe(
        'for "regex": a pattern the whole trimmed message must match, in RE2 syntax (JavaScript-like, linear time: no backreferences or lookaround)',
      ),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("after this time the slot no longer applies (compared with the turn's time)"),
  })
  .superRefine((slot, ctx) => {
    // A slot that can never match is a client bug: refuse it with the field path.
    if (slot.type === 'choice' && !slot.choices?.length) {
      ctx.addIssue({ code: 'custom', path: ['choices'], message: 'required (non-empty) for type "choice"' });
    }
    if (slot.type === 'regex' && slot.pattern === undefined) {
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'required for type "regex"' });
    } else if (slot.pattern !== undefined && !isValidSlotPattern(slot.pattern)) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message:
          'not a valid pattern: RE2 syntax (as JavaScript, without backreferences or lookaround), matched against the whole message',
      });
    }
  });
export type PendingSlot = z.infer<typeof pendingSlotSchema>;

interface SlotMatch {
  /** The normalized value the message supplies. */
  value: string;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(?:${MONTHS.map((m) => `${m.slice(0, 3)}(?:${m.slice(3)})?`).join('|')})\\.?`;
const WEEKDAY = '(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?';
const DATE_PATTERNS = [
  /\b\d{4}-\d{2}-\d{2}\b/,
  /\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b/,
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:,?\\s+\\d{4})?\\b`, 'i'),
  new RegExp(`\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'i'),
  new RegExp(`\\b(?:today|tomorrow|yesterday|(?:next|this)\\s+(?:week|month|${WEEKDAY})|${WEEKDAY})\\b`, 'i'),
];
const TIME_PATTERNS = [
  /\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?\s*(?:[ap]\.?m\.?)?(?![\w:])/i,
  /\b(?:1[0-2]|0?[1-9])\s*[ap]\.?m\.?(?!\w)/i,
  /\b(?:noon|midnight)\b/i,
];
const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];
const YES =
  /^(?:y|yes|yeah|yep|yup|sure|ok|okay|correct|right|affirmative|of course|absolutely|definitely|please do|go ahead|confirm(?:ed)?)\b/i;
const NO = /^(?:n|no|nope|nah|negative|not really|no thanks|don't|do not|cancel|never mind|nevermind)\b/i;
// On the linear-time engine: with a backtracking one, a message of dots and letters without an
// address costs time quadratic in its length (100 kB took ~5 s).
const EMAIL = RE2JS.compile(String.raw`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`);

const firstMatch = (patterns: RegExp[], text: string) => {
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    if (m) return m[0].trim();
  }
  return null;
};

/** Whether `text` answers `slot`, and with what value. Pure and deterministic. */
export function matchPendingSlot(slot: PendingSlot, text: string, now?: Date): SlotMatch | null {
  if (slot.expires_at && now && Date.parse(slot.expires_at) <= now.getTime()) return null;
  const trimmed = text.trim();
  if (!trimmed) return null;
  switch (slot.type) {
    case 'date': {
      const value = firstMatch(DATE_PATTERNS, trimmed);
      return value ? { value } : null;
    }
    case 'time': {
      const value = firstMatch(TIME_PATTERNS, trimmed);
      return value ? { value } : null;
    }
    case 'number': {
      const numeric = /(?<![\w.])-?\d+(?:[.,]\d+)?(?![\w])/.exec(trimmed);
      if (numeric) return { value: numeric[0].replace(',', '.') };
      const word = new RegExp(`\\b(${NUMBER_WORDS.join('|')})\\b`, 'i').exec(trimmed);
      return word ? { value: String(NUMBER_WORDS.indexOf(word[1]!.toLowerCase())) } : null;
    }
    case 'yes_no': {
      // Only short replies count: "no, but can you check the build?" is a new request.
      if (trimmed.split(/\s+/).length > 6) return null;
      if (YES.test(trimmed)) return { value: 'yes' };
      if (NO.test(trimmed)) return { value: 'no' };
      return null;
    }
    case 'email': {
      const m = EMAIL.matcher(trimmed);
      return m.find() ? { value: m.group()! } : null;
    }
    case 'choice': {
      const choices = slot.choices ?? [];
      const lower = trimmed.toLowerCase().replace(/[.!?]+$/, '');
      const exact = choices.find((c) => c.toLowerCase() === lower);
      if (exact) return { value: exact };
      // "option 2" / "2" picks by position.
      const index = /^(?:option\s*|#)?(\d{1,2})$/i.exec(lower);
      if (index) {
        const choice = choices[Number(index[1]) - 1];
        if (choice) return { value: choice };
      }
      // A short message naming exactly one choice.
      if (trimmed.split(/\s+/).length <= 8) {
        const named = choices.filter((c) => new RegExp(`\\b${escapeRegex(c.toLowerCase())}\\b`).test(lower));
        if (named.length === 1) return { value: named[0]! };
      }
      return null;
    }
    case 'regex': {
      if (!slot.pattern) return null;
      const pattern = compileSlotPattern(slot.pattern);
      return pattern?.matches(trimmed) ? { value: trimmed } : null;
    }
  }
}

/**
 * A tenant's slot pattern, compiled for a linear-time engine (RE2 semantics, re2js): matching
 * costs time proportional to the message whatever the pattern, so `(a+)+b` cannot freeze the
 * process for everyone. RE2 has no backreferences or lookaround; such patterns are refused when
 * the slot is set, and one stored before never matches. Null when the pattern does not compile.
 */
function compileSlotPattern(pattern: string): RE2JS | null {
  try {
    return RE2JS.compile(pattern);
  } catch {
    return null;
  }
}

export function isValidSlotPattern(pattern: string): boolean {
  return compileSlotPattern(pattern) !== null;
}

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
