// Secrets sent as memories, turns and channel messages through the HTTP API never come back: on
// every surface a model or a client reads (search of each source, context payloads, the agent
// tools, the transcript and channel reads) ≥ 99% of the corpus's secrets are redacted and ≤ 1% of
// its look-alikes changed. The corpus is generated (test/helpers/secret-corpus.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app.js';
import { measureRedactionSurfaces, type SurfaceReport } from '../helpers/redaction-surfaces.js';

let ctx: TestContext;
let report: SurfaceReport;

beforeAll(async () => {
  ctx = await createTestApp();
  const t = await ctx.tenant();
  report = await measureRedactionSurfaces((method, url, payload) =>
    t.inject({ method, url, ...(payload !== undefined ? { payload: payload as never } : {}) }),
  );
}, 600_000);
afterAll(async () => {
  await ctx?.close();
});

describe('redaction on every surface', () => {
  it('sends a corpus of ≥ 200 secrets of ≥ 30 kinds and ≥ 200 look-alikes', () => {
    expect(report.secretCount).toBeGreaterThanOrEqual(200);
    expect(report.kindCount).toBeGreaterThanOrEqual(30);
    expect(report.lookAlikeCount).toBeGreaterThanOrEqual(200);
  });

  it('reads every case back on every surface', () => {
    for (const row of report.rows) process.stdout.write(`${JSON.stringify(row)}\n`);
    const surfaces = Object.fromEntries(report.rows.map((r) => [r.surface, r]));
    for (const surface of [
      'search: memory',
      'search: transcript chunk',
      'search: channel message',
      'tool: memory_search',
      'tool: channel_messages',
      'GET transcript',
      'GET channel messages',
    ]) {
      expect(surfaces[surface], surface).toMatchObject({
        secrets: report.secretCount,
        lookAlikes: report.lookAlikeCount,
      });
    }
    // The payloads hold the lane's history, the snapshot and what was retrieved: most cases.
    expect(surfaces['context payload']!.secrets).toBeGreaterThanOrEqual(report.secretCount / 2);
  });

  it('redacts ≥ 99% of the secrets and changes ≤ 1% of the look-alikes on each surface', () => {
    expect(report.leaks).toEqual([]);
    for (const row of report.rows) {
      expect(row.leaked / row.secrets, row.surface).toBeLessThanOrEqual(0.01);
      expect(row.changed / Math.max(1, row.lookAlikes), row.surface).toBeLessThanOrEqual(0.01);
    }
    expect(report.changes).toEqual([]);
  });
});
