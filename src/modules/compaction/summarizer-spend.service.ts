// The monthly summarizer budget of a tenant: spend counted from the provider's reported usage,
// and a cap past which compactions use the extractive summarizer.
import type { Executor } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import type { SummarizerSpendRepository } from './summarizer-spend.repository.js';
import type { SummarizerUsage } from './core/types.js';

/** The calendar month (UTC) spend is counted in, e.g. 2026-11. */
const spendPeriod = (at: Date) => at.toISOString().slice(0, 7);

export function createSummarizerSpendService(deps: { repo: SummarizerSpendRepository; clock: Clock }) {
  const { repo, clock } = deps;
  return {
    async isOverCap(tenantId: string): Promise<boolean> {
      const spend = await repo.getSpend({ tenantId, period: spendPeriod(clock.now()) });
      return spend.cap !== null && spend.input + spend.output >= spend.cap;
    },
    async record(tenantId: string, usage: SummarizerUsage): Promise<void> {
      if (usage.inputTokens === 0 && usage.outputTokens === 0) return;
      await repo.addSpend({
        tenantId,
        period: spendPeriod(clock.now()),
        input: usage.inputTokens,
        output: usage.outputTokens,
      });
    },
    async view(tenantId: string, tx?: Executor) {
      const period = spendPeriod(clock.now());
      const spend = await repo.getSpend({ tenantId, period }, tx);
      return {
        monthly_token_cap: spend.cap,
        period,
        input_tokens: spend.input,
        output_tokens: spend.output,
      };
    },
    async setCap(tenantId: string, cap: number | null, tx?: Executor) {
      await repo.setCap({ tenantId, cap }, tx);
      return this.view(tenantId, tx);
    },
  };
}

export type SummarizerSpend = ReturnType<typeof createSummarizerSpendService>;
