// Cost of secret redaction (src/modules/memory/core/redaction.ts), which runs on every memory write
// and every summary: µs per KB of chat-like text, for the whole function and for its two halves
// (secretlint's preset, our own rules), against a floor measured in the same run — one
// String.prototype.includes scan of the same text for a string it does not contain.
//
//   npm run bench:redaction
//
// The text is synthetic and deterministic: chat lines (words, numbers, ids, URLs) with the test
// corpus's look-alikes mixed in, and one secret per ~2 KB in the "with secrets" rows.
import { performance } from 'node:perf_hooks';
import { redactSecrets } from '../src/modules/memory/core/redaction.js';
import { findPatternSecrets } from '../src/modules/memory/core/secret-patterns.js';
import { findPresetSecrets } from '../src/modules/memory/core/secretlint-preset.js';
import { lookAlikes, positiveCases, SeededRandom } from '../test/helpers/secret-corpus.js';
import { machineLine, printTable } from './lib/measure.js';

const WORDS = (
  'the a we it is to of and for on in that this can you I will deploy build fix test merge ' +
  'review issue branch release tomorrow today meeting lunch thanks sure okay sounds good ' +
  'error timeout retry server client database cache queue worker logs metrics dashboard ' +
  'please check again later after before customer order invoice ticket update'
).split(' ');
const NAMES = ['Ana', 'Bo', 'Chen', 'Dee', 'Eli'];

function chatText(rng: SeededRandom, bytes: number, withSecrets: boolean): string {
  const noise = lookAlikes(rng.int(1_000_000), 2).map((c) => c.text);
  const secrets = positiveCases(rng.int(1_000_000), 1).map((c) => c.before + c.secret + c.after);
  let text = '';
  let sinceSecret = 0;
  while (text.length < bytes) {
    let line: string;
    if (withSecrets && sinceSecret > 2_048) {
      line = rng.pick(secrets);
      sinceSecret = 0;
    } else if (rng.int(5) === 0) {
      line = rng.pick(noise);
    } else {
      line = Array.from({ length: rng.between(4, 24) }, () => rng.pick(WORDS)).join(' ');
      if (rng.int(4) === 0)
        line += ` (#${rng.between(100, 99_999)}, https://example.com/t/${rng.between(1, 999)})`;
    }
    line = `${rng.pick(NAMES)}: ${line}\n`;
    sinceSecret += line.length;
    text += line;
  }
  return text.slice(0, bytes);
}

/** Mean µs per call of `fn` over the texts, repeated until at least `minMs` has passed. */
function timePerCall(texts: string[], fn: (text: string) => unknown, minMs = 200): number {
  for (const text of texts.slice(0, 20)) fn(text); // warm-up
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (const text of texts) fn(text);
    calls += texts.length;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1000) / calls;
}

const rng = new SeededRandom(42);
const rows: Record<string, string | number>[] = [];
for (const [label, bytes, count] of [
  ['chat turn, 200 B', 200, 400],
  ['memory, 1 KB', 1_024, 200],
  ['summary, 16 KB', 16_384, 20],
] as const) {
  for (const withSecrets of [false, true]) {
    if (withSecrets && bytes < 2_048) continue;
    const texts = Array.from({ length: count }, () => chatText(rng, bytes, withSecrets));
    const kb = bytes / 1024;
    const floor = timePerCall(texts, (t) => t.includes('\u0000secret'));
    const preset = timePerCall(texts, findPresetSecrets);
    const ours = timePerCall(texts, findPatternSecrets);
    const whole = timePerCall(texts, redactSecrets);
    rows.push({
      text: withSecrets ? `${label}, with secrets` : label,
      'redactSecrets µs/KB': (whole / kb).toFixed(1),
      'µs/call': whole.toFixed(1),
      'preset µs/KB': (preset / kb).toFixed(1),
      'our rules µs/KB': (ours / kb).toFixed(1),
      'floor (includes) µs/KB': (floor / kb).toFixed(2),
      '× floor': (whole / floor).toFixed(0),
    });
  }
}
console.log(machineLine());
printTable('Redaction cost', rows);
