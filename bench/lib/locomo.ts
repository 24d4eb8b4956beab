// LoCoMo data (../shared/data/locomo/README.md) as the benchmarks read it: samples, turns in order
// with their times (session start plus one second per turn), evidence ids parsed leniently.

export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
export interface Question {
  question: string;
  answer?: unknown;
  adversarial_answer?: unknown;
  evidence?: unknown[];
  category: number;
}
export interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Question[];
}

/** Month names, January first (dates in LoCoMo's session times and answers). */
export const MONTHS = [
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

/** "1:56 pm on 8 May, 2023" → Date (UTC). */
export function parseSessionTime(value: string): Date {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(value);
  if (!m) throw new Error(`unparseable session time: ${value}`);
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return new Date(
    Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!.toLowerCase()), Number(m[4]), hour, Number(m[2])),
  );
}

/** Turns of a conversation in order, each with its time. */
export function turnsOf(sample: Sample): { turn: Turn; at: Date }[] {
  const conv = sample.conversation;
  const numbers = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const out: { turn: Turn; at: Date }[] = [];
  for (const n of numbers) {
    const start = parseSessionTime(String(conv[`session_${n}_date_time`]));
    (conv[`session_${n}`] as Turn[]).forEach((turn, i) =>
      out.push({ turn, at: new Date(start.getTime() + i * 1000) }),
    );
  }
  return out;
}

/** Evidence ids, parsed leniently ("D8:6; D9:17", "D:11:26"). */
export function parseEvidence(evidence: unknown[] | undefined): string[] {
  const ids = new Set<string>();
  for (const item of evidence ?? []) {
    for (const m of String(item).matchAll(/D:?(\d+):(\d+)/g)) ids.add(`D${m[1]}:${m[2]}`);
  }
  return [...ids];
}

/** A turn's text as the README defines it (image turns add the caption). */
export const turnText = (turn: Turn) =>
  `${turn.text}${turn.blip_caption ? ` [image: ${turn.blip_caption}]` : ''}`;

export const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Every string the model reads: text blocks, and the strings inside the JSON of data blocks. */
export function payloadStrings(payload: { messages: { content: unknown }[] }, skip: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const message of payload.messages) {
    const blocks = Array.isArray(message.content)
      ? (message.content as { type: string; text?: string }[])
      : [];
    for (const block of blocks) {
      if (block.type !== 'text' || !block.text || block.text === skip) continue;
      out.push(block.text);
      const json = /^<\w+[^>]*>\n[^\n]*\n([\s\S]*)\n<\/\w+>$/.exec(block.text);
      if (json) {
        try {
          walk(JSON.parse(json[1]!));
        } catch {
          // not a data block
        }
      }
    }
  }
  return out;
}

/** One merged turn of a conversation driven as a DM: consecutive lines of one speaker in a session. */
export interface DialogTurn {
  role: 'user' | 'assistant';
  text: string;
  /** The dia_ids merged into it, in order. */
  ids: string[];
  /** LoCoMo session number. */
  session: number;
  at: Date;
}

/**
 * The conversation as a bot lives it: speaker_a is the user, speaker_b the assistant; consecutive
 * lines of one speaker within a session are one turn (lines joined by newlines); turns are `gapMs`
 * apart from the session's own start time, so sessions stay days apart.
 */
export function dialogOf(sample: Sample, gapMs = 60_000): DialogTurn[] {
  const speakerA = String(sample.conversation.speaker_a);
  const out: DialogTurn[] = [];
  let sessionStart = 0;
  let index = 0;
  let session = -1;
  for (const { turn } of turnsOf(sample)) {
    const n = Number(/^D(\d+):/.exec(turn.dia_id)?.[1] ?? 0);
    if (n !== session) {
      session = n;
      sessionStart = parseSessionTime(String(sample.conversation[`session_${n}_date_time`])).getTime();
      index = 0;
    }
    const role = turn.speaker === speakerA ? 'user' : 'assistant';
    const last = out.at(-1);
    if (last && last.role === role && last.session === session) {
      last.text += `\n${turnText(turn)}`;
      last.ids.push(turn.dia_id);
      continue;
    }
    out.push({
      role,
      text: turnText(turn),
      ids: [turn.dia_id],
      session,
      at: new Date(sessionStart + index * gapMs),
    });
    index += 1;
  }
  return out;
}
