// The deterministic extractive summarizer: the sentences of the summarized entries sorted into
// the five sections by their cues, each kept as said (so identifiers survive verbatim), merged
// into the previous summary rather than restarting it, redacted and capped. Used with no API key,
// when the LLM fails, and past a tenant's summarizer cap (docs/compaction.md).
import { redactSecrets } from '../../memory/core/redaction.js';
import { entryText } from './chunking.js';
import { extractIdentifiers } from './identifiers.js';
import { SUMMARY_SECTIONS, type CompactionSettings, type SummarizeRequest } from './types.js';

type Section = (typeof SUMMARY_SECTIONS)[number];
const [GOALS, DECISIONS, FACTS, OUTCOMES, PENDING] = SUMMARY_SECTIONS;

/** The longest bullet kept whole; longer sentences keep their head and list their identifiers. */
const BULLET_CHARS = 280;
const EMPTY = '- (none)';
/**
 * Open questions and pending actions go stale: these sections keep their latest bullets only, so
 * the summary's room goes to decisions, facts and outcomes (a long chat would otherwise fill it
 * with every question ever asked).
 */
const RECENT_ONLY: ReadonlyMap<Section, number> = new Map([
  [GOALS, 12],
  [PENDING, 12],
]);

/** An entry is kept whole when its kept sentences are at least this share of it. */
const WHOLE_ENTRY_KEPT_SHARE = 0.6;

/** Which section a whole entry goes to when its sentences fall into several: the most durable. */
const SECTION_PRIORITY: readonly Section[] = [DECISIONS, OUTCOMES, PENDING, FACTS, GOALS];

const CUES: [Section, RegExp][] = [
  [
    DECISIONS,
    /\b(decided|decision|we'll|we will go|agreed|let's|going with|go with|chose|settled on|approved|instead of)\b/i,
  ],
  [
    PENDING,
    /\b(todo|to-do|next step|pending|remind|follow[- ]up|will (?:do|send|check|update|fix|deploy|look)|i'll|tomorrow|later today|by (?:mon|tue|wed|thu|fri|sat|sun)\w*|not yet)\b/i,
  ],
  [
    OUTCOMES,
    /\b(done|fixed|deployed|merged|failed|fails|error|succeeded|resolved|shipped|released|passed|completed|works now|broke|returned|rolled back)\b/i,
  ],
  [
    GOALS,
    /\?|\b(need to|needs to|want to|goal|trying to|how (?:do|can|should)|should we|can we|could you|please|help me|looking for)\b/i,
  ],
];

/** Sentences of a text: split after . ! ? and at line breaks, trimmed, empty ones dropped. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'[(])|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

function classify(sentence: string, isToolResult: boolean): Section | null {
  if (isToolResult) return OUTCOMES;
  if (sentence.endsWith('?')) return GOALS;
  for (const [section, cue] of CUES) if (cue.test(sentence)) return section;
  if (extractIdentifiers(sentence).length > 0) return FACTS;
  // Long enough to carry content, but no cue and nothing specific: a fact only when substantial.
  return sentence.split(' ').length >= 8 ? FACTS : null;
}

/** A bullet for a sentence: whole when short, else its head plus every identifier it holds. */
function bullet(label: string, sentence: string): string {
  if (sentence.length <= BULLET_CHARS) return `- ${label} ${sentence}`;
  let head = sentence.slice(0, BULLET_CHARS);
  const space = head.lastIndexOf(' ');
  if (space > BULLET_CHARS / 2) head = head.slice(0, space);
  const lost = extractIdentifiers(sentence).filter((id) => !head.includes(id));
  return `- ${label} ${head} …${lost.length > 0 ? ` (${lost.join(', ')})` : ''}`;
}

/** The sections of a summary in this format (unknown headings' bullets go to important facts). */
export function parseSummary(summary: string | null): Map<Section, string[]> {
  const sections = new Map<Section, string[]>(SUMMARY_SECTIONS.map((s) => [s, []]));
  if (!summary) return sections;
  let current: Section = FACTS;
  for (const line of summary.split('\n')) {
    const heading = /^#{1,3}\s+(.+?)\s*$/.exec(line);
    if (heading) {
      current = SUMMARY_SECTIONS.find((s) => s.toLowerCase() === heading[1]!.toLowerCase()) ?? FACTS;
      continue;
    }
    const text = line.trim();
    if (text === '' || text === EMPTY) continue;
    sections.get(current)!.push(text.startsWith('- ') ? text : `- ${text}`);
  }
  return sections;
}

export function renderSummary(sections: Map<Section, string[]>): string {
  return SUMMARY_SECTIONS.map((s) => {
    const bullets = sections.get(s)!;
    return `## ${s}\n${bullets.length > 0 ? bullets.join('\n') : EMPTY}`;
  }).join('\n\n');
}

/**
 * Folds the request's entries into its previous summary. Over the cap, the oldest bullets of the
 * largest section go first, so every section keeps its most recent points.
 */
export function summarizeExtractive(request: SummarizeRequest, settings: CompactionSettings): string {
  const sections = parseSummary(request.previousSummary);
  const seen = new Set([...sections.values()].flat().map((b) => b.replace(/^- \[[^\]]*\]\s*/, '')));
  for (const entry of request.entries) {
    const body = entryText(entry);
    const isToolResult = body.startsWith('[tool result');
    // The day (UTC) the entry was said: a summary without it cannot answer "when".
    const label = `[#${entry.seq} ${entry.role ?? entry.kind} ${new Date(entry.at).toISOString().slice(0, 10)}]`;
    const said = sentences(body);
    const kept = said
      .map((sentence) => ({ sentence, section: classify(sentence, isToolResult) }))
      .filter((s): s is { sentence: string; section: Section } => s.section !== null);
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
      const key = sentence.length <= BULLET_CHARS ? sentence : bullet('', sentence).slice(3);
      if (seen.has(key)) continue;
      seen.add(key);
      sections.get(section)!.push(bullet(label, sentence));
    }
  }
  for (const [section, keep] of RECENT_ONLY) {
    const bullets = sections.get(section)!;
    bullets.splice(0, Math.max(0, bullets.length - keep));
  }
  // Over the cap: drop the oldest bullets of the largest section (sizes kept incrementally).
  let size = renderSummary(sections).length;
  const order = [...sections.values()];
  const heads = order.map(() => 0);
  const cap = Math.min(settings.extractiveMaxChars, settings.summaryMaxChars);
  while (size > cap) {
    let largest = -1;
    order.forEach((bullets, i) => {
      if (largest < 0 || bullets.length - heads[i]! > order[largest]!.length - heads[largest]!) largest = i;
    });
    const bullets = order[largest]!;
    if (bullets.length - heads[largest]! === 0) break;
    size -= bullets[heads[largest]!]!.length + 1;
    heads[largest]! += 1;
  }
  order.forEach((bullets, i) => bullets.splice(0, heads[i]));
  return renderSummary(sections);
}

/** Redacts secrets and caps a summary at a line boundary (both summarizers end here). */
export function finalizeSummary(text: string, settings: Pick<CompactionSettings, 'summaryMaxChars'>): string {
  const redacted = redactSecrets(text.trim()).text;
  if (redacted.length <= settings.summaryMaxChars) return redacted;
  const cut = redacted.slice(0, settings.summaryMaxChars);
  const line = cut.lastIndexOf('\n');
  return line > settings.summaryMaxChars / 2 ? cut.slice(0, line) : cut;
}
