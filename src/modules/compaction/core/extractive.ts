// The deterministic extractive summarizer: the sentences of the summarized entries, kept as said
// (so identifiers survive verbatim), labelled with who said them and the day, relative dates
// followed by the day they mean, filed into sections by what they carry, merged into the previous
// summary, then fitted to the token target by importance (summary-doc.ts). Tool results become
// one outcome line each. Used with no API key, when the LLM fails, and past a tenant's summarizer
// cap (docs/compaction.md).
import { redactSecrets } from '../../memory/core/redaction.js';
import type { TokenEstimator } from '../../../shared/tokens.js';
import { entrySaid, entryTools, roleNamesFor, speakerOf } from './chunking.js';
import { dateNote, isoDay } from './dates.js';
import { extractIdentifiers } from './identifiers.js';
import { contentWords, importance, isCommitment, namesInside, termsOf, type Lexicon } from './salience.js';
import {
  CURRENT,
  DECISIONS,
  FACTS,
  fitSummary,
  INDEX,
  OUTCOMES,
  parseSummary,
  participantNames,
  PARTICIPANTS,
  renderSummary,
  REQUESTS,
  type SummaryDoc,
} from './summary-doc.js';
import type { CompactionSettings, LaneEntry, SummarizeRequest, SummarySection } from './types.js';

export { parseSummary, renderSummary };

/** The longest bullet kept whole; longer sentences keep their head and list their identifiers. */
const BULLET_CHARS = 280;
/** What the current work is goes stale: that section keeps its latest bullets only. */
const CURRENT_KEEP = 8;
/** An entry is kept whole when its kept sentences are at least this share of it. */
const WHOLE_ENTRY_KEPT_SHARE = 0.6;
/** Identifiers a tool result's outcome line lists at most. */
const OUTCOME_IDS = 8;

/** Which section a whole entry goes to when its sentences fall into several: the most durable. */
const SECTION_PRIORITY: readonly SummarySection[] = [DECISIONS, OUTCOMES, REQUESTS, FACTS, CURRENT];

const DECISION = /\b(?:decided|decision|agreed|let's|let us|going with|go with|chose|settled on|approved)\b/i;
const OUTCOME =
  /\b(?:done|fixed|deployed|merged|failed|fails|succeeded|resolved|shipped|released|passed|completed|works now|broke|rolled back|finished)\b/i;
const NEXT = /\b(?:todo|to-do|next step|pending|remind|follow[- ]up|not yet|working on|in progress)\b/i;
const REQUEST =
  /\b(?:need to|needs to|want to|trying to|how (?:do|can|should)|should we|can we|can you|could you|would you|please|help me|looking for)\b/i;

/** Sentences of a text: split after . ! ? and at line breaks, trimmed, empty ones dropped. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'[(])|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

/**
 * The section a sentence belongs in by what it carries (null: small talk, not kept). A cue word
 * alone files nothing: "Let's all find our own bliss" names nothing and commits to nothing.
 */
function classify(sentence: string, lex: Lexicon): SummarySection | null {
  if (importance(sentence, lex) === 0) return null;
  const substantive =
    termsOf(sentence, lex).length > 0 || contentWords(sentence, lex.participants).length >= 3;
  if (!substantive) return null;
  if (sentence.endsWith('?') || REQUEST.test(sentence)) return REQUESTS;
  if (DECISION.test(sentence) || isCommitment(sentence)) return DECISIONS;
  if (OUTCOME.test(sentence)) return OUTCOMES;
  if (NEXT.test(sentence)) return CURRENT;
  return FACTS;
}

/** A bullet for a sentence: whole when short, else its head plus every identifier it holds. */
function bullet(label: string, sentence: string, note: string): string {
  if (sentence.length <= BULLET_CHARS) return `- ${label} ${sentence}${note}`;
  let head = sentence.slice(0, BULLET_CHARS);
  const space = head.lastIndexOf(' ');
  if (space > BULLET_CHARS / 2) head = head.slice(0, space);
  const lost = extractIdentifiers(sentence).filter((id) => !head.includes(id));
  return `- ${label} ${head} …${lost.length > 0 ? ` (${lost.join(', ')})` : ''}${note}`;
}

/** A tool result as one outcome: which call, ok or error, its size, its first line, its ids. */
function toolOutcome(
  label: string,
  result: { isError: boolean; text: string },
  call: { name: string; input: string } | undefined,
): string {
  const lines = result.text.split('\n').filter((l) => l.trim() !== '');
  const first = (lines[0] ?? '').replace(/\s+/g, ' ').trim();
  const head = first.length > 160 ? `${first.slice(0, 160)}…` : first;
  const ids = extractIdentifiers(result.text).filter((id) => !head.includes(id));
  const listed = ids.slice(0, OUTCOME_IDS);
  const more = ids.length > listed.length ? ` (+${ids.length - listed.length} more)` : '';
  const what = call
    ? `${call.name} ${call.input.length > 80 ? `${call.input.slice(0, 80)}…` : call.input}`
    : 'a tool';
  const size = lines.length > 1 ? `, ${lines.length} lines` : '';
  return `- ${label} ${what} → ${result.isError ? 'error' : 'ok'}${size}: ${head}${listed.length > 0 ? ` [ids: ${listed.join(', ')}${more}]` : ''}`;
}

/** The bullets one entry adds, each with its section. */
function entryBullets(
  entry: LaneEntry,
  label: string,
  lex: Lexicon,
  calls: ReadonlyMap<string, { name: string; input: string }>,
): { section: SummarySection; text: string; key: string }[] {
  const out: { section: SummarySection; text: string; key: string }[] = [];
  const tools = entryTools(entry);
  for (const result of tools.results) {
    const text = toolOutcome(label, result, calls.get(result.toolUseId));
    out.push({ section: OUTCOMES, text, key: text.slice(label.length + 3) });
  }
  for (const call of tools.calls) {
    const input = call.input.length > 120 ? `${call.input.slice(0, 120)}…` : call.input;
    out.push({ section: CURRENT, text: `- ${label} called ${call.name} ${input}`, key: `${call.id}` });
  }
  const said = sentences(entrySaid(entry));
  const kept = said
    .map((sentence) => ({ sentence, section: classify(sentence, lex) }))
    .filter((s): s is { sentence: string; section: SummarySection } => s.section !== null);
  // A short entry whose sentences are mostly kept anyway is kept whole, under its most durable
  // section: splitting it would cut the link between its sentences ("we went camping. It was in
  // May."). Filler around one point still leaves only the point.
  const whole = said.join(' ');
  const keptChars = kept.reduce((sum, k) => sum + k.sentence.length, 0);
  const points =
    kept.length > 0 && whole.length <= BULLET_CHARS && keptChars >= WHOLE_ENTRY_KEPT_SHARE * whole.length
      ? [{ sentence: whole, section: SECTION_PRIORITY.find((s) => kept.some((k) => k.section === s))! }]
      : kept;
  for (const { sentence, section } of points) {
    const key = sentence.length <= BULLET_CHARS ? sentence : bullet('', sentence, '').slice(3);
    out.push({ section, text: bullet(label, sentence, dateNote(sentence, entry.at)), key });
  }
  return out;
}

/**
 * Folds the request's entries into its previous summary and fits the result to the request's
 * token target (the stored cap when it has none).
 */
export function summarizeExtractive(
  request: SummarizeRequest,
  settings: CompactionSettings,
  estimator: TokenEstimator,
): string {
  const doc: SummaryDoc = parseSummary(request.previousSummary);
  const roleNames = roleNamesFor(request);
  addParticipants(doc, request.entries, roleNames);
  const lex: Lexicon = {
    participants: participantNames(doc),
    known: namesInside([...request.entries.map(entrySaid), request.previousSummary ?? '']),
  };
  const seen = new Set(
    [...doc.values()].flat().map((b) => b.replace(/^- \[[^\]]*\]\s*/, '').replace(/\s\{[^}]*\}$/, '')),
  );
  const calls = new Map(request.entries.flatMap((e) => entryTools(e).calls.map((c) => [c.id, c] as const)));
  for (const entry of request.entries) {
    // Who said it and the day (UTC): a summary without them cannot answer "who" or "when".
    const label = `[#${entry.seq} ${speakerOf(entry, roleNames)} ${isoDay(entry.at)}]`;
    for (const { section, text, key } of entryBullets(entry, label, lex, calls)) {
      if (seen.has(key)) continue;
      seen.add(key);
      doc.get(section)!.push(text);
    }
  }
  const current = doc.get(CURRENT)!;
  current.splice(0, Math.max(0, current.length - CURRENT_KEEP));
  return renderSummary(fitSummary(doc, summaryTargetTokens(request, settings), estimator));
}

/**
 * An LLM's summary made whole: the entries' speakers added to Participants, every name, number,
 * date and id of the entries the summary does not hold added to the index under its day, then
 * fitted to the request's target like the extractive summary.
 */
export function completeSummary(
  summary: string,
  request: SummarizeRequest,
  settings: CompactionSettings,
  estimator: TokenEstimator,
): string {
  const doc = parseSummary(summary);
  addParticipants(doc, request.entries, roleNamesFor(request));
  const lex: Lexicon = {
    participants: participantNames(doc),
    known: namesInside(request.entries.map(entrySaid)),
  };
  const holds = renderSummary(doc).toLowerCase();
  const index = doc.get(INDEX)!;
  const added = new Set<string>();
  for (const entry of request.entries) {
    // Tool results count by the identifiers their outcome line would list, not line by line.
    const results = entryTools(entry).results.map((r) => extractIdentifiers(r.text).slice(0, OUTCOME_IDS));
    const missing = [...termsOf(entrySaid(entry), lex), ...results.flat()].filter((t) => {
      const lower = t.toLowerCase();
      if (holds.includes(lower) || added.has(lower)) return false;
      added.add(lower);
      return true;
    });
    if (missing.length === 0) continue;
    const prefix = `- ${isoDay(entry.at)}: `;
    const last = index.at(-1);
    if (last?.startsWith(prefix)) index[index.length - 1] = `${last}, ${missing.join(', ')}`;
    else index.push(`${prefix}${missing.join(', ')}`);
  }
  return renderSummary(fitSummary(doc, summaryTargetTokens(request, settings), estimator));
}

/** Adds every speaker the entries name to Participants (`- Caroline (user)`), once. */
function addParticipants(
  doc: SummaryDoc,
  entries: readonly LaneEntry[],
  roleNames: ReadonlyMap<string, string>,
): void {
  const listed = doc.get(PARTICIPANTS)!;
  for (const entry of entries) {
    const role = entry.role ?? entry.kind;
    const speaker = speakerOf(entry, roleNames);
    if (speaker === role) continue;
    const line = `- ${speaker} (${role})`;
    if (!listed.includes(line)) listed.push(line);
  }
}

/** The request's target, or the stored cap in tokens (about four characters per token). */
export function summaryTargetTokens(
  request: Pick<SummarizeRequest, 'targetTokens'>,
  settings: Pick<CompactionSettings, 'summaryMaxChars'>,
): number {
  const cap = Math.floor(settings.summaryMaxChars / 4);
  return Math.min(request.targetTokens ?? cap, cap);
}

/** Redacts secrets and caps a summary at a line boundary (both summarizers end here). */
export function finalizeSummary(text: string, settings: Pick<CompactionSettings, 'summaryMaxChars'>): string {
  const redacted = redactSecrets(text.trim()).text;
  if (redacted.length <= settings.summaryMaxChars) return redacted;
  const cut = redacted.slice(0, settings.summaryMaxChars);
  const line = cut.lastIndexOf('\n');
  return line > settings.summaryMaxChars / 2 ? cut.slice(0, line) : cut;
}
