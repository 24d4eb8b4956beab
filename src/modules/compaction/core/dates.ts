// Relative dates resolved against the day a turn was said ("yesterday" said on 2023-05-08 is
// 2023-05-07), so a summary read months later still says when. Days are UTC, like the labels.
const DAY_MS = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNITS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
const COUNTS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  couple: 2,
  few: 3,
};

interface ResolvedDate {
  /** The phrase as said, e.g. "last Friday". */
  phrase: string;
  /** What it means: a day (2023-05-05), a week (week of 2023-05-01), a month (2023-04) or a year. */
  resolved: string;
}

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
/** Monday of the week holding `ms`. */
const weekOf = (ms: number) => dayStart(ms) - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS;
const monthOf = (ms: number, delta: number) => {
  const d = new Date(ms);
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + delta, 1));
  return m.toISOString().slice(0, 7);
};

const PATTERN = new RegExp(
  [
    String.raw`\b(yesterday|today|tonight|tomorrow|last night|this morning|this afternoon|this evening)\b`,
    String.raw`\b(last|next|this|coming|past) (week(?:end)?|month|year|${WEEKDAYS.join('|')})\b`,
    String.raw`\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few) (day|week|month|year)s? (ago|from now|later|before)\b`,
    String.raw`\bin (\d+|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few) (day|week|month|year)s?\b`,
  ].join('|'),
  'gi',
);

function resolveOne(match: RegExpMatchArray, at: number): string | null {
  const [phrase] = match;
  const lower = phrase.toLowerCase();
  const day = dayStart(at);
  if (match[1]) {
    if (lower === 'yesterday' || lower === 'last night') return isoDay(day - DAY_MS);
    if (lower === 'tomorrow') return isoDay(day + DAY_MS);
    return isoDay(day);
  }
  if (match[2]) {
    const which = match[2].toLowerCase();
    const unit = match[3]!.toLowerCase();
    const sign = which === 'last' || which === 'past' ? -1 : which === 'this' ? 0 : 1;
    if (unit === 'week') return `week of ${isoDay(weekOf(at) + sign * 7 * DAY_MS)}`;
    if (unit === 'weekend') {
      const saturday = weekOf(at) + 5 * DAY_MS + sign * 7 * DAY_MS;
      return `weekend of ${isoDay(saturday)}`;
    }
    if (unit === 'month') return monthOf(at, sign);
    if (unit === 'year') return String(new Date(at).getUTCFullYear() + sign);
    const target = WEEKDAYS.indexOf(unit);
    const today = new Date(at).getUTCDay();
    // last Friday: the latest Friday before today; next/coming/this Friday: the first after it.
    if (sign < 0) return isoDay(day - (((today - target + 6) % 7) + 1) * DAY_MS);
    return isoDay(day + (((target - today + 6) % 7) + 1) * DAY_MS);
  }
  const countWord = (match[4] ?? match[7])!.toLowerCase().replace(/^a (couple|few) of$|^a (few)$/, '$1$2');
  const count = /^\d+$/.test(countWord) ? Number(countWord) : COUNTS[countWord];
  const unit = (match[5] ?? match[8])!.toLowerCase();
  if (count === undefined || count > 400) return null;
  const sign = match[6] && /ago|before/i.test(match[6]) ? -1 : 1;
  const vague = /few|couple/.test(countWord) ? 'about ' : '';
  const ms = day + sign * count * UNITS[unit]! * DAY_MS;
  if (unit === 'day') return `${vague}${isoDay(ms)}`;
  if (unit === 'week') return `${vague}week of ${isoDay(weekOf(ms))}`;
  if (unit === 'month') return `${vague}${isoDay(ms).slice(0, 7)}`;
  return `${vague}${new Date(ms).getUTCFullYear()}`;
}

/** The relative dates a text says, each resolved against `at` (ms), in order, deduplicated. */
function resolveRelativeDates(text: string, at: number): ResolvedDate[] {
  const out: ResolvedDate[] = [];
  for (const match of text.matchAll(PATTERN)) {
    const resolved = resolveOne(match, at);
    if (resolved && !out.some((d) => d.phrase.toLowerCase() === match[0].toLowerCase()))
      out.push({ phrase: match[0], resolved });
  }
  return out;
}

/** `{yesterday = 2023-05-07; last week = week of 2023-04-24}`, or '' when none. */
export function dateNote(text: string, at: number): string {
  const dates = resolveRelativeDates(text, at);
  return dates.length === 0 ? '' : ` {${dates.map((d) => `${d.phrase} = ${d.resolved}`).join('; ')}}`;
}
