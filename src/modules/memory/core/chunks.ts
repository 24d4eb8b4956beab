// Transcript chunks (docs/design.md §4): searchable turn pairs of one lane, at most ~2,000 characters, each
// turn on its own line with the speaker and time. Pure: the chunks service loads a lane's recent
// entries and stores what this returns. Chunks are search documents: secrets are redacted in each
// turn's text before it is cut or joined (the transcript keeps what was said, as the audit record).
import { redactSecrets } from './redaction.js';

export const MAX_CHUNK_CHARS = 2_000;
/** A tool result contributes at most this much text to a chunk. */
const MAX_TOOL_RESULT_CHARS = 500;

export interface ChunkEntry {
  seq: number;
  laneKey: string;
  role: 'user' | 'assistant' | null;
  /** Searchable text of the turn (see entryText); empty entries are left out of chunks. */
  text: string;
  /** Display name of the author, if known. */
  author?: string | null;
  at: Date;
}

export interface TranscriptChunk {
  laneKey: string;
  firstSeq: number;
  lastSeq: number;
  text: string;
  startTs: Date;
  endTs: Date;
}

/**
 * Rendered context blocks (`<tag … trust="untrusted">…</tag>`, `<context_notes>`) are material
 * contextd added to a turn, not what was said: indexing them would feed retrieval back into itself.
 */
function stripRenderedContext(text: string): string {
  return text
    .replace(/<([a-z_][a-z0-9_]*)\b[^>\n]*trust="untrusted"[^>\n]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<context_notes>[\s\S]*?<\/context_notes>/g, '')
    .trim();
}

const redacted = (text: string) => redactSecrets(text).text;

function blockText(block: unknown): string {
  if (typeof block === 'string') return redacted(block);
  if (!block || typeof block !== 'object') return '';
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? redacted(b.text) : '';
    case 'tool_use':
      return typeof b.name === 'string' ? `[tool ${b.name}]` : '';
    case 'tool_result': {
      const inner = Array.isArray(b.content) ? b.content.map(blockText).join(' ') : blockText(b.content);
      // Redacted (by the blocks above) before the cut: a cut secret is no longer recognisable.
      return inner ? `[tool result] ${truncate(inner, MAX_TOOL_RESULT_CHARS)}` : '';
    }
    case 'image':
      return '[image]';
    case 'document':
      return typeof b.title === 'string' ? `[document ${b.title}]` : '[document]';
    default:
      // thinking and unknown blocks are never searchable.
      return '';
  }
}

/** The searchable text of a stored turn's content (a string or content blocks), secrets redacted. */
export function entryText(content: unknown): string {
  const raw = Array.isArray(content) ? content.map(blockText).filter(Boolean).join('\n') : blockText(content);
  return stripRenderedContext(raw).replace(/\s+/g, ' ').trim();
}

/** Head and tail of an over-long text with an ellipsis between, at most `max` characters. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.7);
  const tail = max - 1 - head;
  return `${text.slice(0, head)}…${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

function formatTime(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** An edited channel message's text as a chunk holds it: secrets redacted. */
export const editedText = redacted;

/** One turn as a chunk line: `[2026-01-05 14:02] User (Alice): text`, cut to fit `max`. */
export function formatTurn(entry: ChunkEntry, max = MAX_CHUNK_CHARS): string {
  const who = entry.role === 'assistant' ? 'Assistant' : entry.role === 'user' ? 'User' : 'Note';
  const label = `[${formatTime(entry.at)}] ${who}${entry.author ? ` (${entry.author})` : ''}: `;
  return label + truncate(entry.text, Math.max(16, max - label.length));
}

/**
 * Chunks of one lane's entries (in seq order): a chunk starts at a user turn (or at whatever comes
 * first), takes the replies that follow, and closes at the next user turn after a reply or when the
 * next turn would pass `maxChars`. A single turn longer than that is cut (head … tail).
 */
export function buildLaneChunks(
  entries: readonly ChunkEntry[],
  maxChars = MAX_CHUNK_CHARS,
): TranscriptChunk[] {
  const chunks: TranscriptChunk[] = [];
  let current: {
    lines: string[];
    first: ChunkEntry;
    last: ChunkEntry;
    length: number;
    replied: boolean;
  } | null = null;
  const close = () => {
    if (!current) return;
    chunks.push({
      laneKey: current.first.laneKey,
      firstSeq: current.first.seq,
      lastSeq: current.last.seq,
      text: current.lines.join('\n'),
      startTs: current.first.at,
      endTs: current.last.at,
    });
    current = null;
  };
  for (const entry of entries) {
    if (!entry.text) continue;
    const line = formatTurn(entry, maxChars);
    if (current) {
      const turnBoundary = entry.role === 'user' && current.replied;
      if (turnBoundary || current.length + 1 + line.length > maxChars) close();
    }
    if (!current) {
      current = {
        lines: [line],
        first: entry,
        last: entry,
        length: line.length,
        replied: entry.role !== 'user',
      };
      continue;
    }
    current.lines.push(line);
    current.last = entry;
    current.length += 1 + line.length;
    if (entry.role !== 'user') current.replied = true;
  }
  close();
  return chunks;
}
