// Token estimator benchmark (docs/design.md §6.3, issue 3): error per content class and speed of the
// service's estimators against the reference BPE (o200k from gpt-tokenizer), on a mixed corpus
// built from files on this machine: prose (the repository's docs, LoCoMo session summaries), chat
// (LoCoMo turns, Ubuntu IRC lines), code (Fastify's and contextd's sources), JSON (package
// manifests, pretty and minified), CJK and other scripts (TypeScript's localized messages),
// emoji-heavy chat (synthesized). It also refits the per-class coefficients on half of the
// corpus and reports the error on the other half.
//
//   npm run bench:tokens
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  CHAR_FEATURES,
  charProfile,
  classTokenCount,
  CLASS_COEFFICIENTS,
  type CharFeature,
} from '../src/shared/token-classes.js';
import { bpeCount } from '../src/shared/tokens.js';
import { machineLine, printTable, rng } from './lib/measure.js';

const ROOT = join(import.meta.dirname, '..');
const SHARED = join(ROOT, '../shared');
const PER_CLASS = 400;

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
const chunk = (text: string, size: number) => {
  const out: string[] = [];
  const lines = text.split('\n');
  let current = '';
  for (const line of lines) {
    if (current.length + line.length > size && current) {
      out.push(current);
      current = '';
    }
    current += line + '\n';
  }
  if (current.trim()) out.push(current);
  return out;
};
const take = (items: string[]) => items.filter((s) => s.trim().length > 0).slice(0, PER_CLASS);

function corpus(): Record<string, string[]> {
  // English prose: the repository's own docs.
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f))
    .map(read)
    .join('\n\n');
  const paragraphs = docs
    .split(/\n\s*\n/)
    .filter((p) => !p.includes('```') && !p.trim().startsWith('|') && p.length > 80);
  const locomo = existsSync(join(SHARED, 'data/locomo/locomo-dev.json'))
    ? (JSON.parse(read(join(SHARED, 'data/locomo/locomo-dev.json'))) as Record<string, unknown>[])
    : [];
  const summaries = locomo.flatMap((s) => Object.values((s.session_summary ?? {}) as Record<string, string>));
  const turns = locomo.flatMap((s) =>
    Object.values((s.conversation ?? {}) as Record<string, unknown>)
      .filter(Array.isArray)
      .flat()
      .map((t) => String((t as { text?: string }).text ?? '')),
  );
  const ircDir = join(SHARED, 'data/ubuntu-irc/dev');
  const irc = existsSync(ircDir)
    ? readdirSync(ircDir)
        .filter((f) => f.endsWith('.ascii.txt'))
        .flatMap((f) => read(join(ircDir, f)).split('\n'))
        .map((l) => /^\[\d\d:\d\d\] <[^>]+> (.*)$/.exec(l)?.[1] ?? '')
    : [];
  const fastify = join(ROOT, 'node_modules/fastify/lib');
  const code = [
    ...readdirSync(fastify)
      .filter((f) => f.endsWith('.js'))
      .map((f) => read(join(fastify, f))),
    ...readdirSync(join(ROOT, 'src/core')).map((f) => read(join(ROOT, 'src/core', f))),
  ].flatMap((t) => chunk(t, 600));
  const manifests = readdirSync(join(ROOT, 'node_modules'))
    .filter((d) => !d.startsWith('.') && !d.startsWith('@'))
    .slice(0, 300)
    .map((d) => read(join(ROOT, 'node_modules', d, 'package.json')))
    .filter(Boolean)
    .map((t) => JSON.parse(t) as unknown);
  const json = manifests
    .flatMap((m, i) => (i % 2 === 0 ? [JSON.stringify(m, null, 2)] : [JSON.stringify(m)]))
    .map((s) => s.slice(0, 3000));
  const localized = (lang: string) =>
    Object.values(
      JSON.parse(
        read(join(ROOT, `node_modules/typescript/lib/${lang}/diagnosticMessages.generated.json`)) || '{}',
      ) as Record<string, string>,
    );
  const cjk = [...localized('zh-cn'), ...localized('ja'), ...localized('ko')];
  const cjkMixed = Array.from({ length: PER_CLASS }, (_, i) => cjk.slice(i * 3, i * 3 + 3).join(' '));
  const multilingual = [...localized('ru'), ...localized('de')];
  const random = rng(1);
  const emoji = ['😀', '🎉', '🚀', '👍🏽', '❤️', '👩‍💻', '🇯🇵', '🔥', '✅', '🤔', '👨‍👩‍👧‍👦', '🙏'];
  const words = turns.join(' ').split(/\s+/).filter(Boolean);
  const emojiChat = Array.from({ length: PER_CLASS }, () =>
    Array.from({ length: 4 + Math.floor(random() * 16) }, () =>
      random() < 0.35
        ? emoji[Math.floor(random() * emoji.length)]
        : words[Math.floor(random() * words.length)],
    ).join(' '),
  );
  return {
    prose: take([...paragraphs, ...summaries]),
    chat: take([...turns.filter((_, i) => i % 2 === 0), ...irc.filter((_, i) => i % 7 === 0)]),
    code: take(code),
    json: take(json),
    cjk: take(cjkMixed),
    'other scripts': take(multilingual.filter((_, i) => i % 5 === 0)),
    emoji: take(emojiChat),
  };
}

/** Weighted least squares (weights 1/tokens, so relative error counts) with a small ridge. */
function fit(samples: { profile: number[]; tokens: number }[]): Record<CharFeature, number> {
  const k = CHAR_FEATURES.length;
  const a = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  for (const { profile, tokens } of samples) {
    const w = 1 / Math.max(1, tokens);
    for (let i = 0; i < k; i += 1) {
      for (let j = 0; j < k; j += 1) a[i]![j]! += w * profile[i]! * profile[j]!;
      a[i]![k]! += w * profile[i]! * tokens;
    }
  }
  for (let i = 0; i < k; i += 1) a[i]![i]! += 1e-3;
  for (let col = 0; col < k; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < k; r += 1) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < k; r += 1) {
      if (r === col) continue;
      const f = a[r]![col]! / a[col]![col]!;
      for (let c = col; c <= k; c += 1) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return Object.fromEntries(
    CHAR_FEATURES.map((f, i) => [f, Math.round((a[i]![k]! / a[i]![i]!) * 1e4) / 1e4]),
  ) as Record<CharFeature, number>;
}

function errors(samples: { text: string; tokens: number }[], estimate: (s: string) => number) {
  let absRel = 0;
  let est = 0;
  let ref = 0;
  const rel: number[] = [];
  for (const s of samples) {
    const e = estimate(s.text);
    const r = (e - s.tokens) / Math.max(1, s.tokens);
    rel.push(Math.abs(r));
    absRel += Math.abs(r);
    est += e;
    ref += s.tokens;
  }
  rel.sort((x, y) => x - y);
  return {
    mean: (100 * absRel) / samples.length,
    p95: 100 * rel[Math.floor(rel.length * 0.95)]!,
    bias: (100 * (est - ref)) / ref,
  };
}

function speed(texts: string[], fn: (s: string) => number): number {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  for (const t of texts) fn(t);
  const t0 = performance.now();
  let rounds = 0;
  while (performance.now() - t0 < 400) {
    for (const t of texts) fn(t);
    rounds += 1;
  }
  return (bytes * rounds) / ((performance.now() - t0) / 1000) / 1e6;
}

const pct = (x: number) => `${x >= 0 ? '' : '−'}${Math.abs(x).toFixed(1)}%`;

async function main(): Promise<void> {
  const classes = corpus();
  const train: { profile: number[]; tokens: number }[] = [];
  const tests: Record<string, { text: string; tokens: number }[]> = {};
  for (const [name, texts] of Object.entries(classes)) {
    tests[name] = [];
    texts.forEach((text, i) => {
      const tokens = countTokens(text);
      if (i % 2 === 0) train.push({ profile: charProfile(text), tokens });
      else tests[name]!.push({ text, tokens });
    });
  }
  const refit = fit(train);
  const rows: Record<string, string | number>[] = [];
  for (const [name, samples] of Object.entries(tests)) {
    const texts = samples.map((s) => s.text);
    const chars4 = errors(samples, (s) => Math.ceil(s.length / 4));
    const chunked = errors(samples, bpeCount);
    const cls = errors(samples, (s) => classTokenCount(s));
    const fresh = errors(samples, (s) => classTokenCount(s, refit));
    rows.push({
      class: name,
      samples: samples.length,
      'chars/4 mean |err| (bias)': `${chars4.mean.toFixed(1)}% (${pct(chars4.bias)})`,
      'BPE default mean |err|': `${chunked.mean.toFixed(2)}%`,
      'per-class shipped mean |err| / p95 (bias)': `${cls.mean.toFixed(1)}% / ${cls.p95.toFixed(0)}% (${pct(cls.bias)})`,
      'per-class refit mean |err| / p95 (bias)': `${fresh.mean.toFixed(1)}% / ${fresh.p95.toFixed(0)}% (${pct(fresh.bias)})`,
      'o200k MB/s': speed(texts, countTokens).toFixed(1),
      'BPE default MB/s': speed(texts, bpeCount).toFixed(1),
      'per-class MB/s': speed(texts, (s) => classTokenCount(s)).toFixed(0),
    });
  }
  printTable('Token estimators against o200k (held-out half of each class)', rows);
  console.log(
    '\nReference: countTokens of gpt-tokenizer o200k_base. "BPE default" is core/tokens.ts before its model factor.',
  );
  console.log(
    `Coefficients refit on the other half (paste into CLASS_COEFFICIENTS to ship them):\n${JSON.stringify(refit)}`,
  );
  console.log(`Shipped: ${JSON.stringify(CLASS_COEFFICIENTS)}`);
  console.log(machineLine());
}

await main();
