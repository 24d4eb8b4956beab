// A lane summary as a document: its sections (parsed from any summary in this format, the LLM's
// too, and from the older five-section format), rendered back, and fitted to a token target by
// importance — small talk first, then sentences without key terms, then key-term bullets shortened
// to their terms in context, then folded into the names-numbers-dates index. Recency alone never
// evicts a name, number, date or id (docs/compaction.md, "Summaries").
import type { TokenEstimator } from '../../../shared/tokens.js';
import { importance, isCommitment, namesInside, termsOf, type Lexicon } from './salience.js';
import { SUMMARY_SECTIONS, type SummarySection } from './types.js';

export const [PARTICIPANTS, REQUESTS, DECISIONS, FACTS, OUTCOMES, CURRENT, INDEX] = SUMMARY_SECTIONS;
const EMPTY = '- (none)';

/** Headings of the older five-section format, read into today's sections. */
const ALIASES: Record<string, SummarySection> = {
  'current goals / open questions': REQUESTS,
  decisions: DECISIONS,
  'important facts': FACTS,
  'recent outcomes': OUTCOMES,
  'pending actions': CURRENT,
};

export type SummaryDoc = Map<SummarySection, string[]>;

const emptyDoc = (): SummaryDoc => new Map(SUMMARY_SECTIONS.map((s) => [s, []]));

/** The sections of a summary (bullets as lines starting with "- "); unknown headings → Facts. */
export function parseSummary(summary: string | null): SummaryDoc {
  const doc = emptyDoc();
  if (!summary) return doc;
  let current: SummarySection = FACTS;
  for (const line of summary.split('\n')) {
    const heading = /^#{1,3}\s+(.+?)\s*$/.exec(line);
    if (heading) {
      const name = heading[1]!.toLowerCase();
      current = SUMMARY_SECTIONS.find((s) => s.toLowerCase() === name) ?? ALIASES[name] ?? FACTS;
      continue;
    }
    const text = line.trim();
    if (text === '' || text === EMPTY) continue;
    const bullet = text.startsWith('- ') ? text : `- ${text}`;
    const bullets = doc.get(current)!;
    if (!bullets.includes(bullet)) bullets.push(bullet);
  }
  return doc;
}

/** The sections in order; an empty one is left out (a small lane's summary stays small). */
export function renderSummary(doc: SummaryDoc): string {
  return SUMMARY_SECTIONS.filter((s) => doc.get(s)!.length > 0)
    .map((s) => `## ${s}\n${doc.get(s)!.join('\n')}`)
    .join('\n\n');
}

/** Names listed under Participants ("- Caroline (user)"), lower-cased. */
export function participantNames(doc: SummaryDoc): Set<string> {
  return new Set(
    doc
      .get(PARTICIPANTS)!
      .map((b) =>
        b
          .replace(/^- /, '')
          .replace(/\s*\(.*$/, '')
          .trim()
          .toLowerCase(),
      )
      .filter((n) => n !== ''),
  );
}

const LABEL = /^- (\[[^\]]*\])\s*/;
const bodyOf = (bullet: string) => bullet.replace(LABEL, '').replace(/^- /, '');
const labelOf = (bullet: string) => LABEL.exec(bullet)?.[1] ?? '';

/** A bullet shortened to its key terms, each with up to three words either side. */
function skeleton(bullet: string, lex: Lexicon): string {
  const body = bodyOf(bullet);
  const note = /\s\{[^{}]*\}$/.exec(body)?.[0] ?? '';
  const text = note ? body.slice(0, -note.length) : body;
  const tokens = text.split(/\s+/);
  // Key terms, and the relative dates the note resolves ("yesterday" stays beside its day).
  const phrases = [...note.matchAll(/(?:\{|; )([^=;{}]+?) = /g)].map((m) => m[1]!.toLowerCase());
  const terms = [...termsOf(text, lex), ...phrases.flatMap((p) => p.split(/\s+/))];
  const keep = new Set<number>();
  tokens.forEach((token, i) => {
    const hit =
      terms.some((t) => token.includes(t.split(/\s+/)[0]!) || token.toLowerCase() === t) ||
      isCommitment(token);
    if (hit) for (let j = Math.max(0, i - 3); j <= Math.min(tokens.length - 1, i + 3); j += 1) keep.add(j);
  });
  if (keep.size === 0) return bullet;
  const parts: string[] = [];
  let last = -2;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (i !== last + 1 && parts.length > 0) parts.push('…');
    parts.push(tokens[i]!);
    last = i;
  }
  if (last < tokens.length - 1) parts.push('…');
  const label = labelOf(bullet);
  return `- ${label ? `${label} ` : ''}${parts.join(' ')}${note}`;
}

/** The day of a bullet's label (`[#42 Caroline 2023-05-08]` → 2023-05-08), or null. */
const dayOf = (bullet: string) => /\b(\d{4}-\d{2}-\d{2})\]/.exec(labelOf(bullet))?.[1] ?? null;

/**
 * Folds a bullet's key terms that no other line holds into the index: one line per day
 * (`- 2023-05-08: Sweden, 4 years, TCK-12`), appended to that day's last line when it is the
 * index's last. Returns the characters added.
 */
function foldIntoIndex(
  index: string[],
  bullet: string,
  lex: Lexicon,
  elsewhere: (term: string) => boolean,
): number {
  const terms = termsOf(bodyOf(bullet), lex).filter((t) => !elsewhere(t));
  if (terms.length === 0) return 0;
  const prefix = `- ${dayOf(bullet) ?? 'undated'}: `;
  const last = index.at(-1);
  if (last?.startsWith(prefix)) {
    index[index.length - 1] = `${last}, ${terms.join(', ')}`;
    return terms.join(', ').length + 2;
  }
  const line = `${prefix}${terms.join(', ')}`;
  index.push(line);
  return line.length + 1;
}

/** Sections whose bullets may be shortened or folded (Participants and the index stay). */
const EVICTABLE: readonly SummarySection[] = [REQUESTS, DECISIONS, FACTS, OUTCOMES, CURRENT];

interface Candidate {
  section: SummarySection;
  index: number;
  score: number;
  hasKey: boolean;
  /** Position in reading order: earlier sections' and older bullets go first among equals. */
  order: number;
}

/**
 * Fits the document to `targetTokens` (measured by `estimator`) by importance, oldest first among
 * equals: (1) small talk and sentences without key terms or commitments are dropped, (2) bullets
 * with key terms are shortened to their terms in context, (3) shortened bullets fold into the
 * index (their terms no other line holds), (4) only then, the oldest index lines go. Mutates and
 * returns `doc`.
 */
export function fitSummary(doc: SummaryDoc, targetTokens: number, estimator: TokenEstimator): SummaryDoc {
  const tokens = () => estimator.text(renderSummary(doc));
  if (tokens() <= targetTokens) return doc;
  const lex: Lexicon = {
    participants: participantNames(doc),
    known: namesInside([...doc.values()].flat().map(bodyOf)),
  };
  // Characters per token of this summary: sizes are tracked in characters, checked in tokens.
  const text = renderSummary(doc);
  let budget = Math.floor(targetTokens * (text.length / Math.max(1, estimator.text(text))));
  for (let attempt = 0; attempt < 8 && tokens() > targetTokens; attempt += 1) {
    fitChars(doc, budget, lex);
    budget = Math.floor(budget * 0.95);
  }
  return doc;
}

/** `fitSummary` over a summary's text. */
export const fitSummaryText = (text: string, targetTokens: number, estimator: TokenEstimator): string =>
  renderSummary(fitSummary(parseSummary(text), targetTokens, estimator));

function fitChars(doc: SummaryDoc, budget: number, lex: Lexicon): void {
  let size = renderSummary(doc).length;
  if (size <= budget) return;
  const candidates: Candidate[] = [];
  let order = 0;
  for (const section of EVICTABLE) {
    doc.get(section)!.forEach((bullet, index) => {
      const body = bodyOf(bullet);
      candidates.push({
        section,
        index,
        score: importance(body, lex),
        hasKey: termsOf(body, lex).length > 0 || isCommitment(body),
        order: seqOf(bullet) ?? order,
      });
      order += 1;
    });
  }
  const removed = new Set<string>();
  const key = (c: Candidate) => `${c.section}\u0000${c.index}`;
  const byAge = (a: Candidate, b: Candidate) => a.order - b.order || a.index - b.index;
  const replace = (c: Candidate, next: string | null) => {
    const bullets = doc.get(c.section)!;
    const before = bullets[c.index]!;
    size -= before.length + 1;
    if (next === null) removed.add(key(c));
    else {
      bullets[c.index] = next;
      size += next.length + 1;
    }
  };
  // (1) Neither a key term nor a commitment: lowest importance first, then oldest.
  const plain = candidates.filter((c) => !c.hasKey).sort((a, b) => a.score - b.score || byAge(a, b));
  for (const c of plain) {
    if (size <= budget) break;
    replace(c, null);
  }
  // (2) Shorten key-term bullets to their terms in context, oldest first.
  const keyed = candidates.filter((c) => c.hasKey).sort(byAge);
  for (const c of keyed) {
    if (size <= budget) break;
    const bullet = doc.get(c.section)![c.index]!;
    const short = skeleton(bullet, lex);
    if (short.length < bullet.length) replace(c, short);
  }
  // (3) Fold them into the index, oldest first: only terms no remaining line holds are listed.
  const index = doc.get(INDEX)!;
  // How many remaining lines hold each term (lower-cased), and the terms the index lists.
  const holders = new Map<string, number>();
  const termsOfBullet = (bullet: string) => [
    ...new Set(termsOf(bodyOf(bullet), lex).map((t) => t.toLowerCase())),
  ];
  for (const c of candidates)
    for (const t of termsOfBullet(doc.get(c.section)![c.index]!)) holders.set(t, (holders.get(t) ?? 0) + 1);
  const listed = new Set(
    index.flatMap((l) => l.replace(/^- [^:]*: /, '').split(', ')).map((t) => t.toLowerCase()),
  );
  for (const c of keyed) {
    if (size <= budget) break;
    const bullet = doc.get(c.section)![c.index]!;
    replace(c, null);
    for (const t of termsOfBullet(bullet)) holders.set(t, holders.get(t)! - 1);
    size += foldIntoIndex(index, bullet, lex, (term) => {
      const lower = term.toLowerCase();
      const held = (holders.get(lower) ?? 0) > 0 || listed.has(lower);
      if (!held) listed.add(lower);
      return held;
    });
  }
  for (const section of EVICTABLE) {
    const bullets = doc.get(section)!;
    doc.set(
      section,
      bullets.filter((_, i) => !removed.has(`${section}\u0000${i}`)),
    );
  }
  // (4) Last resort: the oldest terms of the index (a line's head cut at a term boundary).
  while (size > budget && index.length > 0) {
    const line = index[0]!;
    const head = line.indexOf(': ') + 2;
    const excess = size - budget;
    const comma = line.indexOf(', ', head + excess);
    if (head < 2 || comma < 0) {
      size -= line.length + 1;
      index.shift();
    } else {
      index[0] = `${line.slice(0, head)}${line.slice(comma + 2)}`;
      size -= line.length - index[0].length;
    }
  }
}

/** The seq of a bullet's label (`[#42 …]`), or null. */
function seqOf(bullet: string): number | null {
  const m = /^- \[#(\d+)\b/.exec(bullet);
  return m ? Number(m[1]) : null;
}
