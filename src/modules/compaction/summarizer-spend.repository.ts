// Summarizer token spend per tenant and month (tenant_usage) and the tenant's monthly cap
// (tenants.summary_token_cap).
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { tenants, tenantUsage } from '../../db/schema.js';

export function createSummarizerSpendRepository(db: Executor) {
  return {
    async addSpend(
      params: { tenantId: string; period: string; input: number; output: number },
      tx: Executor = db,
    ): Promise<void> {
      await tx
        .insert(tenantUsage)
        .values({
          tenantId: params.tenantId,
          period: params.period,
          summaryInputTokens: params.input,
          summaryOutputTokens: params.output,
        })
        .onConflictDoUpdate({
          target: [tenantUsage.tenantId, tenantUsage.period],
          set: {
            summaryInputTokens: sql`${tenantUsage.summaryInputTokens} + ${params.input}`,
            summaryOutputTokens: sql`${tenantUsage.summaryOutputTokens} + ${params.output}`,
          },
        });
    },

    /** The tenant's cap and this period's spend (zeros before the first summary). */
    async getSpend({ tenantId, period }: { tenantId: string; period: string }, tx: Executor = db) {
      const [row] = await tx
        .select({
          cap: tenants.summaryTokenCap,
          input: tenantUsage.summaryInputTokens,
          output: tenantUsage.summaryOutputTokens,
        })
        .from(tenants)
        .leftJoin(tenantUsage, and(eq(tenantUsage.tenantId, tenants.id), eq(tenantUsage.period, period)))
        .where(eq(tenants.id, tenantId));
      return {
        cap: row?.cap ?? null,
        input: Number(row?.input ?? 0),
        output: Number(row?.output ?? 0),
      };
    },

    async setCap(
      { tenantId, cap }: { tenantId: string; cap: number | null },
      tx: Executor = db,
    ): Promise<void> {
      await tx.update(tenants).set({ summaryTokenCap: cap }).where(eq(tenants.id, tenantId));
    },
  };
}

export type SummarizerSpendRepository = ReturnType<typeof createSummarizerSpendRepository>;
