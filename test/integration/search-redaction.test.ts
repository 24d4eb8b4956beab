// Search documents stored before the redaction rules (simulated: a secret written straight into a
// chunk's text, a channel message's stored text with no search text, a memory's text) are found by a
// search for the secret until the maintenance pass re-redacts them; after it no search finds them,
// the channel message's stored text is still the audit record, and a second pass reads nothing (the
// tenant's watermark records the rules version).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { REDACTION_RULES_VERSION } from '../../src/modules/memory/core/redaction.js';
import { createTestApp, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

// A GitHub token: its body is one lexeme a search can ask for.
const BODY = 'Zq8vXw3kPt7LmN2bR5yH9cJ4dF6gS1aE0uIo';
const SECRET = `ghp_${BODY}`;
const rows = <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) =>
  queryRows<T>(ctx.deps.database.db, query);

/** Documents of each source whose search column holds the secret's body. */
async function indexed() {
  const q = sql`plainto_tsquery('english', ${BODY})`;
  const [r] = await rows<{ chunks: number; messages: number; memories: number }>(
    sql`select
      (select count(*)::int from transcript_chunks where tenant_id = ${t.tenantId} and tsv @@ ${q}) as chunks,
      (select count(*)::int from channel_messages where tenant_id = ${t.tenantId} and tsv @@ ${q}) as messages,
      (select count(*)::int from memories where tenant_id = ${t.tenantId} and tsv @@ ${q}) as memories`,
  );
  return r;
}

async function searchHits(query: string) {
  const reply = await t.inject({
    method: 'POST',
    url: '/v1/memories/search',
    payload: { query, include_transcripts: true, include_channel_messages: true, max_results: 50 },
  });
  expect(reply.statusCode).toBe(200);
  return (reply.json() as { results: { kind: string; text: string }[] }).results;
}

describe('re-redaction of search documents stored before the rules', () => {
  it('new writes index no secret', async () => {
    const reply = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'slack',
            channel_id: 'CNEW',
            message_id: 'm-new',
            ts: '2026-01-01T09:00:00Z',
            author: { id: 'U1', name: 'Ana' },
            text: `rotated the bot token, new one is ${SECRET} zebrafinch`,
          },
        ],
      },
    });
    expect(reply.statusCode).toBe(200);
    expect(await indexed()).toEqual({ chunks: 0, messages: 0, memories: 0 });
    const [stored] = await rows<{ text: string; search_text: string | null }>(
      sql`select text, search_text from channel_messages where tenant_id = ${t.tenantId} and message_id = 'm-new'`,
    );
    // The stored text is the audit record; the search text is redacted.
    expect(stored!.text).toContain(SECRET);
    expect(stored!.search_text).toContain('[REDACTED:');
    expect(stored!.search_text).not.toContain(BODY);

    // A reaction, a reply and an edit to the same text leave the text as it was: the row keeps the
    // search text it was stored with (not redacted again), still redacted.
    const later = await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'reaction.added',
            platform: 'slack',
            channel_id: 'CNEW',
            message_id: 'm-new',
            ts: '2026-01-01T09:01:00Z',
            reaction: 'eyes',
            user_id: 'U2',
          },
          {
            type: 'message.created',
            platform: 'slack',
            channel_id: 'CNEW',
            message_id: 'm-reply',
            ts: '2026-01-01T09:02:00Z',
            author: { id: 'U2', name: 'Bo' },
            text: 'thanks',
            reply_to_id: 'm-new',
          },
          {
            type: 'message.edited',
            platform: 'slack',
            channel_id: 'CNEW',
            message_id: 'm-new',
            ts: '2026-01-01T09:03:00Z',
            text: stored!.text,
          },
        ],
      },
    });
    expect(later.statusCode).toBe(200);
    expect(await indexed()).toEqual({ chunks: 0, messages: 0, memories: 0 });
    const [kept] = await rows<{ text: string; search_text: string | null; reply_count: number }>(
      sql`select text, search_text, reply_count from channel_messages where tenant_id = ${t.tenantId} and message_id = 'm-new'`,
    );
    expect(kept).toEqual({ ...stored, reply_count: 1 });
    await rows(sql`delete from channel_messages where tenant_id = ${t.tenantId} and channel_id = 'CNEW'`);
  });

  it('finds nothing of a pre-rule secret after the maintenance pass', async () => {
    // Rows as the code before the rules wrote them.
    const session = await t.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { session_key: 'old:1' },
    });
    const sessionId = (session.json() as { session: { id: string } }).session.id;
    await t.inject({
      method: 'POST',
      url: `/v1/sessions/${sessionId}/turns`,
      payload: {
        turns: [
          { role: 'user', content: 'what token does the deploy bot use? zebrafinch' },
          { role: 'assistant', content: 'the one in the vault' },
        ],
      },
    });
    await t.inject({
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            type: 'message.created',
            platform: 'slack',
            channel_id: 'COLD',
            message_id: 'm-old',
            ts: '2026-01-01T09:00:00Z',
            author: { id: 'U1', name: 'Ana' },
            text: 'placeholder zebrafinch',
          },
        ],
      },
    });
    const memory = await t.inject({
      method: 'POST',
      url: '/v1/memories',
      payload: { scope: 'tenant', type: 'fact', text: 'the deploy bot token zebrafinch' },
    });
    expect(memory.statusCode).toBeLessThan(300);
    await rows(
      sql`update transcript_chunks set text = text || ${` the token is ${SECRET}`} where tenant_id = ${t.tenantId}`,
    );
    await rows(
      sql`update channel_messages set text = ${`the token is ${SECRET} zebrafinch`}, search_text = null
          where tenant_id = ${t.tenantId} and message_id = 'm-old'`,
    );
    await rows(
      sql`update memories set text = ${`the deploy bot token is ${SECRET} zebrafinch`} where tenant_id = ${t.tenantId}`,
    );
    expect(await indexed()).toEqual({ chunks: 1, messages: 1, memories: 1 });
    const before = await searchHits(`${BODY} zebrafinch`);
    expect(before.map((r) => r.kind).sort()).toEqual(['channel_message', 'memory', 'transcript_chunk']);

    // The watermark of an earlier pass (the fixture's tenant existed) does not skip it: rules v-1.
    await rows(sql`delete from search_redaction where tenant_id = ${t.tenantId}`);
    const report = await ctx.app.services.retention.runRetention(ctx.clock.now());
    expect(report.ran && report.redacted).toEqual({ memories: 1, transcript_chunks: 1, channel_messages: 1 });

    expect(await indexed()).toEqual({ chunks: 0, messages: 0, memories: 0 });
    const after = await searchHits(BODY);
    expect(after).toEqual([]);
    // The other words still find every document, each with the secret redacted.
    const rest = await searchHits('zebrafinch');
    expect(rest.map((r) => r.kind).sort()).toEqual(['channel_message', 'memory', 'transcript_chunk']);
    for (const r of rest) expect(r.text).not.toContain(BODY);
    // The stored channel message is the audit record.
    const [audit] = await rows<{ text: string }>(
      sql`select text from channel_messages where tenant_id = ${t.tenantId} and message_id = 'm-old'`,
    );
    expect(audit!.text).toContain(SECRET);

    // Marked clean for the rules version: the next pass reads nothing of it.
    const marks = await rows<{ source: string; rules_version: number }>(
      sql`select source, rules_version from search_redaction where tenant_id = ${t.tenantId} order by source`,
    );
    expect(marks).toEqual(
      ['channel_messages', 'memories', 'transcript_chunks'].map((source) => ({
        source,
        rules_version: REDACTION_RULES_VERSION,
      })),
    );
    await rows(
      sql`update transcript_chunks set text = text || ${` again ${SECRET}`} where tenant_id = ${t.tenantId}`,
    );
    const again = await ctx.app.services.retention.runRetention(ctx.clock.now());
    expect(again.ran && again.redacted).toEqual({ memories: 0, transcript_chunks: 0, channel_messages: 0 });
  });

  it('re-redacts a source in pages (more rows than one page)', async () => {
    const other = await ctx.tenant();
    const texts = Array.from({ length: 450 }, (_, i) => `note ${i} key ${SECRET}`);
    await rows(
      sql`insert into memories (tenant_id, id, scope, scope_key, type, text, text_key)
          select ${other.tenantId}, gen_random_uuid(), 'tenant', '', 'fact', t, md5(t)
          from jsonb_array_elements_text(${JSON.stringify(texts)}::jsonb) as t`,
    );
    const report = await ctx.app.services.retention.runRetention(ctx.clock.now());
    expect(report.ran && report.redacted.memories).toBe(450);
    const [left] = await rows<{ n: number }>(
      sql`select count(*)::int as n from memories where tenant_id = ${other.tenantId} and text like ${`%${BODY}%`}`,
    );
    expect(left!.n).toBe(0);
  });
});
