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
  const response = await tenant.inject({
    method: 'POST',
    url: `/v1/events/${platform}`,
    payload: payload as Record<string, unknown>,
  });
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
    process.stdout.write(
      [
        'platform  fixtures  refused  visible strings  stored',
        ...[...coverage].map(
          ([p, r]) =>
            `${p.padEnd(9)} ${String(r.fixtures).padStart(8)} ${String(r.refused).padStart(8)} ${String(r.strings).padStart(16)}  ${r.found}/${r.strings} (${((100 * r.found) / r.strings).toFixed(1)}%)`,
        ),
      ].join('\n') + '\n',
    );
    expect(missing).toEqual([]);
  });
});

const fixture = (name: string) => fixtures.find((f) => f.name === name)!;
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('Slack app_mention', () => {
  /** The `message` event Slack sends for the same message as the app_mention fixture. */
  function messageEventFor() {
    const envelope = clone(fixture('slack-app-mention').payload) as {
      event: Record<string, unknown>;
      event_id: string;
    };
    envelope.event_id = 'Ev0109message';
    envelope.event = { ...envelope.event, type: 'message', channel_type: 'channel' };
    return envelope;
  }

  it('is one message with its message event, in either order', async () => {
    const rows: unknown[] = [];
    for (const order of [
      [fixture('slack-app-mention').payload, messageEventFor()],
      [messageEventFor(), fixture('slack-app-mention').payload],
    ]) {
      const tenant = await ctx.tenant();
      const outcomes = [];
      for (const payload of order)
        outcomes.push((await ingest(tenant, 'slack', payload)).results[0]!.outcome);
      expect(outcomes).toEqual(['created', 'duplicate']);
      const list = await tenant.inject({ url: '/v1/channels/slack/C0100/messages' });
      const messages = list.json().messages as { message_id: string; text: string }[];
      expect(messages.map((m) => [m.message_id, m.text])).toEqual([
        ['1700000800.000900', '<@U0BOT> summarize this thread please'],
      ]);
      rows.push(
        await queryRows(
          ctx.deps.database.db,
          sql`select message_id, thread_id, text, author_id, author_name, metadata, lane_key, is_placeholder
              from channel_messages where tenant_id = ${tenant.tenantId} order by message_id`,
        ),
      );
    }
    expect(rows[0]).toEqual(rows[1]);
  });
});

describe('Telegram thread roots', () => {
  it('a forum topic read shows the topic as its root, filled from the reply copy', async () => {
    const tenant = await ctx.tenant();
    await ingest(tenant, 'telegram', fixture('telegram-forum-topic-message').payload);
    const thread = await tenant.inject({ url: '/v1/channels/telegram/-1001500000000/threads/1800' });
    expect(thread.statusCode).toBe(200);
    expect(thread.json().root).toEqual({
      message_id: '1800',
      ts: '2023-11-14T22:13:20.000Z',
      author: { user_id: '112', display_name: 'Olga', is_bot: false },
      text: '[topic created] Q1 roadmap',
      media: [],
    });
    expect(thread.json().replies.map((r: { text: string }) => r.text)).toEqual([
      'first draft of the Q1 roadmap is up',
    ]);
    // The copy fills a placeholder: the message list shows only messages that arrived themselves.
    const list = await tenant.inject({ url: '/v1/channels/telegram/-1001500000000/messages' });
    expect(list.json().messages.map((m: { message_id: string }) => m.message_id)).toEqual(['2003']);
  });

  it('a reply chain root comes from reply_to_message and gives way to its own create', async () => {
    const tenant = await ctx.tenant();
    const reply = fixture('telegram-reply-with-quote').payload as { message: Record<string, unknown> };
    await ingest(tenant, 'telegram', reply);
    const read = async () =>
      (await tenant.inject({ url: '/v1/channels/telegram/-1001500000000/threads/1990' })).json();
    expect((await read()).root).toMatchObject({
      message_id: '1990',
      author: { user_id: '111', display_name: 'Ivan Petrov' },
      text: 'The vendor patch lands Monday. Until then keep the feature flag off.',
    });
    const own = clone(reply.message.reply_to_message) as Record<string, unknown>;
    own.text = 'The vendor patch lands Monday. Until then keep the feature flag off!';
    const created = await ingest(tenant, 'telegram', { update_id: 900100, message: own });
    expect(created.results[0]!.outcome).toBe('created');
    expect((await read()).root.text).toBe(own.text);
    // A later copy does not overwrite the message's own create.
    await ingest(tenant, 'telegram', { ...reply, update_id: 900101 });
    expect((await read()).root.text).toBe(own.text);
  });
});

describe('Discord custom emoji', () => {
  const reaction = (t: string, emoji: Record<string, unknown>, user: string, guild: string) => ({
    op: 0,
    t,
    d: {
      user_id: user,
      channel_id: '1170000000000000000',
      message_id: '1200000000000000001',
      guild_id: guild,
      emoji,
      burst: false,
      type: 0,
    },
  });
  const reactionsOf = async (tenant: TestTenant) => {
    const list = await tenant.inject({ url: '/v1/channels/discord/1170000000000000000/messages' });
    return list.json().messages[0].reactions as Record<string, number>;
  };

  it('keeps two guilds’ :LUL: apart and lands a deleted emoji on the same key', async () => {
    const tenant = await ctx.tenant();
    await ingest(tenant, 'discord', fixture('discord-webhook-embed').payload);
    const g1 = { id: '41771983429993937', name: 'LUL', animated: false };
    const g2 = { id: '52881094530004048', name: 'LUL', animated: false };
    await ingest(tenant, 'discord', reaction('MESSAGE_REACTION_ADD', g1, 'u1', 'g1'));
    await ingest(tenant, 'discord', reaction('MESSAGE_REACTION_ADD', g2, 'u2', 'g2'));
    expect(await reactionsOf(tenant)).toEqual({ 'LUL:41771983429993937': 1, 'LUL:52881094530004048': 1 });
    // The emoji was deleted from guild 1: Discord sends its id with a null name.
    await ingest(tenant, 'discord', reaction('MESSAGE_REACTION_ADD', { id: g1.id, name: null }, 'u3', 'g1'));
    await ingest(
      tenant,
      'discord',
      reaction('MESSAGE_REACTION_REMOVE', { id: g1.id, name: null }, 'u1', 'g1'),
    );
    expect(await reactionsOf(tenant)).toEqual({ 'LUL:41771983429993937': 1, 'LUL:52881094530004048': 1 });
  });
});
