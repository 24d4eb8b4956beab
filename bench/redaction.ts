// Secret redaction, measured two ways.
//
// 1. On every surface, against the targets (≥ 99% of secrets redacted, ≤ 1% of look-alikes changed):
//    the generated corpus (≥ 200 secrets of ≥ 30 kinds, ≥ 200 look-alikes,
//    test/helpers/secret-corpus.ts) is sent as memories, turns and channel messages through the HTTP
//    API of the service (PGlite in memory, or DATABASE_URL's server) and read back through every
//    surface a model or a client reads (test/helpers/redaction-surfaces.ts, the same measurement as
//    test/integration/redaction-surfaces.test.ts). Exits 1 when a surface misses a target.
// 2. The cost of redaction (src/modules/memory/core/redaction.ts), which runs on every memory write
//    and every summary: µs per KB of chat-like text, for the whole function and for its two halves
//    (secretlint's preset, our own rules), against a floor measured in the same run — one
//    String.prototype.includes scan of the same text for a string it does not contain.
//
//   npm run bench:redaction                    # both
//   npm run bench:redaction -- --surfaces-only # 1 only
//   npm run bench:redaction -- --cost-only     # 2 only
//
// The cost's text is synthetic and deterministic: chat lines (words, numbers, ids, URLs) with the
// test corpus's look-alikes mixed in, and one secret per ~2 KB in the "with secrets" rows.
import { performance } from 'node:perf_hooks';
import { redactSecrets } from '../src/modules/memory/core/redaction.js';
import { findPatternSecrets } from '../src/modules/memory/core/secret-patterns.js';
import { findPresetSecrets } from '../src/modules/memory/core/secretlint-preset.js';
import { measureRedactionSurfaces } from '../test/helpers/redaction-surfaces.js';
import { lookAlikes, positiveCases, SeededRandom } from '../test/helpers/secret-corpus.js';
import { openBenchApp } from './lib/bench-app.js';
import { machineLine, printTable } from './lib/measure.js';

const TARGET_REDACTED = 0.99;
const TARGET_FALSE_POSITIVES = 0.01;

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

const percent = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((part / whole) * 100).toFixed(1)}%`;

/** Every surface's secrets, leaks and false positives against the targets; false when one misses. */
async function surfaces(): Promise<boolean> {
  const bench = await openBenchApp('contextd_bench_redaction');
  try {
    const started = performance.now();
    const report = await measureRedactionSurfaces((method, url, payload) =>
      bench.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${bench.key}` },
        ...(payload !== undefined ? { payload: payload as never } : {}),
      }),
    );
    let met = true;
    const rows = report.rows.map((row) => {
      const redacted = row.secrets === 0 ? 1 : (row.secrets - row.leaked) / row.secrets;
      const falsePositives = row.lookAlikes === 0 ? 0 : row.changed / row.lookAlikes;
      const ok = redacted >= TARGET_REDACTED && falsePositives <= TARGET_FALSE_POSITIVES;
      met &&= ok;
      return {
        surface: row.surface,
        secrets: row.secrets,
        leaked: row.leaked,
        redacted: percent(row.secrets - row.leaked, row.secrets),
        'look-alikes': row.lookAlikes,
        'false positives': row.changed,
        'false positive rate': percent(row.changed, row.lookAlikes),
        'target ≥ 99% / ≤ 1%': ok ? 'met' : 'NOT met',
      };
    });
    printTable(
      `Redaction on every surface: ${report.secretCount} secrets of ${report.kindCount} kinds, ` +
        `${report.lookAlikeCount} look-alikes (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ` +
        `${((performance.now() - started) / 1000).toFixed(0)} s)`,
      rows,
    );
    for (const leak of report.leaks.slice(0, 20))
      console.log(`leaked on ${leak.surface}: ${leak.kind} ${leak.secret.slice(0, 6)}…`);
    for (const change of report.changes.slice(0, 20))
      console.log(
        `changed on ${change.surface}: ${change.family} ${JSON.stringify(change.text.slice(0, 60))}`,
      );
    console.log(
      `\nTargets (≥ ${TARGET_REDACTED * 100}% redacted, ≤ ${TARGET_FALSE_POSITIVES * 100}% false positives on every surface): ${met ? 'met' : 'NOT met'}`,
    );
    return met;
  } finally {
    await bench.close();
  }
}

function cost(): void {
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
  printTable('Redaction cost', rows);
}

console.log(machineLine());
let met = true;
if (!process.argv.includes('--cost-only')) met = await surfaces();
if (!process.argv.includes('--surfaces-only')) cost();
if (!met) process.exitCode = 1;
