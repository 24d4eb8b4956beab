// The scope cache (docs/memory.md "Scope cache"): search_versions set by triggers on every write,
// held candidates equal to the SQL scope read's (same rows, statistics and frequencies, over random
// corpora with tied times and expired rows), searches equal with and without it, a write seen by the
// next read of the versions, and tenants apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { memories, transcriptChunks } from '../../src/db/schema.js';
import { queryRows } from '../../src/db/client.js';
import { createSearchRepository, type CandidateRow } from '../../src/modules/memory/search.repository.js';
import {
  candidatesFromDocuments,
  createScopeCache,
  indexScope,
  tsRank,
  tsqueryItems,
  versionKeys,
  type VersionedSource,
} from '../../src/modules/memory/scope-cache.js';
import { readScope, scopeVersionsSql } from '../../src/modules/memory/scope-documents.repository.js';
import { SCOPE_SCAN_MAX, createMemorySearchService } from '../../src/modules/memory/memory-search.service.js';
import type { MemoryScope } from '../../src/modules/memory/memories.repository.js';
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

const db = () => ctx.deps.database.db;

/** The versions of these keys, as loadTurn reads them. */
async function versionsOf(tenantId: string, keys: { source: VersionedSource; key: string }[]) {
  const [row] = await queryRows<{ v: unknown }>(
    db(),
    sql`select ${scopeVersionsSql(
      sql`${tenantId}`,
      keys.map((k) => ({ source: k.source, key: sql`${k.key}::text` })),
    )} as v`,
  );
  return (typeof row!.v === 'string' ? JSON.parse(row!.v) : row!.v) as Record<string, number>;
}

/** A deterministic pseudo-random sequence. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = [
  'database',
  'migration',
  'rollout',
  'billing',
  'lisbon',
  'offsite',
  'cluster',
  'staging',
  'alice',
  'prefers',
  'answers',
  'release',
  'plan',
  'failed',
  'service',
  'quokka',
  'ferry',
  'schedule',
  'budget',
  'review',
  'deploy',
  'incident',
  'pager',
  'coffee',
  'kernel',
];

let uuidCounter = 0;
const uuid = () => `0190b3c2-7d1e-7abc-8def-${(uuidCounter++).toString(16).padStart(12, '0')}`;

async function addMemories(
  tenantId: string,
  scope: MemoryScope,
  scopeKey: string,
  count: number,
  rnd: () => number,
) {
  const base = new Date('2026-01-01T00:00:00.000Z').getTime();
  const rows = Array.from({ length: count }, (_, i) => {
    const words = Array.from(
      { length: 2 + Math.floor(rnd() * 9) },
      () => WORDS[Math.floor(rnd() * WORDS.length)]!,
    );
    // Few distinct times (ties broken by tid), a few µs apart, some expired.
    const at = new Date(base + Math.floor(rnd() * 5) * 60_000);
    const updatedAt = sql`${at.toISOString()}::timestamptz + ${`${Math.floor(rnd() * 3)} microseconds`}::interval`;
    return {
      tenantId,
      id: uuid(),
      scope,
      scopeKey,
      type: 'fact' as const,
      text: `${words.join(' ')} ${i}`,
      textKey: `${scopeKey}-${i}-${uuidCounter}`,
      updatedAt: updatedAt as unknown as Date,
      expiresAt: rnd() < 0.15 ? new Date(base + (rnd() < 0.5 ? -1 : 1) * 3_600_000) : null,
      metadata: { n: i },
    };
  });
  await db().insert(memories).values(rows);
}

const sortRows = (rows: CandidateRow[]) =>
  [...rows]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((r) => ({ ...r, extra: JSON.parse(JSON.stringify(r.extra)) as unknown }));

describe('search_versions', () => {
  it('moves a scope to a new version on every insert, update and delete, and only that scope', async () => {
    const keys = [
      { source: 'memories' as const, key: 'channel:slack:V1' },
      { source: 'memories' as const, key: 'tenant:' },
      { source: 'transcript_chunks' as const, key: 'agent:v:slack:channel:V1' },
    ];
    const seen: Record<string, number>[] = [await versionsOf(t.tenantId, keys)];
    expect(seen[0]).toEqual({
      'memories channel:slack:V1': 0,
      'memories tenant:': 0,
      'transcript_chunks agent:v:slack:channel:V1': 0,
    });
    const id = uuid();
    const step = async (write: () => Promise<unknown>, changed: string[]) => {
      await write();
      const now = await versionsOf(t.tenantId, keys);
      const before = seen.at(-1)!;
      for (const [key, version] of Object.entries(now)) {
        if (changed.includes(key)) expect(version, key).toBeGreaterThan(before[key]!);
        else expect(version, key).toBe(before[key]);
      }
      seen.push(now);
    };
    const row = {
      tenantId: t.tenantId,
      id,
      scope: 'channel' as const,
      scopeKey: 'slack:V1',
      type: 'fact' as const,
    };
    await step(
      () =>
        db()
          .insert(memories)
          .values({ ...row, text: 'versioned fact', textKey: 'v1' }),
      ['memories channel:slack:V1'],
    );
    await step(
      () => db().update(memories).set({ text: 'versioned fact, edited' }).where(eq(memories.id, id)),
      ['memories channel:slack:V1'],
    );
    // Moving a memory to another scope: both scopes change.
    await step(
      () => db().update(memories).set({ scope: 'tenant', scopeKey: '' }).where(eq(memories.id, id)),
      ['memories channel:slack:V1', 'memories tenant:'],
    );
    await step(() => db().delete(memories).where(eq(memories.id, id)), ['memories tenant:']);
    const chunk = {
      tenantId: t.tenantId,
      sessionId: uuid(),
      firstSeq: 1,
      lastSeq: 2,
      laneKey: 'root:V1',
      sessionKey: 'agent:v:slack:channel:V1',
      text: 'a versioned chunk',
    };
    await step(
      () => db().insert(transcriptChunks).values(chunk),
      ['transcript_chunks agent:v:slack:channel:V1'],
    );
    await step(
      () =>
        db()
          .delete(transcriptChunks)
          .where(
            and(eq(transcriptChunks.tenantId, t.tenantId), eq(transcriptChunks.sessionId, chunk.sessionId)),
          ),
      ['transcript_chunks agent:v:slack:channel:V1'],
    );
    // A statement that changes nothing changes no version.
    await step(() => db().delete(memories).where(eq(memories.tenantId, 'no-such-tenant')), []);
    // Another tenant's writes in the same scope keys move only its own versions.
    const other = await ctx.tenant();
    await step(
      () =>
        db()
          .insert(memories)
          .values({ ...row, id: uuid(), tenantId: other.tenantId, text: 'theirs', textKey: 'o1' }),
      [],
    );
    expect((await versionsOf(other.tenantId, keys))['memories channel:slack:V1']).toBeGreaterThan(0);
  });

  it('gives a rolled-back write no version', async () => {
    const keys = [{ source: 'memories' as const, key: 'channel:slack:RB' }];
    await expect(
      db().transaction(async (tx) => {
        await tx.insert(memories).values({
          tenantId: t.tenantId,
          id: uuid(),
          scope: 'channel',
          scopeKey: 'slack:RB',
          type: 'fact',
          text: 'never committed',
          textKey: 'rb',
        });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await versionsOf(t.tenantId, keys)).toEqual({ 'memories channel:slack:RB': 0 });
  });
});

describe('held candidates', () => {
  it('rank as PostgreSQL’s ts_rank, to the bit', async () => {
    const tenant = await ctx.tenant();
    await addMemories(tenant.tenantId, 'tenant', '', 200, random(19));
    const read = await readScope(db(), {
      tenantId: tenant.tenantId,
      source: 'memories',
      filters: { scopes: [{ scope: 'tenant', scopeKey: '' }] },
      keys: ['tenant:'],
      cap: SCOPE_SCAN_MAX,
    });
    const repo = createSearchRepository(db());
    const rnd = random(23);
    for (let q = 0; q < 20; q += 1) {
      const lexemes = await repo.lexemesOf(
        Array.from(
          { length: 1 + Math.floor(rnd() * 5) },
          () => WORDS[Math.floor(rnd() * WORDS.length)]!,
        ).join(' '),
      );
      const query = lexemes.map((l) => `'${l}'`).join(' | ');
      const rows = await queryRows<{ id: string; rank: number }>(
        db(),
        sql`select id::text as id, ts_rank(tsv, ${query}::tsquery)::float8 as rank from memories
          where tenant_id = ${tenant.tenantId}`,
      );
      const expected = new Map(rows.map((r) => [r.id, Number(r.rank)]));
      for (const d of read.documents)
        expect(tsRank(d.tf, tsqueryItems(lexemes)), d.text).toBe(expected.get(d.id));
    }
  });

  it('are the SQL scope read’s, over random corpora, queries and windows', async () => {
    const rnd = random(7);
    const tenant = await ctx.tenant();
    await addMemories(tenant.tenantId, 'channel', 'slack:R1', 160, rnd);
    await addMemories(tenant.tenantId, 'tenant', '', 40, rnd);
    await addMemories(tenant.tenantId, 'session', 'agent:r', 3, rnd);
    const filters = {
      scopes: [
        { scope: 'tenant' as const, scopeKey: '' },
        { scope: 'channel' as const, scopeKey: 'slack:R1' },
        { scope: 'user' as const, scopeKey: 'slack:U404' },
        { scope: 'session' as const, scopeKey: 'agent:r' },
      ],
    };
    const keys = versionKeys('memories', filters)!;
    const read = await readScope(db(), {
      tenantId: tenant.tenantId,
      source: 'memories',
      filters,
      keys,
      cap: SCOPE_SCAN_MAX,
    });
    expect(read.complete).toBe(true);
    expect(read.documents).toHaveLength(203);
    // The same documents indexed as a held scope is (indexScope), and those that never expire
    // (the index's every-document-live path), searched both ways.
    const indexed = [...read.documents];
    indexScope(indexed);
    const lasting = read.documents.filter((d) => d.expires_us === null);
    const lastingIndexed = [...lasting];
    indexScope(lastingIndexed);
    expect(lasting.length).toBeGreaterThan(100);
    expect(lasting.length).toBeLessThan(read.documents.length);
    const repo = createSearchRepository(db());
    let compared = 0;
    let cut = 0;
    for (let q = 0; q < 60; q += 1) {
      const lexemes = await repo.lexemesOf(
        Array.from(
          { length: 1 + Math.floor(rnd() * 4) },
          () => WORDS[Math.floor(rnd() * WORDS.length)]!,
        ).join(' '),
      );
      // Now before and after the expiries; windows that bind and that do not.
      const now = new Date(
        new Date('2026-01-01T00:00:00.000Z').getTime() + (rnd() < 0.5 ? -7_200_000 : 7_200_000),
      );
      const rankWindow = [5, 20, 500][q % 3]!;
      const perTerm = [3, 20, 400][Math.floor(q / 3) % 3]!;
      const sqlRead = await repo.scopeCandidates({
        tenantId: tenant.tenantId,
        source: 'memories',
        terms: lexemes.map((l) => ({ lexeme: l, query: `'${l}'` })),
        query: lexemes.map((l) => `'${l}'`).join(' | '),
        filters,
        now,
        perTerm,
        scanLimit: 2000,
        rankWindow,
        cap: SCOPE_SCAN_MAX,
      });
      const held = candidatesFromDocuments(read.documents, {
        lexemes,
        nowMs: now.getTime(),
        perTerm,
        rankWindow,
        scanLimit: 2000,
      });
      if (held === null) throw new Error('the held scope declined a search');
      compared += 1;
      if (lexemes.some((l) => (held!.rows[0]?.df[l] ?? 0) > Math.min(perTerm, rankWindow))) cut += 1;
      expect(held.documents).toBe(sqlRead!.documents);
      expect(held.averageLength).toBe(sqlRead!.averageLength);
      expect(sortRows(held.rows)).toEqual(sortRows(sqlRead!.rows));
      const search = {
        lexemes,
        nowMs: now.getTime(),
        perTerm,
        rankWindow,
        scanLimit: 2000,
      };
      // Indexed: the same candidates in the same order.
      expect(candidatesFromDocuments(indexed, search)).toEqual(held);
      expect(candidatesFromDocuments(lastingIndexed, search)).toEqual(
        candidatesFromDocuments(lasting, search),
      );
    }
    expect(compared).toBe(60);
    // Windows and ts_rank cuts that bound the candidates (so the tid and rank orders were compared).
    expect(cut).toBeGreaterThan(20);
  });

  it('make the same search results as SQL, and see a write once the versions are read again', async () => {
    const rnd = random(11);
    const tenant = await ctx.tenant();
    await addMemories(tenant.tenantId, 'channel', 'slack:S1', 120, rnd);
    const filters = { scopes: [{ scope: 'channel' as const, scopeKey: 'slack:S1' }] };
    const versionKeysOf = [{ source: 'memories' as const, key: 'channel:slack:S1' }];
    const repo = createSearchRepository(db());
    let reads = 0;
    const scopeCache = createScopeCache(db(), { cap: SCOPE_SCAN_MAX });
    const countingCache = {
      ...scopeCache,
      documents: (params: Parameters<typeof scopeCache.documents>[0]) => {
        reads += 1;
        return scopeCache.documents(params);
      },
    };
    const cached = createMemorySearchService({
      search: repo,
      clock: ctx.clock,
      scopeCache: countingCache as typeof scopeCache,
    });
    const plain = createMemorySearchService({ search: repo, clock: ctx.clock });
    const now = new Date('2026-01-01T00:30:00.000Z');
    const both = async (query: string, scopeVersions: Record<string, number>) => {
      const params = {
        tenantId: tenant.tenantId,
        query,
        sources: ['memories' as const],
        filters,
        now,
        maxResults: 400,
        ranking: { feedback: null },
      };
      const [a, b] = await Promise.all([
        cached.searchMemory({ ...params, scopeVersions }),
        plain.searchMemory(params),
      ]);
      expect(a).toEqual(b);
      return a;
    };
    let versions = await versionsOf(tenant.tenantId, versionKeysOf);
    for (const query of [
      'database migration',
      'rollout plan failed',
      'quokka ferry schedule',
      'kernel pager coffee incident',
    ])
      expect((await both(query, versions)).results.length).toBeGreaterThan(0);
    expect(scopeCache.size).toBe(1);
    expect(reads).toBe(4);

    await db().insert(memories).values({
      tenantId: tenant.tenantId,
      id: uuid(),
      scope: 'channel',
      scopeKey: 'slack:S1',
      type: 'fact',
      text: 'zanzibar is where the new cluster lives',
      textKey: 'zz',
      updatedAt: now,
    });
    versions = await versionsOf(tenant.tenantId, versionKeysOf);
    const after = await both('zanzibar cluster', versions);
    expect(after.results[0]!.text).toBe('zanzibar is where the new cluster lives');
  });

  it('serve no other tenant, and decline shapes they do not hold', async () => {
    const a = await ctx.tenant();
    const b = await ctx.tenant();
    await addMemories(a.tenantId, 'tenant', '', 10, random(3));
    const scopeCache = createScopeCache(db(), { cap: SCOPE_SCAN_MAX });
    const filters = { scopes: [{ scope: 'tenant' as const, scopeKey: '' }] };
    const keys = [{ source: 'memories' as const, key: 'tenant:' }];
    const ofA = await scopeCache.documents({
      tenantId: a.tenantId,
      source: 'memories',
      filters,
      versions: await versionsOf(a.tenantId, keys),
    });
    expect(ofA).toHaveLength(10);
    // B's versions (0: never written) with B's tenant id: B's own empty scope, never A's documents.
    const ofB = await scopeCache.documents({
      tenantId: b.tenantId,
      source: 'memories',
      filters,
      versions: await versionsOf(b.tenantId, keys),
    });
    expect(ofB).toEqual([]);
    // Not held: filters the cache does not serve, versions that do not cover the keys.
    expect(versionKeys('memories', { ...filters, types: ['fact'] })).toBeNull();
    expect(versionKeys('memories', { scope: 'tenant', scopeKey: '' })).toBeNull();
    expect(versionKeys('transcript_chunks', { sessionKey: 'k', laneKey: 'root:C1' })).toBeNull();
    expect(versionKeys('transcript_chunks', { sessionKey: 'k', platform: 'slack', channelId: 'C1' })).toEqual(
      ['k'],
    );
    expect(
      await scopeCache.documents({ tenantId: a.tenantId, source: 'memories', filters, versions: {} }),
    ).toBeNull();
    expect(
      await scopeCache.documents({
        tenantId: a.tenantId,
        source: 'channel_messages',
        filters: {},
        versions: {},
      }),
    ).toBeNull();
  });

  it('holds nothing of a scope over the cap', async () => {
    const tenant = await ctx.tenant();
    await addMemories(tenant.tenantId, 'tenant', '', 30, random(5));
    const filters = { scopes: [{ scope: 'tenant' as const, scopeKey: '' }] };
    const read = await readScope(db(), {
      tenantId: tenant.tenantId,
      source: 'memories',
      filters,
      keys: ['tenant:'],
      cap: 20,
    });
    expect(read).toMatchObject({ complete: false, documents: [] });
    expect(read.token).not.toBeNull();
  });
});
