// The metric label for a caller-supplied model name: its family and version when it names a known
// one (dates, provider prefixes and suffixes dropped), else `other`. Model names are free text from
// callers; as labels they would make one Prometheus series per string. Every captured part is a
// fixed word or one digit, so the labels are a small fixed set (under 2,000). Pure.

/** Families we recognise; each match is made of fixed words and single digits only. */
const FAMILIES: readonly RegExp[] = [
  /^claude-(?:opus|sonnet|haiku)-\d(?:-\d)?(?=$|[-@:])/, // claude-sonnet-4-5[-20250929]
  /^claude-\d(?:-\d)?-(?:opus|sonnet|haiku)(?=$|[-@:])/, // claude-3-5-sonnet-20241022
  /^gpt-\d(?:\.\d)?o?(?:-(?:mini|nano))?(?=$|-)/, // gpt-4o-mini, gpt-4.1-nano, gpt-5
  /^o\d(?:-(?:mini|pro))?(?=$|-)/, // o3, o4-mini
  /^gemini-\d(?:\.\d)?-(?:pro|flash)(?:-lite)?(?=$|-)/, // gemini-2.5-flash-lite
];

/** `anthropic/…`, `us.anthropic.…` (Bedrock), `openai/…`: what precedes the family name. */
const PROVIDER_PREFIX = /^.*[/.](?=claude-|gpt-|o\d|gemini-)/;

export function modelLabel(model: string): string {
  const name = model.trim().toLowerCase().replace(PROVIDER_PREFIX, '');
  for (const family of FAMILIES) {
    const match = family.exec(name);
    if (match) return match[0];
  }
  return 'other';
}
