// What makes a sentence worth keeping in a summary: the key terms it names (people, places and
// other proper names, numbers, dates, identifiers), whether it commits someone to something, and
// whether it is small talk. Read from the text itself, so bullets of a previous summary (the LLM's
// too) are weighed the same way as new sentences.
import { extractIdentifiers, REDACTED } from './identifiers.js';
import type { IdentifierSurvival } from './types.js';

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const WEEKDAY = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';

/** Explicit dates: "8 May 2023", "May 8", "May 2023", "2023-05-08", "5/8/2023", weekdays, years. */
const DATE_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:${MONTHS})\b\.?(?:,? \d{4})?`, 'gi'),
  new RegExp(String.raw`\b(?:${MONTHS})\.? \d{1,2}(?:st|nd|rd|th)?\b(?:,? \d{4})?`, 'gi'),
  new RegExp(String.raw`\b(?:${MONTHS}) \d{4}\b`, 'gi'),
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g,
  new RegExp(String.raw`\b(?:${WEEKDAY})s?\b`, 'gi'),
  /\b(?:19|20)\d{2}\b/g,
];

/** Words that start sentences or carry no name: never key terms by their capital letter alone. */
const COMMON = new Set(
  `i i'm i've i'd i'll im ive a an the and but or so if then than that this these those there here it it's its
  he she they we you me my mine your yours our ours their them his her him us who what when where why how which
  is are was were be been being am do does did done have has had having can could will would shall should may
  might must not no yes yeah yep nope ok okay oh ah wow hey hi hello bye goodbye thanks thank please sorry well
  just also too very really so such much many more most some any all every each both either neither other another
  about above after again against at before below between by down during for from in into of off on out over
  through to under until up with without as let let's lets sure great good nice cool awesome amazing glad happy
  love lol haha hehe omg congrats congratulations absolutely definitely totally exactly right true agreed anyway
  now today tomorrow yesterday tonight still even maybe perhaps actually basically honestly hopefully
  mr mrs ms dr`.split(/\s+/),
);

/** Words of pleasantries and reactions: a sentence made only of these (and common words) is small talk. */
const PLEASANTRY = new Set(
  `thanks thank appreciate appreciated sounds sound great good nice cool awesome amazing wonderful fantastic
  incredible beautiful lovely awesome glad happy love loved lovely proud excited exciting fun funny cute sweet
  wow yay congrats congratulations cheers hugs bye goodbye care hope hoping wish wishing luck best same agree
  totally absolutely definitely exactly true right lol haha hehe omg yes yeah yep sure ok okay welcome meet
  talk chat later soon feel feeling feels felt mean means inspiring inspire inspired support supportive keep
  going doing done thing things stuff kind really much lot lots awesome rock rocks wonderful pleasure enjoy
  enjoyed enjoying see seeing hear heard hearing know knew find bliss own life journey`.split(/\s+/),
);

const COMMITMENT =
  /\b(?:i'll|i will|we'll|we will|i'm going to|we're going to|going to|gonna|plan(?:ning)? to|promise[ds]?|decided|agreed|deadline|due|committed|will (?:send|do|fix|call|check|update|deploy|ship|bring|book|pay|finish|start|meet|write|review))\b/i;

interface KeyTerms {
  names: string[];
  numbers: string[];
  dates: string[];
  ids: string[];
}

const words = (text: string) => text.toLowerCase().match(/[a-z][a-z']*/g) ?? [];

const DATE_WORD = new RegExp(
  String.raw`^(?:${MONTHS}|${WEEKDAY}|last|next|this|tues|thurs|fri|sat|sun|mon|wed)$`,
  'i',
);
const CAPITALIZED = /^[A-Z][A-Za-z0-9'’&.-]*[A-Za-z0-9]$/;

/**
 * Proper names: runs of capitalized words. A sentence's first word is capitalized anyway, so it
 * counts only when it is a name seen inside a sentence (`known`, e.g. from the rest of the
 * conversation).
 */
function properNames(text: string, known: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const sentence of text.split(/(?<=[.!?:;])\s+|\n+/)) {
    const tokens = sentence.split(/\s+/).filter((t) => t !== '');
    let run: string[] = [];
    let runStart = -1;
    const flush = () => {
      let parts = run;
      // A sentence's first word is capitalized anyway: it is a name only when known as one.
      if (runStart === 0 && !known.has(parts[0]!) && !known.has(parts.join(' '))) parts = parts.slice(1);
      while (parts.length > 0 && (COMMON.has(parts[0]!.toLowerCase()) || /['’]/.test(parts[0]!)))
        parts = parts.slice(1);
      while (parts.length > 0 && (COMMON.has(parts.at(-1)!.toLowerCase()) || DATE_WORD.test(parts.at(-1)!)))
        parts = parts.slice(0, -1);
      if (parts.length > 0 && DATE_WORD.test(parts[0]!)) parts = [];
      const name = parts.join(' ');
      if (name.length >= 2 && !out.includes(name)) out.push(name);
      run = [];
      runStart = -1;
    };
    tokens.forEach((token, i) => {
      const word = token
        .replace(/^["'([“‘]+/, '')
        .replace(/['’]s\b.*$/, '')
        .replace(/[^A-Za-z0-9]+$/, '');
      // Words with digits are identifiers (NET-4410), not names.
      if ((CAPITALIZED.test(word) && !/\d/.test(word)) || /^[A-Z]{2,}$/.test(word)) {
        if (run.length === 0) runStart = i;
        run.push(word);
        // Punctuation after a word ends the run ("Paris, London").
        if (/[,;:!?.)"”]$/.test(token) || /['’]s\b/.test(token)) flush();
      } else if (run.length > 0) flush();
    });
    if (run.length > 0) flush();
  }
  return out;
}

/** Names said inside sentences (not only at their start) across texts: `known` for properNames. */
export function namesInside(texts: readonly string[]): Set<string> {
  const known = new Set<string>();
  for (const text of texts) for (const name of properNames(text)) known.add(name);
  return known;
}

/** The key terms of a text, each deduplicated in order of appearance. */
function keyTerms(text: string, known?: ReadonlySet<string>): KeyTerms {
  const dates: string[] = [];
  for (const pattern of DATE_PATTERNS)
    for (const m of text.matchAll(pattern)) if (!dates.some((d) => d.includes(m[0]))) dates.push(m[0]);
  const ids = extractIdentifiers(text).filter((id) => !/^\d[\d,.]*$/.test(id) && !dates.includes(id));
  const numbers = [...new Set(text.match(/(?<![\w.-])\d[\d,]*(?:\.\d+)?(?![\w-])/g) ?? [])].filter(
    (n) => !dates.some((d) => d.includes(n)),
  );
  return { names: properNames(text, known), numbers, dates, ids };
}

const allTerms = (terms: KeyTerms) => [...terms.names, ...terms.numbers, ...terms.dates, ...terms.ids];

/** What weighing a sentence needs from its conversation: who speaks, which names it knows. */
export interface Lexicon {
  /** The participants' names, lower-cased: they are listed once, not key terms of each line. */
  participants: ReadonlySet<string>;
  /** Names seen inside sentences (properNames' `known`). */
  known: ReadonlySet<string>;
}

const emptyLexicon: Lexicon = { participants: new Set(), known: new Set() };

/** A participant's name or its short form ("Mel" for Melanie). */
const isParticipant = (term: string, lex: Lexicon) => {
  const lower = term.toLowerCase();
  return (
    lex.participants.has(lower) ||
    (lower.length >= 3 && [...lex.participants].some((p) => p.startsWith(lower)))
  );
};

/** The key terms of a text that are not a participant's name. */
export const termsOf = (text: string, lex: Lexicon) =>
  allTerms(keyTerms(text, lex.known)).filter((t) => !isParticipant(t, lex));

/** Content words: not common, not pleasantries, not the participants' names. */
export function contentWords(text: string, participants: ReadonlySet<string> = new Set()): string[] {
  return words(text).filter(
    (w) => w.length > 2 && !COMMON.has(w) && !PLEASANTRY.has(w) && !participants.has(w),
  );
}

export const isCommitment = (text: string) => COMMITMENT.test(text);

/**
 * How much a sentence is worth keeping: key terms weigh most (a participant's own name does not
 * count: it is in the Participants section), then commitments, then substance. 0 is small talk.
 */
export function importance(text: string, lex: Lexicon = emptyLexicon): number {
  const key = termsOf(text, lex).length;
  const content = contentWords(text, lex.participants).length;
  if (key === 0 && content <= 2) return 0;
  return 3 * key + (isCommitment(text) ? 3 : 0) + Math.min(content, 8) * 0.5;
}

/**
 * How many key terms (names, numbers, dates, identifiers) of the texts the summary still holds:
 * over one compaction's slice, or over everything the lane's summary ever covered.
 */
export function keyTermSurvival(sourceTexts: readonly string[], summary: string): IdentifierSurvival {
  const clean = sourceTexts.map((text) => text.replace(REDACTED, ' '));
  const known = namesInside(clean);
  const terms = [...new Set(clean.flatMap((text) => allTerms(keyTerms(text, known))))];
  const lower = summary.toLowerCase();
  const missing = terms.filter((term) => !lower.includes(term.toLowerCase()));
  return { total: terms.length, kept: terms.length - missing.length, missing: missing.slice(0, 20) };
}
