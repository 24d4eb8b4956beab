// The retention job, run directly with the test clock: what goes, what stays, counts, one winner,
// and the ingest dedupe window.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import {
  blobs,
  channelBackfills,
  channelMessages,
  channels,
  idempotencyRecords,
  ingestEvents,
  memories,
  platformUsers,
  sessions,
  tenantUsage,
  tenants,
  transcriptChunks,
  transcriptEntries,
} from '../../src/db/schema.js';
import { memoryTextKey } from '../../src/modules/memory/core/memories.js';
import { createTestApp, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

const DAY = 86_400_000;
const uuid = (n: number) => `0190b3c2-7d1e-7abc-8def-${String(n).padStart(12, '0')}`;

async function seed(tenantId: string, now: Date) {
  const db = ctx.deps.database.db;
  const old = new Date(now.getTime() - 40 * DAY);
  const recent = new Date(now.getTime() - 2 * DAY);
  await db.insert(channelMessages).values([
    {
      tenantId,
      platform: 'slack',
      channelId: 'C1',
      messageId: 'old',
      laneKey: 'root:C1',
      ts: old,
      text: 'old message',
    },
    {
      tenantId,
      platform: 'slack',
      channelId: 'C1',
      messageId: 'new',
      laneKey: 'root:C1',
      ts: recent,
      text: 'new message',
    },
    {
      tenantId,
      platform: 'slack',
      channelId: 'C1',
      messageId: 'media',
      laneKey: 'root:C1',
      ts: recent,
      text: 'a picture',
      media: [{ artifact_id: uuid(903) }],
    },
  ]);
  // Session 1: entirely old (idle). Session 2: old and recent turns.
  await db.insert(sessions).values([
    { tenantId, id: uuid(1), sessionKey: 'k1', createdAt: old, updatedAt: old },
    { tenantId, id: uuid(2), sessionKey: 'k2', createdAt: old, updatedAt: recent },
  ]);
  const entry = (sessionId: string, seq: number, at: Date) => ({
    tenantId,
    sessionId,
    seq,
    laneKey: 'root:C1',
    kind: 'message' as const,
    role: 'user' as const,
    content: [{ type: 'text', text: `turn ${seq}` }],
    createdAt: at,
  });
  await db
    .insert(transcriptEntries)
    .values([entry(uuid(1), 1, old), entry(uuid(2), 1, old), entry(uuid(2), 2, recent)]);
  const chunk = (sessionId: string, seq: number, at: Date) => ({
    tenantId,
    sessionId,
    firstSeq: seq,
    lastSeq: seq,
    laneKey: 'root:C1',
    sessionKey: 'k',
    text: `turn ${seq}`,
    startTs: at,
    endTs: at,
    createdAt: at,
  });
  await db
    .insert(transcriptChunks)
    .values([chunk(uuid(1), 1, old), chunk(uuid(2), 1, old), chunk(uuid(2), 2, recent)]);
  const memory = (id: number, type: 'fact' | 'lane_summary', at: Date, expiresAt: Date | null = null) => ({
    tenantId,
    id: uuid(id),
    scope: 'tenant' as const,
    scopeKey: '',
    type,
    text: `memory ${id}`,
    textKey: memoryTextKey(`memory ${id}`),
    createdAt: at,
    updatedAt: at,
    expiresAt,
  });
  await db
    .insert(memories)
    .values([
      memory(101, 'lane_summary', old),
      memory(102, 'lane_summary', recent),
      memory(103, 'fact', old),
      memory(104, 'fact', recent, new Date(now.getTime() - 1000)),
    ]);
  const blob = (id: number, sessionId: string | null, at: Date) => ({
    tenantId,
    artifactId: uuid(id),
    sha256: `sha-${tenantId}-${id}`,
    mediaType: 'text/plain',
    byteLength: 1,
    kind: 'media' as const,
    content: Buffer.from('x'),
    sessionId,
    createdAt: at,
  });
  await db.insert(blobs).values([
    blob(901, uuid(1), recent), // tool result of the idle session that goes
    blob(902, null, old), // old and named by nothing
    blob(903, null, old), // old but a kept channel message shows it
    blob(904, null, recent), // recent
  ]);
}

async function remaining(tenantId: string) {
  const db = ctx.deps.database.db;
  const ids = async <T>(rows: Promise<T[]>, pick: (row: T) => string) => (await rows).map(pick).sort();
  return {
    messages: await ids(
      db.select().from(channelMessages).where(eq(channelMessages.tenantId, tenantId)),
      (r) => r.messageId,
    ),
    entries: await ids(
      db.select().from(transcriptEntries).where(eq(transcriptEntries.tenantId, tenantId)),
      (r) => `${r.sessionId.slice(-1)}:${r.seq}`,
    ),
    chunks: await ids(
      db.select().from(transcriptChunks).where(eq(transcriptChunks.tenantId, tenantId)),
      (r) => `${r.sessionId.slice(-1)}:${r.firstSeq}`,
    ),
    sessions: await ids(db.select().from(sessions).where(eq(sessions.tenantId, tenantId)), (r) =>
      r.id.slice(-1),
    ),
    memories: await ids(db.select().from(memories).where(eq(memories.tenantId, tenantId)), (r) =>
      r.id.slice(-3),
    ),
    blobs: await ids(db.select().from(blobs).where(eq(blobs.tenantId, tenantId)), (r) =>
      r.artifactId.slice(-3),
    ),
  };
}

describe('runRetention', () => {
  it('deletes what is older than the tenant retention period and reports counts', async () => {
    const now = ctx.clock.now();
    const kept = await ctx.tenant();
    const purged = await ctx.tenant();
    await ctx.deps.database.db
      .update(tenants)
      .set({ retentionDays: 30 })
      .where(eq(tenants.id, purged.tenantId));
    await seed(kept.tenantId, now);
    await seed(purged.tenantId, now);
    await ctx.deps.database.db.insert(ingestEvents).values([
      {
        tenantId: kept.tenantId,
        source: 'slack',
        eventId: 'E1',
        receivedAt: new Date(now.getTime() - 8 * DAY),
      },
    ]);

    const report = await ctx.app.services.retention.runRetention(now);
    expect(report).toEqual({
      ran: true,
      tenants: 1,
      complete: true,
      counts: {
        channel_messages: 1,
        transcript_entries: 2,
        // two old chunks of the purged tenant
        transcript_chunks: 2,
        sessions: 1,
        derived_memories: 1,
        // the expired fact, in both tenants
        expired_memories: 2,
        blobs: 2,
        ingest_events: 1,
        idempotency_records: 0,
        context_log: 0,
        payload_parts: 0,
        lock_leases: 0,
        channels: 0,
        channel_backfills: 0,
        platform_users: 0,
        search_versions: 0,
        tenant_usage: 0,
      },
      // Nothing of the fixture holds a secret.
      redacted: { memories: 0, transcript_chunks: 0, channel_messages: 0 },
      // The weeks of the context log and its parts: the current one and two ahead (the clock is
      // on Thursday 2026-01-01; weeks start on Monday).
      partitions: {
        created: ['20251229', '20260105', '20260112'].flatMap((week) => [
          `context_log_p${week}`,
          `payload_parts_p${week}`,
        ]),
        dropped: [],
        failed: [],
      },
    });
    expect(await remaining(purged.tenantId)).toEqual({
      messages: ['media', 'new'],
      entries: ['2:2'],
      chunks: ['2:2'],
      sessions: ['2'],
      // user-written facts stay; the old derived summary goes; the expired fact goes
      memories: ['102', '103'],
      blobs: ['903', '904'],
    });
    // A tenant without a retention period only loses expired memories.
    const untouched = await remaining(kept.tenantId);
    expect(untouched.messages).toEqual(['media', 'new', 'old']);
    expect(untouched.entries).toHaveLength(3);
    expect(untouched.memories).toEqual(['101', '102', '103']);
    expect(untouched.blobs).toHaveLength(4);

    // A second pass finds nothing more.
    const again = await ctx.app.services.retention.runRetention(now);
    expect(again.ran && Object.values(again.counts).every((n) => n === 0)).toBe(true);
    expect(again.ran && again.partitions).toEqual({ created: [], dropped: [], failed: [] });
  });

  it('lets one run win when several start at once', async () => {
    const reports = await Promise.all([
      ctx.app.services.retention.runRetention(ctx.clock.now()),
      ctx.app.services.retention.runRetention(ctx.clock.now()),
      ctx.app.services.retention.runRetention(ctx.clock.now()),
    ]);
    expect(reports.filter((r) => r.ran)).toHaveLength(1);
    expect(reports.filter((r) => !r.ran)).toEqual([
      { ran: false, reason: 'locked' },
      { ran: false, reason: 'locked' },
    ]);
    // After it finished the lock is free again.
    expect((await ctx.app.services.retention.runRetention(ctx.clock.now())).ran).toBe(true);
  });
});

describe('rows that grow with the workspace', () => {
  /** Channels, backfill marks, directory entries and search scopes: some emptied, some old, some live. */
  async function seedWorkspace(tenantId: string, now: Date) {
    const db = ctx.deps.database.db;
    const old = new Date(now.getTime() - 40 * DAY);
    const recent = new Date(now.getTime() - 2 * DAY);
    await db.insert(channels).values([
      { tenantId, platform: 'slack', channelId: 'CGONE', lastTs: old, firstTs: old },
      { tenantId, platform: 'slack', channelId: 'CLIVE', lastTs: old, firstTs: old },
      { tenantId, platform: 'slack', channelId: 'CQUIET', lastTs: recent, firstTs: recent },
    ]);
    await db.insert(channelMessages).values({
      tenantId,
      platform: 'slack',
      channelId: 'CLIVE',
      messageId: 'r1',
      threadId: 'TLIVE',
      laneKey: 'thread:CLIVE:TLIVE',
      ts: recent,
      text: 'a reply',
    });
    const mark = (channelId: string, threadId: string) => ({
      tenantId,
      platform: 'slack',
      channelId,
      threadId,
      messages: 1,
      calls: 1,
      complete: true,
      backfilledAt: old,
    });
    await db
      .insert(channelBackfills)
      .values([mark('CGONE', ''), mark('CLIVE', ''), mark('CLIVE', 'TGONE'), mark('CLIVE', 'TLIVE')]);
    const user = (userId: string, at: Date) => ({
      tenantId,
      platform: 'slack',
      userId,
      displayName: userId,
      source: 'pushed' as const,
      fetchedAt: at,
    });
    await db.insert(platformUsers).values([user('UOLD', old), user('UNEW', recent)]);
    // Summarizer spend: this month, eleven months back (kept), thirteen months back (goes).
    const month = (back: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
    await db.insert(tenantUsage).values([0, 11, 13].map((back) => ({ tenantId, period: month(back) })));
    // Search scopes: written, then emptied (their version rows stay behind), and one still used.
    const memory = (id: number, scope: 'user' | 'tenant', scopeKey: string) => ({
      tenantId,
      id: uuid(id),
      scope,
      scopeKey,
      type: 'fact' as const,
      text: `workspace memory ${id}`,
      textKey: memoryTextKey(`workspace memory ${id}`),
    });
    await db.insert(memories).values([memory(701, 'user', 'slack:U:9'), memory(702, 'tenant', '')]);
    await db.delete(memories).where(eq(memories.id, uuid(701)));
    await db.insert(transcriptChunks).values({
      tenantId,
      sessionId: uuid(9),
      firstSeq: 1,
      lastSeq: 1,
      laneKey: 'root',
      sessionKey: 'gone-session',
      text: 'a chunk',
    });
    await db.delete(transcriptChunks).where(eq(transcriptChunks.tenantId, tenantId));
  }

  async function workspace(tenantId: string) {
    const db = ctx.deps.database.db;
    return {
      channels: (await db.select().from(channels).where(eq(channels.tenantId, tenantId)))
        .map((r) => r.channelId)
        .sort(),
      marks: (await db.select().from(channelBackfills).where(eq(channelBackfills.tenantId, tenantId)))
        .map((r) => `${r.channelId}/${r.threadId}`)
        .sort(),
      users: (await db.select().from(platformUsers).where(eq(platformUsers.tenantId, tenantId)))
        .map((r) => r.userId)
        .sort(),
      months: (await db.select().from(tenantUsage).where(eq(tenantUsage.tenantId, tenantId))).length,
      scopes: (
        await queryRows<{ k: string }>(
          db,
          sql`select source || '|' || scope_key as k from search_versions where tenant_id = ${tenantId}`,
        )
      )
        .map((r) => r.k)
        .sort(),
    };
  }

  it('prunes emptied channels with their marks, thread marks without messages, old directory entries and emptied search scopes', async () => {
    const now = ctx.clock.now();
    const purged = await ctx.tenant();
    const kept = await ctx.tenant();
    await ctx.deps.database.db
      .update(tenants)
      .set({ retentionDays: 30 })
      .where(eq(tenants.id, purged.tenantId));
    await seedWorkspace(purged.tenantId, now);
    await seedWorkspace(kept.tenantId, now);
    const seeded = await workspace(kept.tenantId);
    expect(seeded.months).toBe(3);
    expect(seeded.scopes).toEqual([
      'memories|tenant:',
      'memories|user:slack:U:9',
      'transcript_chunks|gone-session',
    ]);

    const report = await ctx.app.services.retention.runRetention(now);
    expect(report.ran && report.counts.channels).toBeGreaterThanOrEqual(1);
    expect(report.ran && report.counts.channel_backfills).toBeGreaterThanOrEqual(1);
    expect(report.ran && report.counts.platform_users).toBeGreaterThanOrEqual(1);
    expect(report.ran && report.counts.search_versions).toBeGreaterThanOrEqual(4);
    expect(await workspace(purged.tenantId)).toEqual({
      // CGONE: idle past the period with no message left; CQUIET is recent, CLIVE has a message.
      channels: ['CLIVE', 'CQUIET'],
      // CGONE's mark went with it, TGONE has no message left; the live channel and thread stay.
      marks: ['CLIVE/', 'CLIVE/TLIVE'],
      users: ['UNEW'],
      months: 2,
      scopes: ['memories|tenant:'],
    });
    // Without a retention period only the emptied search scopes and the spend of old months go.
    expect(await workspace(kept.tenantId)).toEqual({ ...seeded, months: 2, scopes: ['memories|tenant:'] });

    // A scope written again after its row went starts past every version it had.
    await ctx.deps.database.db.insert(memories).values({
      tenantId: purged.tenantId,
      id: uuid(703),
      scope: 'user',
      scopeKey: 'slack:U:9',
      type: 'fact',
      text: 'back again',
      textKey: memoryTextKey('back again'),
    });
    expect((await workspace(purged.tenantId)).scopes).toEqual([
      'memories|tenant:',
      'memories|user:slack:U:9',
    ]);
  });
});

describe('ingest dedupe keys', () => {
  it('forgets event ids older than INGEST_DEDUPE_WINDOW_MS; an old event sent again is new', async () => {
    const windowed = await createTestApp({ env: { INGEST_DEDUPE_WINDOW_MS: String(2 * DAY) } });
    try {
      const t = await windowed.tenant();
      // Reactions without a user have no natural key: only their event id dedupes them.
      const reaction = (eventId: string, name: string) => ({
        type: 'reaction.added',
        platform: 'slack',
        channel_id: 'C1',
        message_id: 'm1',
        ts: '2026-01-01T10:01:00.000Z',
        reaction: name,
        event_id: eventId,
      });
      const post = async (events: unknown[]) => {
        const response = await t.inject({ method: 'POST', url: '/v1/events', payload: { events } });
        expect(response.statusCode, response.body).toBe(200);
        return (response.json().results as { outcome: string }[]).map((r) => r.outcome);
      };
      const reactions = async () =>
        (await t.inject({ url: '/v1/channels/slack/C1/messages' })).json().messages[0].reactions;
      const message = {
        type: 'message.created',
        platform: 'slack',
        channel_id: 'C1',
        message_id: 'm1',
        ts: '2026-01-01T10:00:00.000Z',
        author: { id: 'U1', name: 'Ana' },
        text: 'shipped',
      };
      expect(await post([message, reaction('Ev-old', 'tada')])).toEqual(['created', 'updated']);
      windowed.clock.advance(DAY);
      expect(await post([reaction('Ev-recent', 'eyes')])).toEqual(['updated']);
      windowed.clock.advance(DAY + 3_600_000);

      const report = await windowed.app.services.retention.runRetention(windowed.clock.now());
      expect(report).toMatchObject({ ran: true, counts: { ingest_events: 1 } });
      const left = await windowed.deps.database.db
        .select()
        .from(ingestEvents)
        .where(eq(ingestEvents.tenantId, t.tenantId));
      expect(left.map((r) => r.eventId)).toEqual(['Ev-recent']);

      // Inside the window a retry is still a duplicate; past it the id is forgotten, so the same
      // event is applied again (documented in docs/channels.md).
      expect(await post([reaction('Ev-recent', 'eyes')])).toEqual(['duplicate']);
      expect(await post([reaction('Ev-old', 'tada')])).toEqual(['updated']);
      expect(await reactions()).toEqual({ tada: 2, eyes: 1 });
    } finally {
      await windowed.close();
    }
  });
});

describe('Idempotency-Key replies', () => {
  it('are kept for IDEMPOTENCY_TTL_MS, then forgotten (the key may be used again)', async () => {
    const own = await createTestApp();
    try {
      const t = await own.tenant();
      const post = (text: string) =>
        t.inject({
          method: 'POST',
          url: '/v1/events',
          headers: { 'idempotency-key': 'batch-1' },
          payload: {
            events: [
              {
                type: 'message.created',
                platform: 'slack',
                channel_id: 'C1',
                message_id: `m-${text}`,
                ts: '2026-01-01T10:00:00.000Z',
                author: { id: 'U1', name: 'Ana' },
                text,
              },
            ],
          },
        });
      expect((await post('a')).statusCode).toBe(200);
      expect((await post('b')).statusCode).toBe(409);
      const records = () =>
        own.deps.database.db
          .select()
          .from(idempotencyRecords)
          .where(eq(idempotencyRecords.tenantId, t.tenantId));
      const [record] = await records();
      const createdAt = record!.createdAt.getTime();

      const early = await own.app.services.retention.runRetention(new Date(createdAt + DAY - 60_000));
      expect(early).toMatchObject({ ran: true, counts: { idempotency_records: 0 } });
      expect(await records()).toHaveLength(1);

      const late = await own.app.services.retention.runRetention(new Date(createdAt + DAY + 60_000));
      expect(late).toMatchObject({ ran: true, counts: { idempotency_records: 1 } });
      expect(await records()).toHaveLength(0);
      // Forgotten: the same key with another body is a new request now.
      expect((await post('b')).statusCode).toBe(200);
    } finally {
      await own.close();
    }
  });
});
