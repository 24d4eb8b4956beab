// Search through HTTP and the service: ranking, filters, lane scoping, expiry, snippets, hostile
// queries, empty and stop-word-only queries, channel messages behind a flag, tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { channelMessages, transcriptChunks } from '../../src/db/schema.js';
import { createSearchRepository } from '../../src/modules/memory/search.repository.js';
import { createMemorySearchService } from '../../src/modules/memory/memory-search.service.js';
import { queryWords, tsvectorFrequencies } from '../../src/modules/memory/core/search-query.js';
import { queryRows } from '../../src/db/client.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

let ctx: TestContext;
let t: TestTenant;
/** The tenant whose 20,500 chunks make a scope too large to read (set by the test that loads them). */
let bigTenant: TestTenant | null = null;

const remember = (tenant: TestTenant, payload: Record<string, unknown>) =>
  tenant.inject({ method: 'POST', url: '/v1/memories', payload });
const search = (tenant: TestTenant, payload: Record<string, unknown>) =>
  tenant.inject({ method: 'POST', url: '/v1/memories/search', payload });

beforeAll(async () => {
  ctx = await createTestApp();
  t = await ctx.tenant();
  const facts: [string, string, string | undefined][] = [
    ['fact', 'The production database is PostgreSQL 16 on the eu-west cluster', 'root:C1'],
    ['preference', 'Alice prefers short answers with code examples', undefined],
    ['outcome', 'The rollout of the billing service failed because of a missing migration', 'thread:C1:111'],
    ['event', 'Team offsite planned in Lisbon for March', 'root:C2'],
    ['fact', 'The staging database runs on a single small instance', 'thread:C1:222'],
  ];
  for (const [type, text, lane] of facts) {
    ctx.clock.advance(60_000);
    const response = await remember(t, {
      scope: 'channel',
      scope_key: 'slack:C1',
      type,
      text,
      ...(lane ? { metadata: { lane_key: lane } } : {}),
    });
    expect(response.statusCode).toBe(201);
  }
  const db = ctx.deps.database.db;
  await db.insert(transcriptChunks).values({
    tenantId: t.tenantId,
    sessionId: '0190b3c2-7d1e-7abc-8def-0123456789ab',
    firstSeq: 1,
    lastSeq: 2,
    laneKey: 'root:C1',
    sessionKey: 'agent:a:slack:channel:C1',
    text: '[2026-01-01 00:00] User (Bob): why did the billing rollout fail?\n[2026-01-01 00:01] Assistant: a migration was missing',
    startTs: ctx.clock.now(),
    endTs: ctx.clock.now(),
  });
  await db.insert(channelMessages).values([
    {
      tenantId: t.tenantId,
      platform: 'slack',
      channelId: 'C1',
      messageId: '1.1',
      laneKey: 'root:C1',
      ts: ctx.clock.now(),
      text: 'Lisbon hotel booking confirmed',
      authorName: 'Carol',
    },
    {
      tenantId: t.tenantId,
      platform: 'slack',
      channelId: 'C1',
      messageId: '1.2',
      laneKey: 'root:C1',
      ts: ctx.clock.now(),
      text: 'Lisbon flights deleted',
      deletedAt: ctx.clock.now(),
    },
  ]);
});
afterAll(async () => {
  await ctx?.close();
});

describe('POST /v1/memories/search', () => {
  it('ranks the matching memory first, with a score in [0,1], snippet and source', async () => {
    const response = await search(t, { query: 'Which database do we use in production?' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.terms).toEqual(expect.arrayContaining(['databas', 'use', 'product']));
    expect(body.results[0]).toMatchObject({
      kind: 'memory',
      text: 'The production database is PostgreSQL 16 on the eu-west cluster',
      lane_key: 'root:C1',
      source: { type: 'fact', scope: 'channel', scope_key: 'slack:C1' },
    });
    for (const result of body.results) {
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(1);
    }
    expect(body.results[0].score).toBeGreaterThan(body.results[1].score);
  });

  it('finds transcript chunks beside memories and stems words', async () => {
    const body = (await search(t, { query: 'billing rollouts failing', max_results: 5 })).json();
    const kinds = body.results.map((r: { kind: string }) => r.kind);
    expect(kinds).toContain('memory');
    expect(kinds).toContain('transcript_chunk');
    const chunk = body.results.find((r: { kind: string }) => r.kind === 'transcript_chunk');
    expect(chunk.source).toMatchObject({
      session_key: 'agent:a:slack:channel:C1',
      first_seq: 1,
      last_seq: 2,
    });
  });

  it('includes channel messages only with the flag, never deleted ones', async () => {
    const without = (await search(t, { query: 'Lisbon' })).json();
    expect(without.results.map((r: { kind: string }) => r.kind)).toEqual(['memory']);
    const withMessages = (await search(t, { query: 'Lisbon', include_channel_messages: true })).json();
    const messages = withMessages.results.filter((r: { kind: string }) => r.kind === 'channel_message');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ id: 'slack:C1:1.1', source: { author_name: 'Carol' } });
  });

  it('ranks messages by an author the query names above the same words from someone else', async () => {
    const tenant = await ctx.tenant();
    const at = ctx.clock.now();
    const message = (messageId: string, authorName: string, minutes: number) => ({
      tenantId: tenant.tenantId,
      platform: 'slack',
      channelId: 'C7',
      messageId,
      laneKey: 'root:C7',
      ts: new Date(at.getTime() + minutes * 60_000),
      text: 'the ferry to the island leaves at noon',
      authorName,
    });
    // Dave's copy is newer, so recency alone would put it first.
    await ctx.deps.database.db
      .insert(channelMessages)
      .values([message('1', 'Carol Ng', 0), message('2', 'Dave', 5)]);
    const ids = async (query: string) =>
      (await search(tenant, { query, include_channel_messages: true }))
        .json()
        .results.map((r: { id: string }) => r.id);
    expect(await ids('when does the ferry leave?')).toEqual(['slack:C7:2', 'slack:C7:1']);
    expect(await ids('what did Carol say about the ferry?')).toEqual(['slack:C7:1', 'slack:C7:2']);
  });

  it('ranks memories by a speaker the query names (a `Name:` label) above the same words from someone else', async () => {
    const tenant = await ctx.tenant();
    // Melanie's line is newer, so recency alone would put it first.
    for (const text of [
      'Caroline: Melanie loves pottery classes',
      'Melanie: Caroline loves pottery classes',
    ]) {
      ctx.clock.advance(60_000);
      expect((await remember(tenant, { scope: 'tenant', type: 'event', text })).statusCode).toBe(201);
    }
    const texts = async (query: string) =>
      (await search(tenant, { query })).json().results.map((r: { text: string }) => r.text);
    expect(await texts('who loves pottery classes?')).toEqual([
      'Melanie: Caroline loves pottery classes',
      'Caroline: Melanie loves pottery classes',
    ]);
    expect(await texts('what did Caroline say about pottery classes?')).toEqual([
      'Caroline: Melanie loves pottery classes',
      'Melanie: Caroline loves pottery classes',
    ]);
  });

  it('expands the query with the words of its best results (RM3), within the tenant', async () => {
    const tenant = await ctx.tenant();
    const other = await ctx.tenant();
    const texts = [
      'the zanzibar ferry leaves from the harbour at noon',
      'zanzibar ferry tickets are sold at the harbour',
      'booked the zanzibar ferry for friday',
      'zanzibar harbour opening hours changed',
      'the office printer is out of toner',
      'lunch at the canteen moves to one o clock',
    ];
    for (const text of texts) {
      ctx.clock.advance(60_000);
      expect((await remember(tenant, { scope: 'tenant', type: 'fact', text })).statusCode).toBe(201);
    }
    expect(
      (await remember(other, { scope: 'tenant', type: 'fact', text: 'zanzibar harbour secrets' })).statusCode,
    ).toBe(201);
    const body = (await search(tenant, { query: 'ferry', max_results: 10 })).json();
    const found = body.results.map((r: { text: string }) => r.text);
    // The three ferry memories first; then the one sharing only their words (zanzibar, harbour).
    expect(found.slice(0, 3).sort()).toEqual(texts.slice(0, 3).sort());
    expect(found[3]).toBe('zanzibar harbour opening hours changed');
    expect(found).not.toContain('zanzibar harbour secrets');
    expect(found).not.toContain('the office printer is out of toner');
    expect(body.terms).toEqual(['ferri']);
    for (const r of body.results) expect(r.score).toBeLessThanOrEqual(1);
    expect(body.results[3].score).toBeLessThan(body.results[2].score);
  });

  it('filters by type, scope key, lane, session key and time', async () => {
    const facts = (await search(t, { query: 'database', filters: { types: ['fact'] } })).json();
    expect(
      facts.results.every(
        (r: { kind: string; source: { type: string } }) => r.kind === 'memory' && r.source.type === 'fact',
      ),
    ).toBe(true);
    expect(facts.results).toHaveLength(2);
    const otherScope = (
      await search(t, {
        query: 'database',
        filters: { scope: 'channel', scope_key: 'slack:C9' },
        include_transcripts: false,
      })
    ).json();
    expect(otherScope.results).toHaveLength(0);
    const lane = (await search(t, { query: 'database', filters: { lane_key: 'thread:C1:222' } })).json();
    expect(lane.results.map((r: { text: string }) => r.text)).toEqual([
      'The staging database runs on a single small instance',
    ]);
    const session = (
      await search(t, { query: 'billing', filters: { session_key: 'nope' }, include_memories: false })
    ).json();
    expect(session.results).toHaveLength(0);
    const future = (
      await search(t, { query: 'database', filters: { since: '2030-01-01T00:00:00Z' } })
    ).json();
    expect(future.results).toHaveLength(0);
  });

  it('keeps other lanes out unless named or scoring high', async () => {
    // One weak term: the other lane's memory does not pass the cross-lane threshold.
    const weak = (
      await search(t, { query: 'database cluster instance names', lane_key: 'thread:C1:222' })
    ).json();
    const lanes = weak.results.map((r: { lane_key: string | null }) => r.lane_key);
    expect(lanes).toContain('thread:C1:222');
    for (const result of weak.results) {
      if (result.lane_key && result.lane_key !== 'thread:C1:222')
        expect(result.score).toBeGreaterThanOrEqual(0.5);
    }
    const named = (
      await search(t, {
        query: 'database cluster instance names',
        lane_key: 'thread:C1:222',
        named_lanes: ['root:C1'],
      })
    ).json();
    expect(named.results.map((r: { lane_key: string | null }) => r.lane_key)).toContain('root:C1');
    // A strong match from another lane comes through.
    const strong = (await search(t, { query: 'offsite Lisbon March', lane_key: 'thread:C1:222' })).json();
    expect(strong.results[0]).toMatchObject({ lane_key: 'root:C2' });
    expect(strong.results[0].score).toBeGreaterThanOrEqual(0.5);
    // Lane-less memories are always eligible.
    const laneless = (await search(t, { query: 'Alice answers', lane_key: 'thread:C1:222' })).json();
    expect(laneless.results[0]).toMatchObject({ lane_key: null });
  });

  it('answers empty and stop-word-only queries with an empty list and a note', async () => {
    for (const query of ['', '   ', '?!.,', 'the and of is', 'What is it?']) {
      const response = await search(t, { query });
      expect(response.statusCode, query).toBe(200);
      expect(response.json().results).toEqual([]);
      expect(response.json().note).toBeTruthy();
    }
  });

  it('survives hostile query strings', async () => {
    const hostile = [
      "'; drop table memories; --",
      'database & | ! <-> :* ( ) \\',
      "database' | 'x",
      '"unterminated quote database',
      '\\\\\\ \\x00 \\u0000',
      "'''' \"\" ``",
      'database:* & !production',
      '$1 $$ ${x} %s %d',
      '\u0000 nul byte',
      'ünïcödé データベース database',
      'a'.repeat(5000).slice(0, 4000),
      '((((((((((',
    ];
    for (const query of hostile) {
      const response = await search(t, { query });
      expect(response.statusCode, query).toBe(200);
      expect(Array.isArray(response.json().results)).toBe(true);
    }
    const quoted = (await search(t, { query: "database' | 'x" })).json();
    expect(quoted.results.length).toBeGreaterThan(0);
    // The table is still there.
    expect((await t.inject({ url: '/v1/memories' })).json().memories.length).toBeGreaterThan(0);
  });

  it('respects max_results and validates the body', async () => {
    const body = (await search(t, { query: 'database billing Lisbon Alice', max_results: 2 })).json();
    expect(body.results).toHaveLength(2);
    const bad = await search(t, { query: 'x', max_results: 0 });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(bad).details)).toContain('body.max_results');
    expect((await search(t, { max_results: 3 })).statusCode).toBe(400);
    expect((await search(t, { query: 'x', filters: { types: ['opinion'] } })).statusCode).toBe(400);
    expect((await search(t, { query: 'x', filters: { since: 'yesterday' } })).statusCode).toBe(400);
  });

  it('never returns expired memories', async () => {
    const tenant = await ctx.tenant();
    const expiresAt = new Date(ctx.clock.now().getTime() + 1_000).toISOString();
    await remember(tenant, {
      scope: 'tenant',
      type: 'fact',
      text: 'Door code is 4711',
      expires_at: expiresAt,
    });
    expect((await search(tenant, { query: 'door code' })).json().results).toHaveLength(1);
    ctx.clock.advance(2_000);
    expect((await search(tenant, { query: 'door code' })).json().results).toHaveLength(0);
  });

  it('scores recent items above equally relevant old ones', async () => {
    const tenant = await ctx.tenant();
    await remember(tenant, { scope: 'tenant', type: 'event', text: 'Quarterly review meeting held' });
    ctx.clock.advance(90 * 24 * 3_600_000);
    await remember(tenant, { scope: 'tenant', type: 'event', text: 'Quarterly review meeting scheduled' });
    const body = (await search(tenant, { query: 'quarterly review meeting' })).json();
    expect(body.results.map((r: { text: string }) => r.text)).toEqual([
      'Quarterly review meeting scheduled',
      'Quarterly review meeting held',
    ]);
    expect(body.results[0].score).toBeGreaterThan(body.results[1].score);
  });

  it('cuts long texts into a snippet around the first match', async () => {
    const tenant = await ctx.tenant();
    const text = `${'filler words here '.repeat(40)}the kubernetes upgrade is scheduled for friday ${'more filler '.repeat(40)}`;
    await remember(tenant, { scope: 'tenant', type: 'fact', text });
    const [result] = (await search(tenant, { query: 'kubernetes' })).json().results;
    expect(result.snippet).toContain('kubernetes upgrade');
    expect(result.snippet.startsWith('…')).toBe(true);
    expect(result.snippet.length).toBeLessThanOrEqual(242);
  });

  it('searches a scope too large to read through its rare lexemes', async () => {
    // 20,500 chunks (over the 20,000-document scope read) of filler from a 50-word vocabulary, and
    // three chunks holding rare words; another tenant holds the same rare words.
    const big = await ctx.tenant();
    bigTenant = big;
    const other = await ctx.tenant();
    const db = ctx.deps.database.db;
    const session = '0190b3c2-7d1e-7abc-8def-00000000beef';
    await db.execute(sql`
      insert into transcript_chunks (tenant_id, session_id, first_seq, last_seq, lane_key, session_key, text, start_ts, end_ts)
      select ${big.tenantId}, ${session}::uuid, g, g, 'root:C9', 'agent:a:slack:channel:C9',
        'filler' || (g % 50) || ' common' || (g % 7) || ' chatter' || (g % 11),
        ${ctx.clock.now().toISOString()}::timestamptz, ${ctx.clock.now().toISOString()}::timestamptz
      from generate_series(1, 20500) g`);
    const rare = [
      [big, 30001, 'the zanzibar quokka migration finished'],
      [big, 30002, 'a quokka was seen near the office'],
      [big, 30003, 'zanzibar ferry schedule'],
      [other, 1, 'zanzibar quokka secrets of another tenant'],
    ] as const;
    for (const [tenant, seq, text] of rare) {
      await db.insert(transcriptChunks).values({
        tenantId: tenant.tenantId,
        sessionId: session,
        firstSeq: seq,
        lastSeq: seq,
        laneKey: 'root:C9',
        sessionKey: 'agent:a:slack:channel:C9',
        text,
        startTs: ctx.clock.now(),
        endTs: ctx.clock.now(),
      });
    }
    await db.execute(sql`analyze transcript_chunks`);
    const texts = async (query: string) => {
      // The tenant has no memories: transcript chunks (searched by default) are all there is.
      const response = await search(big, { query, max_results: 5 });
      expect(response.statusCode).toBe(200);
      return response.json().results.map((r: { text: string }) => r.text) as string[];
    };
    // Two rare words: the chunk holding both first, then those holding one (the rarest's own).
    const both = await texts('zanzibar quokka common1');
    expect(both[0]).toBe('the zanzibar quokka migration finished');
    expect(both).not.toContain('zanzibar quokka secrets of another tenant');
    // One rare word among common ones: its chunks, not the filler.
    expect(await texts('ferry common1 chatter2')).toEqual(['zanzibar ferry schedule']);
    // Only common words: still answers, from the two least common lexemes' documents.
    const common = await texts('common1 chatter2');
    expect(common.length).toBe(5);
    for (const text of common) expect(text).toMatch(/common1 chatter2$/);
  });

  it('counts a large scope once when concurrent searches miss its statistics together', async () => {
    const repo = createSearchRepository(ctx.deps.database.db);
    let counts = 0;
    const service = createMemorySearchService({
      search: {
        ...repo,
        corpusStats: (...args: Parameters<typeof repo.corpusStats>) => {
          counts += 1;
          return repo.corpusStats(...args);
        },
      },
      clock: ctx.clock,
    });
    const replies = await Promise.all(
      ['zanzibar quokka', 'ferry common1', 'quokka office', 'zanzibar ferry'].map((query) =>
        service.searchMemory({
          tenantId: bigTenant!.tenantId,
          query,
          sources: ['transcript_chunks'],
          maxResults: 5,
          now: ctx.clock.now(),
        }),
      ),
    );
    expect(replies.every((r) => r.results.length > 0)).toBe(true);
    expect(counts).toBe(1);
    // Cached afterwards: another search counts nothing.
    await service.searchMemory({
      tenantId: bigTenant!.tenantId,
      query: 'quokka',
      sources: ['transcript_chunks'],
      now: ctx.clock.now(),
    });
    expect(counts).toBe(1);
  });

  it('reads common-lexeme shares from the planner statistics (large scopes pick rare lexemes with them)', async () => {
    const db = ctx.deps.database.db;
    await db.execute(sql`analyze memories`);
    const shares = await createSearchRepository(db).lexemeShares({ source: 'memories' });
    expect(shares.has('nosuchword')).toBe(false);
    expect(shares.size).toBeGreaterThan(0);
    for (const share of shares.values()) {
      expect(share).toBeGreaterThan(0);
      expect(share).toBeLessThanOrEqual(1);
    }
    expect(shares.get('databas')).toBeGreaterThan(0);
  });

  it('keeps tenants apart when the tenant key is not used in the index (large scopes)', async () => {
    const other = await ctx.tenant();
    await remember(other, { scope: 'tenant', type: 'fact', text: 'The production database is elsewhere' });
    const repo = createSearchRepository(ctx.deps.database.db);
    const rows = await repo.matchCandidates({
      tenantId: t.tenantId,
      source: 'memories',
      terms: [{ lexeme: 'databas', query: "'databas'", idf: 1 }],
      query: "'databas'",
      match: "'databas'",
      filters: {},
      now: ctx.clock.now(),
      averageLength: 8,
      scanLimit: 100,
      keep: 10,
      bm25: { k1: 0.9, b: 0.4 },
    });
    expect(rows.map((r) => r.text).sort()).toEqual([
      'The production database is PostgreSQL 16 on the eu-west cluster',
      'The staging database runs on a single small instance',
    ]);
    expect(rows[0]!.tf).toEqual({ databas: 1 });
  });

  it('reads the fallback match in the same statement only while the first finds fewer than asked', async () => {
    const repo = createSearchRepository(ctx.deps.database.db);
    const query = (below: number) =>
      repo.matchCandidates({
        tenantId: t.tenantId,
        source: 'memories',
        terms: [
          { lexeme: 'databas', query: "'databas'", idf: 1 },
          { lexeme: 'product', query: "'product'", idf: 2 },
        ],
        query: "'databas' | 'product'",
        match: "'databas' & 'product'",
        fallback: { match: "'databas'", scanLimit: 100, below },
        filters: {},
        now: ctx.clock.now(),
        averageLength: 8,
        scanLimit: 100,
        keep: 10,
        bm25: { k1: 0.9, b: 0.4 },
      });
    const production = 'The production database is PostgreSQL 16 on the eu-west cluster';
    // Fewer than 5 found by the pair: the rarest lexeme's documents join, the first one not twice.
    expect((await query(5)).map((r) => r.text).sort()).toEqual([
      production,
      'The staging database runs on a single small instance',
    ]);
    // The pair found one, as many as asked: the fallback is not read.
    expect((await query(1)).map((r) => r.text)).toEqual([production]);
  });

  it("reads a query's lexemes word by word as the whole text gives them (the service keeps them per word)", async () => {
    const repo = createSearchRepository(ctx.deps.database.db);
    const queries = [
      'The running databases were running, then the database ran',
      'ünïcödé データベース database straße ﬁle café naïve',
      'v1 2nd 3rd 1e5 0x1f abc123def 12345678901234567890 x',
      'what is it and the of is',
      "it's don't o'clock e-mail foo_bar user@example.com https://example.com/a/b",
      'ab'.repeat(40) + ' ' + 'z'.repeat(70) + ' мама мыла раму 中文 العربية',
    ];
    for (const query of queries) {
      const words = queryWords(query);
      const whole = await repo.lexemesOf(words.join(' '));
      const perWord = await repo.wordLexemes(words);
      expect(perWord).toHaveLength(words.length);
      expect([...new Set(perWord.flat())], query).toEqual(whole);
    }
    expect(await repo.wordLexemes([])).toEqual([]);
  });

  it("counts a tsvector's printed lexemes and positions as unnest gives them", async () => {
    const texts = [
      'The running databases were running, then the database ran again and again',
      "it's don't o'clock e-mail foo_bar user@example.com https://example.com/a/b",
      String.raw`back\slash 'quoted' "double" a\'b ünïcödé データベース café naïve`,
      ['word', ...Array.from({ length: 300 }, (_, i) => `w${i % 7}`)].join(' '),
      'the of and',
    ];
    for (const text of texts) {
      const [row] = await queryRows<{ printed: string; stripped: string; tf: unknown }>(
        ctx.deps.database.db,
        sql`select to_tsvector('english', ${text})::text as printed,
          strip(to_tsvector('english', ${text}))::text as stripped,
          (select json_object_agg(u.lexeme, coalesce(array_length(u.positions, 1), 1))
            from unnest(to_tsvector('english', ${text})) u) as tf`,
      );
      const unnested = typeof row!.tf === 'string' ? JSON.parse(row!.tf) : (row!.tf ?? {});
      expect({ ...tsvectorFrequencies(row!.printed) }, text).toEqual(unnested);
      // Printed without positions, a lexeme counts once.
      expect(Object.keys(tsvectorFrequencies(row!.stripped))).toEqual(Object.keys(unnested));
      expect(Object.values(tsvectorFrequencies(row!.stripped)).every((n) => n === 1)).toBe(true);
    }
  });

  it("samples a large scope's average length in key order: the same stored rows, the same statistics", async () => {
    // Stored in the reverse of their key order, so the rows a scan meets first are the last by key.
    const tenant = await ctx.tenant();
    const session = '0190b3c2-7d1e-7abc-8def-00000000cafe';
    const texts = ['apple', 'apple banana', 'apple banana cherry', 'apple banana cherry damson'];
    for (let seq = texts.length; seq >= 1; seq -= 1) {
      await ctx.deps.database.db.insert(transcriptChunks).values({
        tenantId: tenant.tenantId,
        sessionId: session,
        firstSeq: seq,
        lastSeq: seq,
        laneKey: 'root:C9',
        sessionKey: 'agent:a:slack:channel:C9',
        text: texts[seq - 1]!,
      });
    }
    const repo = createSearchRepository(ctx.deps.database.db);
    const stats = await repo.corpusStats({
      tenantId: tenant.tenantId,
      source: 'transcript_chunks',
      filters: {},
      now: ctx.clock.now(),
      cap: 100,
      sample: 2,
    });
    // The two first by key (1 and 2 lexemes), not the two stored first (4 and 3).
    expect(stats).toEqual({ documents: 4, averageLength: 1.5 });
  });
});
