// Answer presence (AP): how much of a LoCoMo answer a payload holds, item by item. Annotators write
// answers in their own words ("Pottery, camping", "The week before 9 June 2023"), so a whole-string
// match misses answers the payload does hold. An answer is split into items (commas, "and", "or",
// semicolons, slashes); a date item is present when the payload states a day within ±1 day of it
// (a month item: any day of that month), any other item when one payload unit (a line of a text
// block, or a string of a data block) holds all its content words. AP is the share of items present.
import { MONTHS, normalize } from './locomo.js';

const MONTH = `(${MONTHS.join('|')}|${MONTHS.map((m) => m.slice(0, 3)).join('|')})`;
const DAY_MS = 86_400_000;

const STOPWORDS = new Set(
  (
    'a an the of to in on at for from by with and or but is are was were be been being it its this that ' +
    'these those he she they them his her their hers theirs him i me my we our you your as about into ' +
    'than then so such also just did do does has have had not no yes very some any one'
  ).split(' '),
);

const stem = (word: string) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word);

/** Content words of a normalized text (all its words when every one is a stopword). */
function contentWords(text: string): string[] {
  const words = text.split(' ').filter(Boolean);
  const content = words.filter((w) => !STOPWORDS.has(w));
  return (content.length > 0 ? content : words).map(stem);
}

const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3)));

/** Days (UTC epoch ms) and months ("2023-05") a text states: ISO days, "7 May 2023", "May 7, 2023". */
export function statedDates(text: string): { days: number[]; months: Set<string> } {
  const days: number[] = [];
  const months = new Set<string>();
  const add = (year: number, month: number, day: number | null) => {
    if (month < 0 || month > 11 || year < 1000) return;
    months.add(`${year}-${String(month + 1).padStart(2, '0')}`);
    if (day !== null && day >= 1 && day <= 31) days.push(Date.UTC(year, month, day));
  };
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})(?:-(\d{2}))?\b/g))
    add(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : null);
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? ${MONTH},? (\\d{4})\\b`, 'g')))
    add(Number(m[3]), monthIndex(m[2]!), Number(m[1]));
  for (const m of lower.matchAll(new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'g')))
    add(Number(m[3]), monthIndex(m[1]!), Number(m[2]));
  for (const m of lower.matchAll(new RegExp(`\\b${MONTH},? (\\d{4})\\b`, 'g')))
    add(Number(m[2]), monthIndex(m[1]!), null);
  return { days, months };
}

export interface AnswerItem {
  /** The date the item names: a day (epoch ms) or a month ("2023-05"). */
  date: { day: number } | { month: string } | null;
  words: string[];
}

/** An answer's items. */
export function answerItems(answer: string): AnswerItem[] {
  return answer
    .split(/,|;|\/|\band\b|\bor\b/i)
    .map((part) => part.trim())
    .filter((part) => normalize(part) !== '')
    .map((part) => {
      const { days, months } = statedDates(part);
      const date = days.length > 0 ? { day: days[0]! } : months.size > 0 ? { month: [...months][0]! } : null;
      return { date, words: contentWords(normalize(part)) };
    });
}

/** The share of the answer's items the payload units hold; null for an empty answer. */
export function answerPresence(answer: string, units: readonly string[]): number | null {
  const items = answerItems(answer);
  if (items.length === 0) return null;
  const dates = statedDates(units.join('\n'));
  const unitWords = units.flatMap((u) => u.split('\n')).map((line) => new Set(contentWords(normalize(line))));
  const present = items.filter((item) => {
    if (item.date && 'day' in item.date) {
      const day = item.date.day;
      return dates.days.some((d) => Math.abs(d - day) <= DAY_MS);
    }
    if (item.date) return dates.months.has(item.date.month);
    return unitWords.some((words) => item.words.every((w) => words.has(w)));
  });
  return present.length / items.length;
}
