import { describe, expect, it } from 'vitest';
import { chunkForSummarizer, trimHeadTail } from '../../src/modules/compaction/core/chunking.js';
import {
  finalizeSummary,
  parseSummary,
  summarizeExtractive,
} from '../../src/modules/compaction/core/extractive.js';
import { extractIdentifiers, identifierSurvival } from '../../src/modules/compaction/core/identifiers.js';
import { entryText, renderEntryForSummary } from '../../src/modules/compaction/core/chunking.js';
import {
  compactionDefaults,
  SUMMARY_SECTIONS,
  type LaneEntry,
} from '../../src/modules/compaction/core/types.js';
import { createTokenEstimator } from '../../src/shared/tokens.js';

const estimator = createTokenEstimator();
const entry = (seq: number, role: 'user' | 'assistant', content: unknown): LaneEntry => ({
  seq,
  kind: 'message',
  role,
  content,
  tokenEstimate: estimator.content(content),
  at: Date.UTC(2026, 2, 1, 9) + seq * 60_000,
});

/** A realistic engineering thread: ids, paths, URLs, versions, errors, decisions, follow-ups. */
function engineeringThread(): LaneEntry[] {
  const lines = [
    'Can you check why the deploy of build 4821 to staging failed?',
    'The job failed with ECONNREFUSED 10.0.3.7:5432 in /srv/api/config/database.yml. Postgres was restarting.',
    'We decided to retry after the maintenance window ends at 14:30 UTC.',
    'Ticket OPS-2231 tracks the database restart; the runbook is https://wiki.example.com/runbooks/pg-restart.',
    'I will update the alert thresholds in monitoring/alerts/postgres.yaml tomorrow.',
    'Retry of build 4821 succeeded; version v2.14.3 is live on staging.',
    'Next step: promote v2.14.3 to production after QA signs off on JIRA-778.',
    'The error TypeError: cannot read properties of undefined in src/handlers/orders.ts:118 appeared twice.',
    'Fixed it in commit 9f3c2ab by guarding customer_id before the lookup.',
    'Let us go with feature flag orders_v2_enabled set to 25% for the rollout.',
    'Remind me to check the p99 latency (target 250 ms) on dashboard https://grafana.example.com/d/api-latency.',
    'Customer ACME-CORP reported 3 failed payments with error code PAY_502 yesterday.',
  ];
  const entries: LaneEntry[] = [];
  for (let i = 0; i < 60; i += 1) {
    entries.push(
      entry(i + 1, i % 2 === 0 ? 'user' : 'assistant', `${lines[i % lines.length]} (turn ${i + 1})`),
    );
  }
  return entries;
}

describe('extractive summarizer', () => {
  it('keeps at least 95% of the identifiers of a realistic thread verbatim', () => {
    const entries = engineeringThread();
    const summary = summarizeExtractive(
      { laneKey: 'root:C', previousSummary: null, entries },
      compactionDefaults,
      estimator,
    );
    const survival = identifierSurvival(entries.map(entryText), summary);
    expect(survival.total).toBeGreaterThan(40);
    expect(survival.kept / survival.total).toBeGreaterThanOrEqual(0.95);
    expect(summary.length).toBeLessThanOrEqual(compactionDefaults.summaryMaxChars);
  });

  it('writes every section, filing sentences by what they carry', () => {
    const summary = summarizeExtractive(
      { laneKey: 'root:C', previousSummary: null, entries: engineeringThread().slice(0, 12) },
      compactionDefaults,
      estimator,
    );
    const sections = parseSummary(summary);
    expect([...sections.keys()]).toEqual([...SUMMARY_SECTIONS]);
    const decisions = sections.get('Decisions and commitments')!.join('\n');
    expect(decisions).toContain('retry after the maintenance window');
    expect(decisions).toContain('alert thresholds');
    expect(sections.get('Requests and open questions')!.join('\n')).toContain('build 4821');
    expect(sections.get('Outcomes')!.join('\n')).toContain('succeeded');
  });

  it('is deterministic and updates the previous summary instead of restarting it', () => {
    const entries = engineeringThread();
    const request = { laneKey: 'root:C', previousSummary: null, entries: entries.slice(0, 30) };
    const first = summarizeExtractive(request, compactionDefaults, estimator);
    expect(summarizeExtractive(request, compactionDefaults, estimator)).toBe(first);
    const next = summarizeExtractive(
      {
        laneKey: 'root:C',
        previousSummary: first,
        entries: [entry(99, 'user', 'We agreed to freeze deploys until INC-9.')],
      },
      compactionDefaults,
      estimator,
    );
    expect(next).toContain('INC-9');
    for (const line of first.split('\n').filter((l) => l.startsWith('- ['))) expect(next).toContain(line);
  });

  it('over the cap, folds the oldest points into the index and then drops its oldest lines; redacts secrets', () => {
    const entries = Array.from({ length: 2_000 }, (_, i) =>
      entry(
        i + 1,
        i % 2 ? 'assistant' : 'user',
        `Turn ${i}: order ORD-${10_000 + i} shipped to warehouse W-${i % 7}.`,
      ),
    );
    const summary = finalizeSummary(
      summarizeExtractive(
        { laneKey: 'root:C', previousSummary: null, entries },
        compactionDefaults,
        estimator,
      ),
      compactionDefaults,
    );
    expect(summary.length).toBeLessThanOrEqual(16_000);
    expect(summary).toContain('ORD-11999');
    expect(summary).not.toContain('ORD-10000 ');
    const secret = finalizeSummary(
      '## Important facts\n- the key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
      compactionDefaults,
    );
    expect(secret).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(secret).toContain('[REDACTED');
  });
});

describe('identifiers', () => {
  it('finds ids, paths, URLs, versions, numbers and error names, and ignores redacted secrets', () => {
    const ids = extractIdentifiers(
      'See https://x.example.com/a?b=1, /etc/app.conf, ./run.sh, OPS-12, #4411, 9f3c2ab, v1.2.3, 8080, TypeError, ENOENT, user_42 and [REDACTED:api_key].',
    );
    for (const id of [
      'https://x.example.com/a?b=1',
      '/etc/app.conf',
      'OPS-12',
      '#4411',
      '9f3c2ab',
      'v1.2.3',
      '8080',
      'TypeError',
      'ENOENT',
      'user_42',
    ]) {
      expect(ids).toContain(id);
    }
    expect(ids.join(' ')).not.toContain('REDACTED');
  });
});

describe('chunking', () => {
  it('trims an entry larger than a chunk to its head and tail, within the bound', () => {
    const huge = Array.from({ length: 40_000 }, (_, i) => `line ${i} value=${i * 7}`).join('\n');
    const chunks = chunkForSummarizer(
      [entry(1, 'user', [{ type: 'tool_result', tool_use_id: 't', content: huge }])],
      {
        maxTokens: 20_000,
        estimator,
      },
    );
    expect(chunks).toHaveLength(1);
    expect(estimator.text(chunks[0]!)).toBeLessThanOrEqual(20_000);
    expect(chunks[0]).toContain('line 0 ');
    expect(chunks[0]).toContain('line 39999 ');
    expect(chunks[0]).toMatch(/tokens omitted/);
    expect(trimHeadTail('short', 100, estimator)).toBe('short');
  });

  it('packs 2,000 short turns into bounded, ordered, deterministic chunks', () => {
    const entries = Array.from({ length: 2_000 }, (_, i) =>
      entry(i + 1, i % 2 ? 'assistant' : 'user', `turn ${i}: ok`),
    );
    const chunks = chunkForSummarizer(entries, { maxTokens: 4_000, estimator });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(estimator.text(chunk)).toBeLessThanOrEqual(4_000);
    expect(chunks.join('\n\n')).toBe(entries.map((e) => renderEntryForSummary(e)).join('\n\n'));
    expect(chunkForSummarizer(entries, { maxTokens: 4_000, estimator })).toEqual(chunks);
  });
});
