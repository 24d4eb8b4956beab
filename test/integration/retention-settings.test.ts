// Retention periods per tenant: the context log and the payload parts of its weeks age out on
// the tenant's own period (else CONTEXT_LOG_RETENTION_DAYS), and GET/PUT /v1/tenant/retention
// reads and sets the periods, refusing bad input by field.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weekStart } from '../../src/db/partitions.js';
import { contextLog, payloadParts } from '../../src/db/schema.js';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';

const DAY = 86_400_000;
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({ env: { CONTEXT_LOG_RETENTION_DAYS: '90' } });
});
afterAll(async () => ctx?.close());

const put = (tenant: TestTenant, payload: unknown) =>
  tenant.inject({ method: 'PUT', url: '/v1/tenant/retention', payload: payload as object });

/**
 * Two logged calls (60 and 10 days old) and the parts of their weeks (a part is stored once per
 * tenant and week): a and b in the old call's week, b and c in the new one's; d in a week 70 days
 * back that no call names, e in the current week.
 */
async function seedLog(tenantId: string, now: Date) {
  const at = (days: number) => new Date(now.getTime() - days * DAY);
  const row = (turnSeq: number, days: number, parts: string[]) => ({
    tenantId,
    sessionId: '0190b3c2-7d1e-7abc-8def-000000000001',
    turnSeq,
    laneKey: 'root:C1',
    laneVersion: 1,
    payloadSha256: `p${turnSeq}`,
    budget: {},
    createdAt: at(days),
    payloadParts: parts,
  });
  await ctx.deps.database.db.insert(contextLog).values([row(1, 60, ['a', 'b']), row(2, 10, ['b', 'c'])]);
  await ctx.deps.database.db.insert(payloadParts).values(
    (
      [
        ['a', 60],
        ['b', 60],
        ['b', 10],
        ['c', 10],
        ['d', 70],
        ['e', 0],
      ] as const
    ).map(([sha256, days]) => ({
      tenantId,
      week: weekStart(at(days)),
      sha256,
      body: `"${sha256}"`,
      createdAt: at(days),
    })),
  );
}

async function stored(tenantId: string) {
  const db = ctx.deps.database.db;
  const rows = await db.select().from(contextLog).where(eq(contextLog.tenantId, tenantId));
  const parts = await db
    .select()
    .from(payloadParts)
    .where(and(eq(payloadParts.tenantId, tenantId)));
  return { calls: rows.map((r) => r.turnSeq).sort(), parts: parts.map((p) => p.sha256).sort() };
}

describe('context-log retention', () => {
  it('drops calls older than the tenant period and the parts of the weeks past it', async () => {
    const now = ctx.clock.now();
    const short = await ctx.tenant();
    const defaults = await ctx.tenant();
    const forever = await ctx.tenant();
    expect((await put(short, { conversation_days: null, context_log_days: 30 })).statusCode).toBe(200);
    expect((await put(forever, { conversation_days: null, context_log_days: 0 })).statusCode).toBe(200);
    for (const t of [short, defaults, forever]) await seedLog(t.tenantId, now);

    const report = await ctx.app.services.retention.runRetention(now);
    expect(report.ran && { log: report.counts.context_log, parts: report.counts.payload_parts }).toEqual({
      log: 1,
      parts: 3,
    });
    // 30 days: the 60-day-old call goes with its week's parts a and b, and the old week's d.
    expect(await stored(short.tenantId)).toEqual({ calls: [2], parts: ['b', 'c', 'e'] });
    // The default (90 days) keeps both calls and every part (none is older than 90 days).
    expect(await stored(defaults.tenantId)).toEqual({ calls: [1, 2], parts: ['a', 'b', 'b', 'c', 'd', 'e'] });
    // 0: kept for good (and with it every weekly partition: none is dropped).
    expect(await stored(forever.tenantId)).toEqual({ calls: [1, 2], parts: ['a', 'b', 'b', 'c', 'd', 'e'] });
    expect(report.ran && report.partitions.dropped).toEqual([]);
  });
});

describe('GET/PUT /v1/tenant/retention', () => {
  it('shows the defaults in force, sets the tenant’s own periods, and null goes back to the default', async () => {
    const tenant = await ctx.tenant();
    const other = await ctx.tenant();
    const initial = await tenant.inject({ method: 'GET', url: '/v1/tenant/retention' });
    expect(initial.json()).toEqual({
      conversation_days: null,
      context_log_days: null,
      effective: { conversation_days: 0, context_log_days: 90 },
    });
    const set = await put(tenant, { conversation_days: 365, context_log_days: 14 });
    expect(set.json()).toEqual({
      conversation_days: 365,
      context_log_days: 14,
      effective: { conversation_days: 365, context_log_days: 14 },
    });
    expect((await tenant.inject({ method: 'GET', url: '/v1/tenant/retention' })).json()).toEqual(set.json());
    // Another tenant's periods are its own.
    expect((await other.inject({ method: 'GET', url: '/v1/tenant/retention' })).json()).toEqual(
      initial.json(),
    );
    const back = await put(tenant, { conversation_days: null, context_log_days: 14 });
    expect(back.json().effective).toEqual({ conversation_days: 0, context_log_days: 14 });
  });

  it.each([
    [{ conversation_days: -1, context_log_days: null }, 'body.conversation_days'],
    [{ conversation_days: null, context_log_days: 1.5 }, 'body.context_log_days'],
    [{ conversation_days: null, context_log_days: '30' }, 'body.context_log_days'],
    [{ conversation_days: 40_000, context_log_days: null }, 'body.conversation_days'],
    [{ context_log_days: 30 }, 'body.conversation_days'],
    [{ conversation_days: null, context_log_days: null, days: 3 }, 'body'],
  ])('refuses %j naming %s', async (payload, path) => {
    const tenant = await ctx.tenant();
    const response = await put(tenant, payload);
    expect(response.statusCode).toBe(400);
    const error = errorOf(response);
    expect(error.code).toBe('request.invalid');
    expect(JSON.stringify(error.details)).toContain(path);
    expect(
      (await tenant.inject({ method: 'GET', url: '/v1/tenant/retention' })).json().conversation_days,
    ).toBeNull();
  });
});
